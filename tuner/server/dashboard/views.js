// The parameter views: one scatter per parameter (uPlot), parallel
// coordinates and a binned contour of two parameters (plain canvas: no
// stock chart type), and the importance bars. What each view was handed
// goes to Charts.drawn for the browser test.
'use strict';

const Views = (() => {
  const drawn = Charts.drawn;
  const kScatterWidth = 300;

  // The objective's last value per trial with reports.
  function lastValues(curves) {
    return curves.trials.filter((t) => t.points.length > 0).map((t) => ({
      trial: t, value: t.points[t.points.length - 1][1]
    }));
  }

  let measure = null;  // a canvas context that measures the axes' text

  // How a categorical axis `width` pixels long shows its labels so that
  // none overlap: level when the widest fits its slot, else turned 45°
  // and, when even turned ones would touch, only every `every`-th; a label
  // past 16 characters is shortened with "…".
  function categoryLayout(labels, width) {
    if (!measure) {
      measure = document.createElement('canvas').getContext('2d');
      measure.font = '12px system-ui, -apple-system, "Segoe UI", sans-serif';
    }
    const shown = labels.map((l) => (String(l).length > 16 ? `${String(l).slice(0, 15)}…` : String(l)));
    const widest = Math.max(0, ...shown.map((l) => measure.measureText(l).width));
    const slot = width / Math.max(1, labels.length);
    if (widest + 8 <= slot) return {labels: shown, rotate: 0, every: 1, size: 34};
    // A turned label takes about 18 px across the axis.
    const every = Math.max(1, Math.ceil(18 / slot));
    return {labels: shown, rotate: -45, every, size: Math.ceil(widest * Math.SQRT1_2) + 24};
  }

  // The x axis of a scatter `width` pixels wide (its plot area is about
  // 66 px narrower: the y axis and the margins).
  function axisSpec(axis, width) {
    if (axis.categorical) {
      const layout = categoryLayout(axis.labels, width - 66);
      return {
        range: [-0.5, axis.labels.length - 0.5],
        splits: () => axis.labels.map((l, i) => i),
        values: (u, splits) =>
            splits.map((i) => (i % layout.every === 0 ? layout.labels[i] ?? '' : '')),
        rotate: layout.rotate,
        size: layout.size,
        label: axis.name,
        layout,
      };
    }
    const pad = (axis.hi - axis.lo) * 0.03 || 0.5;
    return {
      range: axis.log ? [10 ** (axis.lo - pad), 10 ** (axis.hi + pad)] :
                        [axis.lo - pad, axis.hi + pad],
      log: axis.log,
      label: axis.name + (axis.log ? ' (log)' : ''),
    };
  }

  // One scatter per parameter: its value against the trial's last value.
  function paramsVsObjective(container, curves, space) {
    const rows = lastValues(curves);
    drawn.params = {};
    if (rows.length === 0) return Charts.empty(container, 'No reports yet.');
    container.textContent = '';
    const ys = Charts.range(rows.map((r) => r.value), 0.08);
    for (const spec of Analysis.specsOf(space, curves.trials)) {
      const axis = Analysis.axisOf(spec, curves.trials);
      const greyed = [], live = [];
      for (const r of rows) {
        const a = axis.at(r.trial);
        if (a === null) continue;
        const x = axis.log ? 10 ** a : a;
        (r.trial.status === 'stopped' || r.trial.status === 'failed' ? greyed : live)
            .push([x, r.value]);
      }
      const cell = document.createElement('div');
      cell.className = 'param-cell';
      container.appendChild(cell);
      const x = axisSpec(axis, kScatterWidth);
      Charts.plot(cell, {
        id: `param-${spec.name}`, width: kScatterWidth, height: 220 + (x.size || 34) - 34,
        x,
        y: {range: ys, label: curves.shown || curves.metric},
        series: [
          {label: 'greyed', fill: Charts.kGrey, paths: Charts.dotsPath(greyed, 3, axis.log)},
          {label: 'live', fill: '#2563eb', paths: Charts.dotsPath(live, 3, axis.log)},
        ],
      });
      drawn.params[spec.name] = {points: greyed.length + live.length, log: axis.log};
      if (x.layout) {
        drawn.params[spec.name].labels = {rotate: x.layout.rotate, every: x.layout.every};
      }
    }
  }

  // A canvas of the container's width, scaled for the screen's pixels.
  function canvas(container, id, height) {
    Charts.destroy(container);
    container.textContent = '';
    const c = document.createElement('canvas');
    c.id = id;
    const width = Math.max(300, container.clientWidth - 4);
    c.width = width * devicePixelRatio;
    c.height = height * devicePixelRatio;
    c.style.width = `${width}px`;
    c.style.height = `${height}px`;
    container.appendChild(c);
    const ctx = c.getContext('2d');
    ctx.scale(devicePixelRatio, devicePixelRatio);
    ctx.font = '11px sans-serif';
    return {ctx, width, height};
  }

  // Good (dark blue) to bad (light yellow), t in [0, 1].
  function shade(t) {
    const a = [37, 52, 148], b = [237, 248, 177];
    return `rgb(${a.map((v, i) => Math.round(v + (b[i] - v) * t)).join(',')})`;
  }

  // How good each value is, 0 best to 1 worst, by rank.
  function goodness(values, mode) {
    const r = Analysis.ranks(values.map((v) => (mode === 'max' ? -v : v)));
    return r.map((x) => (values.length > 1 ? x / (values.length - 1) : 0));
  }

  function axisLabel(axis, a) {
    if (axis.categorical) return axis.labels[Math.round(a)] ?? '';
    return Svg.number(axis.log ? 10 ** a : a);
  }

  // One vertical axis per parameter and one for the objective; a line per
  // trial, coloured by how good its last value is (rank), greyed trials
  // drawn first and lighter.
  function parallel(container, curves, space) {
    const rows = lastValues(curves).filter((r) => Number.isFinite(r.value));
    const axes = Analysis.specsOf(space, curves.trials)
                     .map((s) => Analysis.axisOf(s, curves.trials));
    drawn.parallel = {axes: axes.map((a) => ({name: a.name, log: a.log})), lines: 0};
    if (rows.length === 0 || axes.length === 0)
      return Charts.empty(container, 'No reports yet.');
    const {ctx, width, height} = canvas(container, 'parallel-chart', 300);
    const objective = {name: curves.shown || curves.metric, log: false,
                       categorical: false, ...minMax(rows.map((r) => r.value)),
                       at: null};
    const all = [...axes, objective];
    const left = 60, right = width - 60, top = 36, bottom = height - 24;
    const xOf = (i) => left + ((right - left) * i) / (all.length - 1 || 1);
    const yOf = (axis, a) =>
        bottom - ((a - axis.lo) / (axis.hi - axis.lo || 1)) * (bottom - top);
    // One path per colour (grey, then 16 shades from worst to best), so
    // 50,000 trials are 17 strokes.
    const kShades = 16;
    const good = goodness(rows.map((r) => r.value), curves.mode);
    const paths = Array.from({length: kShades + 1}, () => new Path2D());
    rows.forEach((r, i) => {
      const greyed = r.trial.status === 'stopped' || r.trial.status === 'failed';
      const p = paths[greyed ? 0 : kShades - Math.min(kShades - 1, Math.floor(good[i] * kShades))];
      all.forEach((axis, k) => {
        const a = axis.at ? axis.at(r.trial) : r.value;
        const y = a === null ? bottom : yOf(axis, a);
        k === 0 ? p.moveTo(xOf(k), y) : p.lineTo(xOf(k), y);
      });
    });
    ctx.lineWidth = 1;
    paths.forEach((p, b) => {
      ctx.strokeStyle = b === 0 ? 'rgba(185,190,199,0.35)' : shade((kShades - b) / (kShades - 1));
      ctx.stroke(p);
    });
    ctx.fillStyle = '#1d2330';
    ctx.strokeStyle = '#6b7280';
    all.forEach((axis, k) => {
      const x = xOf(k);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
      ctx.stroke();
      ctx.textAlign = 'center';
      ctx.fillText(axis.name + (axis.log ? ' (log)' : ''), x, 12);
      ctx.fillText(axisLabel(axis, axis.lo), x, bottom + 14);
      ctx.fillText(axisLabel(axis, axis.hi), x, top - 6);
    });
    drawn.parallel.lines = rows.length;
  }

  function minMax(values) {
    let lo = Infinity, hi = -Infinity;
    for (const v of values) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return {lo, hi};
  }

  // The importance bars: one row per parameter.
  function importance(container, scores) {
    container.textContent = '';
    drawn.importance = scores.map((s) => ({name: s.name, score: s.score, trials: s.trials}));
    if (scores.length === 0) return Charts.empty(container, 'No parameters.');
    const table = document.createElement('table');
    table.id = 'importance-table';
    table.className = 'bars';
    for (const s of scores) {
      const tr = table.insertRow();
      tr.dataset.param = s.name;
      tr.insertCell().textContent = s.name;
      const bar = tr.insertCell();
      const fill = document.createElement('span');
      fill.className = 'bar';
      fill.style.width = `${Math.round((s.score ?? 0) * 100)}%`;
      bar.appendChild(fill);
      tr.insertCell().textContent = s.score === null ?
          'too few trials' :
          `${s.score.toFixed(2)} (${s.trials} trial-rungs)`;
    }
    container.appendChild(table);
  }

  // Two parameters on a grid of cells, each coloured by the mean value of
  // the trials in it at the deepest rung that 10 or more trials reached.
  function contour(container, curves, space, names) {
    const specs = Analysis.specsOf(space, curves.trials);
    const [sx, sy] = names.map((n) => specs.find((s) => s.name === n));
    drawn.contour = {x: names[0], y: names[1], cells: 0, trials: 0};
    if (!sx || !sy || sx === sy) return Charts.empty(container, 'Choose two parameters.');
    const groups = Analysis.rungs(curves).filter((g) => g.rows.length >= 10);
    const group = groups.length ? groups[groups.length - 1] : Analysis.rungs(curves)[0];
    if (!group) return Charts.empty(container, 'No reports yet.');
    const ax = Analysis.axisOf(sx, curves.trials), ay = Analysis.axisOf(sy, curves.trials);
    const n = 16;
    const cellOf = (axis, a) => (axis.categorical ?
        a : Math.min(n - 1, Math.floor(((a - axis.lo) / (axis.hi - axis.lo || 1)) * n)));
    const nx = ax.categorical ? ax.labels.length : n, ny = ay.categorical ? ay.labels.length : n;
    const cells = new Map();
    for (const r of group.rows) {
      const a = ax.at(r.trial), b = ay.at(r.trial);
      if (a === null || b === null) continue;
      const key = `${cellOf(ax, a)},${cellOf(ay, b)}`;
      const c = cells.get(key) || {sum: 0, n: 0};
      c.sum += r.value;
      c.n++;
      cells.set(key, c);
    }
    const {ctx, width, height} = canvas(container, 'contour-chart', 320);
    const left = 64, right = width - 16, top = 12, bottom = height - 40;
    const means = [...cells.values()].map((c) => c.sum / c.n);
    const good = goodness(means, curves.mode);
    [...cells.keys()].forEach((key, i) => {
      const [cx, cy] = key.split(',').map(Number);
      ctx.fillStyle = shade(good[i]);
      const w = (right - left) / nx, h = (bottom - top) / ny;
      ctx.fillRect(left + cx * w, bottom - (cy + 1) * h, w + 0.5, h + 0.5);
    });
    ctx.fillStyle = '#1d2330';
    ctx.textAlign = 'center';
    ctx.fillText(`${ax.name}${ax.log ? ' (log)' : ''}: ${axisLabel(ax, ax.lo)} to ${
                     axisLabel(ax, ax.hi)}`, (left + right) / 2, height - 12);
    ctx.save();
    ctx.translate(14, (top + bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText(`${ay.name}${ay.log ? ' (log)' : ''}: ${axisLabel(ay, ay.lo)} to ${
                     axisLabel(ay, ay.hi)}`, 0, 0);
    ctx.restore();
    drawn.contour = {
      x: sx.name, y: sy.name, cells: cells.size, milestone: group.milestone,
      trials: [...cells.values()].reduce((a, c) => a + c.n, 0)
    };
  }

  return {paramsVsObjective, parallel, importance, contour, categoryLayout};
})();
