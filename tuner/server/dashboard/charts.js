// The dashboard's four plots, drawn with Svg (svg.js): learning curves with
// the rungs marked, best-so-far over time, parameter vs objective, and the
// device timeline. Each function redraws its container from API data.
'use strict';

const Charts = (() => {
  // Trials that no longer train are greyed; CSS keys on these classes.
  const kGreyed = new Set(['stopped', 'failed']);

  function empty(container, text) {
    container.textContent = '';
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = text;
    container.appendChild(p);
  }

  function paramsText(params) {
    return Object.entries(params || {})
        .map(([k, v]) => `${k}=${typeof v === 'number' ? Svg.number(v) : v}`)
        .join(' ');
  }

  // The trial's value at a rung: its last report at or before the
  // milestone (the one the scheduler judged).
  function valueAt(points, milestone) {
    let found = null;
    for (const p of points) {
      if (p[0] <= milestone * (1 + 1e-9) + 1e-12) found = p;
    }
    return found;
  }

  // curves: GET /api/experiments/{name}/curves.
  function learningCurves(container, curves) {
    const xs = [], ys = [];
    for (const t of curves.trials) {
      for (const p of t.points) {
        xs.push(p[0]);
        ys.push(p[1]);
      }
    }
    if (xs.length === 0) return empty(container, 'No reports yet.');
    const milestones =
        [...new Set(curves.decisions.map((d) => d.milestone))].sort(
            (a, b) => a - b);
    const c = Svg.chart(container, {
      id: 'curves-chart',
      label: 'learning curves',
      x: {
        domain: [Math.min(0, ...xs), Math.max(...xs, ...milestones)],
        label: curves.time_attr
      },
      y: {domain: Svg.extent(ys, 0.05), label: curves.metric},
    });
    // Named by milestone, as the trials' stop reasons name them.
    milestones.forEach((m) => {
      const px = c.x(m);
      Svg.el(
          'line', {
            class: 'rung',
            x1: px,
            x2: px,
            y1: c.box.top,
            y2: c.box.bottom,
            'data-milestone': m
          },
          c.plot);
      Svg.el('text', {class: 'rung-label', x: px + 3, y: c.box.top + 10},
             c.plot)
          .textContent = `rung ${Svg.number(m)}`;
    });
    // Greyed trials first, so the live ones are drawn over them.
    const order = [...curves.trials].sort(
        (a, b) => kGreyed.has(b.status) - kGreyed.has(a.status) || a.id - b.id);
    const byId = new Map();
    for (const t of order) {
      byId.set(t.id, t);
      if (t.points.length === 0) continue;
      const attrs = {
        class: `curve ${t.status}`,
        stroke: Svg.hue(t.id),
        'data-trial': t.id
      };
      const mark = t.points.length === 1 ?
          Svg.dot(c, t.points[0][0], t.points[0][1], attrs) :
          Svg.path(c, t.points, attrs);
      Svg.title(mark, `trial ${t.id} (${t.status}) ${paramsText(t.params)}`);
    }
    for (const d of curves.decisions) {
      const t = byId.get(d.trial);
      const p = t && valueAt(t.points, d.milestone);
      if (!p) continue;
      const mark = Svg.dot(
          c, d.milestone, p[1], {class: `decision ${d.verdict}`, r: 3.5});
      Svg.title(
          mark,
          `trial ${d.trial} at rung ${Svg.number(d.milestone)} ` +
              `(${curves.time_attr}): ` +
              `${d.verdict}, ${curves.metric} ${Svg.number(p[1])}`);
    }
  }

  // The best value reported so far against seconds since the first report.
  function bestSoFar(container, curves, now) {
    const reports = [];
    for (const t of curves.trials) {
      for (const p of t.points)
        reports.push({at: p[2], value: p[1], trial: t.id});
    }
    if (reports.length === 0) return empty(container, 'No reports yet.');
    reports.sort((a, b) => a.at - b.at);
    const better = curves.mode === 'max' ? (a, b) => a > b : (a, b) => a < b;
    const t0 = reports[0].at;
    const steps = [];
    for (const r of reports) {
      if (steps.length === 0 ||
          better(r.value, steps[steps.length - 1].value)) {
        steps.push({at: r.at - t0, value: r.value, trial: r.trial});
      }
    }
    const end = Math.max(reports[reports.length - 1].at, now || 0) - t0;
    const c = Svg.chart(container, {
      id: 'best-chart',
      label: 'best so far',
      x: {
        domain: [0, Math.max(end, 1e-3)],
        label: 'time since the first report',
        format: Svg.duration
      },
      y: {
        domain: Svg.extent(steps.map((s) => s.value), 0.05),
        label: `best ${curves.metric} (${curves.mode})`
      },
    });
    const line = steps.map((s) => [s.at, s.value]);
    line.push([end, steps[steps.length - 1].value]);
    Svg.path(c, line, {class: 'best-line'}, true);
    for (const s of steps) {
      Svg.title(
          Svg.dot(c, s.at, s.value, {class: 'best-point'}),
          `${Svg.duration(s.at)}: trial ${s.trial} reached ` +
              `${Svg.number(s.value)}`);
    }
  }

  // One scatter per parameter: its value against the trial's last value.
  function paramsVsObjective(container, curves, space) {
    container.textContent = '';
    const trials = curves.trials.filter((t) => t.points.length > 0);
    if (trials.length === 0) return empty(container, 'No reports yet.');
    const specs = space && space.length ?
        space :
        Object.keys(trials[0].params).map((name) => ({name}));
    for (const spec of specs) {
      const cell = document.createElement('div');
      cell.className = 'param-cell';
      container.appendChild(cell);
      scatter(cell, spec, trials, curves);
    }
  }

  function scatter(cell, spec, trials, curves) {
    const points = trials.filter((t) => spec.name in t.params)
                       .map((t) => ({
                              t,
                              x: t.params[spec.name],
                              y: t.points[t.points.length - 1][1]
                            }));
    const numeric = points.every((p) => typeof p.x === 'number');
    let x, format;
    if (numeric) {
      const lo = spec.low ?? Math.min(...points.map((p) => p.x));
      const hi = spec.high ?? Math.max(...points.map((p) => p.x));
      x = {domain: [lo, hi], log: !!spec.log};
    } else {
      const labels = spec.values ? spec.values.map(String) :
                                   [...new Set(points.map((p) => String(p.x)))];
      points.forEach((p) => {
        p.x = labels.indexOf(String(p.x));
      });
      x = {domain: [-0.5, labels.length - 0.5], ticks: labels.length};
      format = (i) =>
          (Number.isInteger(i) && labels[i] !== undefined ? labels[i] : '');
    }
    const c = Svg.chart(cell, {
      id: `param-${spec.name}`,
      width: 300,
      height: 220,
      margin: {left: 52, bottom: 36},
      x: Object.assign(x, {label: spec.name, format}),
      y: {
        domain: Svg.extent(points.map((p) => p.y), 0.08),
        label: curves.metric
      },
    });
    for (const p of points) {
      const dot = Svg.dot(c, p.x, p.y, {
        class: `param-point ${p.t.status}`,
        fill: Svg.hue(p.t.id),
        r: 4,
        'data-trial': p.t.id
      });
      Svg.title(
          dot,
          `trial ${p.t.id} (${p.t.status}): ${spec.name}=` +
              `${
                  typeof p.t.params[spec.name] === 'number' ?
                      Svg.number(p.t.params[spec.name]) :
                      p.t.params[spec.name]}` +
              `, ${curves.metric} ${Svg.number(p.y)} at ` +
              `${curves.time_attr} ${
                  Svg.number(p.t.points[p.t.points.length - 1][0])}`);
    }
  }

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
      return empty(container, 'No trial has held a device yet.');
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

  return {learningCurves, bestSoFar, paramsVsObjective, timeline, paramsText};
})();
