// The device timeline (SVG, svg.js): one lane per device, one rectangle per
// leased device, and a legend saying what the colours mean.
'use strict';

const Timeline = (() => {
  // "0-3" -> [0,1,2,3]; "4,5" -> [4,5]; anything else -> itself.
  function lanesOf(devices) {
    const out = [];
    for (const part of String(devices).split(',')) {
      const range = part.match(/^(\d+)-(\d+)$/);
      if (range) {
        for (let i = +range[1]; i <= +range[2]; i++) out.push(String(i));
      } else if (part !== '') {
        out.push(part);
      }
    }
    return out;
  }

  // leases: [{trial, devices, acquired_at, released_at, ...}] plus, per
  // lease, what `style` returns: {cls, fill, label, text}. An open lease
  // runs to `now`.
  function timeline(container, leases, opts) {
    if (leases.length === 0)
      return Charts.empty(container, 'No trial has held a device yet.');
    const lanes = [...new Set(leases.flatMap((l) => lanesOf(l.devices)))];
    const numeric = lanes.every((l) => /^\d+$/.test(l));
    lanes.sort((a, b) => (numeric ? a - b : a.localeCompare(b)));
    const t0 = Math.min(...leases.map((l) => l.acquired_at));
    const endOf = (l) => l.released_at ?? Math.max(opts.now, l.acquired_at);
    const t1 = Math.max(...leases.map(endOf));
    const laneHeight = 22;
    const c = Svg.chart(container, {
      id: opts.id,
      label: 'device timeline',
      width: 1100,
      height: 12 + 40 + lanes.length * laneHeight,
      margin: {left: 64},
      x: {
        domain: [0, Math.max(t1 - t0, 1e-3)],
        format: Svg.duration,
        label: 'time since the first lease'
      },
      y: {band: true},
    });
    const laneY = new Map(lanes.map((l, i) => [l, c.box.top + i * laneHeight]));
    lanes.forEach((lane, i) => {
      const y = laneY.get(lane);
      Svg.el(
          'rect', {
            class: `lane ${i % 2 ? 'odd' : 'even'}`,
            x: c.box.left,
            y,
            width: c.box.right - c.box.left,
            height: laneHeight
          },
          c.grid);
      Svg.el('text', {
           class: 'lane-label',
           x: c.box.left - 6,
           y: y + 15,
           'text-anchor': 'end'
         },
             c.svg)
          .textContent = `${opts.laneName} ${lane}`;
    });
    for (const lease of leases) {
      const style = opts.style(lease);
      const x0 = c.x(lease.acquired_at - t0), x1 = c.x(endOf(lease) - t0);
      for (const lane of lanesOf(lease.devices)) {
        const rect = Svg.el(
            'rect', {
              class: `lease ${style.cls}${
                  lease.released_at == null ? ' open' : ''}`,
              x: x0.toFixed(1),
              y: laneY.get(lane) + 2,
              width: Math.max(1, x1 - x0).toFixed(1),
              height: laneHeight - 4,
              fill: style.fill,
              'data-trial': lease.trial,
            },
            c.plot);
        Svg.title(
            rect,
            `${style.text}: ${opts.laneName} ${lease.devices}, ` +
                `${Svg.duration(lease.acquired_at - t0)} to ` +
                `${
                    lease.released_at == null ?
                        'now' :
                        Svg.duration(lease.released_at - t0)}`);
        if (x1 - x0 > 8 * style.label.length + 4) {
          Svg.el('text',
                 {class: 'lease-label', x: x0 + 4, y: laneY.get(lane) + 15},
                 c.plot)
              .textContent = style.label;
        }
      }
    }
  }

  // A legend under the timeline: `items` is [{fill, text}]; an outlined
  // swatch explains open leases.
  function legend(container, items) {
    const list = document.createElement('ul');
    list.className = 'legend';
    list.id = `${container.id}-legend`;
    for (const item of items.concat([{open: true, text: 'still held (grows with time)'}])) {
      const li = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = item.open ? 'swatch open' : 'swatch';
      if (item.fill) swatch.style.background = item.fill;
      li.append(swatch, item.text);
      list.appendChild(li);
    }
    container.appendChild(list);
  }

  return {timeline, legend};
})();
