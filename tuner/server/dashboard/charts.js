// The dashboard's plots drawn with uPlot (vendor/, canvas): learning curves
// with the rungs marked, best-so-far over time, parameter vs objective.
// Curves and dots go into a few Path2D objects (one per colour), so 50,000
// trials cost 15 uPlot series, not 50,000. What each plot was handed is
// kept in Charts.drawn for the browser test (pixels are not asserted).
'use strict';

const Charts = (() => {
  const kGrey = '#b9bec7';
  const kHues = 12;  // live trials are coloured by id modulo this
  const kVerdictColour =
      {stop: '#dc2626', promote: '#16a34a', continue: '#16a34a', pause: '#d97706'};
  const drawn = {};

  function empty(container, text) {
    destroy(container);
    container.textContent = '';
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = text;
    container.appendChild(p);
  }

  function destroy(container) {
    if (container.plot) container.plot.destroy();
    container.plot = null;
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

  // A stroke of many polylines: `lines` is a list of [[x, y], ...]. Points
  // a log axis cannot show (y <= 0) break the line.
  function linesPath(lines, logY) {
    return (u) => {
      const p = new Path2D();
      for (const line of lines) {
        let pen = false;
        for (const [x, y] of line) {
          if (logY && !(y > 0)) {
            pen = false;
            continue;
          }
          const px = u.valToPos(x, 'x', true), py = u.valToPos(y, 'y', true);
          if (pen) {
            p.lineTo(px, py);
          } else if (line.length === 1) {
            p.moveTo(px + 2, py);
            p.arc(px, py, 2, 0, 2 * Math.PI);
          } else {
            p.moveTo(px, py);
          }
          pen = true;
        }
      }
      return {stroke: p, fill: null, clip: null, flags: 0};
    };
  }

  // Filled dots at [x, y] points.
  function dotsPath(points, radius, logX, logY) {
    return (u) => {
      const p = new Path2D();
      const r = radius * devicePixelRatio;
      for (const [x, y] of points) {
        if ((logX && !(x > 0)) || (logY && !(y > 0))) continue;
        const px = u.valToPos(x, 'x', true), py = u.valToPos(y, 'y', true);
        p.moveTo(px + r, py);
        p.arc(px, py, r, 0, 2 * Math.PI);
      }
      return {stroke: null, fill: p, clip: null, flags: 0};
    };
  }

  // A padded [lo, hi] of finite values (positive ones on a log axis).
  function range(values, pad, log) {
    const v = values.filter((x) => Number.isFinite(x) && (!log || x > 0));
    if (v.length === 0) return log ? [1, 10] : [0, 1];
    let lo = v[0], hi = v[0];
    for (const x of v) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    if (log) return lo === hi ? [lo / 2, hi * 2] : [lo / 1.1, hi * 1.1];
    const width = hi - lo || Math.abs(lo) || 1;
    return [lo - width * pad, hi + width * pad];
  }

  // Ticks at the powers of ten in [min, max] (uPlot's own log ticks put
  // one at every 1..9 times each).
  function decades(u, axis, min, max) {
    const out = [];
    for (let e = Math.ceil(Math.log10(min)); e <= Math.floor(Math.log10(max)); e++)
      out.push(10 ** e);
    return out.length ? out : [min, max];
  }

  // A uPlot in `container` (replacing what was there). `spec`: {id, height,
  // x: {range, log, label, values, splits, rotate (degrees), size (px)},
  // y: {...}, series: [{label, stroke, fill, width, dash, paths}], draw:
  // hook after the series}.
  function plot(container, spec) {
    destroy(container);
    container.textContent = '';
    const box = document.createElement('div');
    box.id = spec.id;
    box.className = 'chart';
    container.appendChild(box);
    const axis = (a) => Object.assign({
      label: a.label,
      values: a.values || ((u, splits) => splits.map((v) => (v == null ? '' : Svg.number(v)))),
      stroke: '#6b7280',
      grid: {stroke: '#e3e6eb', width: 1},
    }, a.splits ? {splits: a.splits} : a.log ? {splits: decades} : {},
    a.rotate ? {rotate: a.rotate} : {}, a.size ? {size: a.size} : {});
    const scale = (a) => ({
      time: false,
      distr: a.log ? 3 : 1,
      log: 10,
      range: () => a.range,
    });
    const opts = {
      width: spec.width || Math.max(280, container.clientWidth - 4),
      height: spec.height || 300,
      legend: {show: false},
      cursor: {show: false},
      select: {show: false},
      scales: {x: scale(spec.x), y: scale(spec.y)},
      axes: [axis(spec.x), Object.assign(axis(spec.y), {size: 56})],
      series: [{}].concat(spec.series.map((s) => ({
        label: s.label,
        stroke: s.stroke,
        fill: s.fill,
        width: s.width ?? 1.4,
        dash: s.dash,
        points: {show: false},
        paths: s.paths,
      }))),
      hooks: spec.draw ? {draw: [spec.draw]} : {},
    };
    const data = [spec.x.range].concat(spec.series.map(() => spec.y.range));
    container.plot = new uPlot(opts, data, box);
    return container.plot;
  }

  // Dashed vertical lines at the rungs, named by milestone.
  function rungHook(milestones) {
    return (u) => {
      const ctx = u.ctx, top = u.bbox.top, bottom = top + u.bbox.height;
      ctx.save();
      ctx.strokeStyle = '#6b7280';
      ctx.fillStyle = '#4b5563';
      ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
      ctx.font = `${11 * devicePixelRatio}px sans-serif`;
      let labelEnd = -Infinity;  // labels that would overlap are left out
      for (const m of milestones) {
        const x = u.valToPos(m, 'x', true);
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, bottom);
        ctx.stroke();
        const text = `rung ${Svg.number(m)}`;
        if (x + 3 < labelEnd) continue;
        ctx.fillText(text, x + 3, top + 11 * devicePixelRatio);
        labelEnd = x + 3 + ctx.measureText(text).width + 4 * devicePixelRatio;
      }
      ctx.restore();
    };
  }

  // The colour group of a trial's curve.
  function groupOf(t) {
    if (t.status === 'stopped' || t.status === 'failed') return t.status;
    return `hue-${t.id % kHues}`;
  }

  function curveSeries(groups, logY) {
    const series = [];
    for (const [key, lines] of groups) {
      const greyed = key === 'stopped' || key === 'failed';
      series.push({
        label: key,
        stroke: greyed ? kGrey : Svg.hue(Number(key.slice(4))),
        width: greyed ? 1.1 : 1.6,
        dash: key === 'failed' ? [3, 2] : undefined,
        paths: linesPath(lines.map((t) => t.points), logY),
      });
    }
    return series;
  }

  // curves: {metric, shown, time_attr, trials: [{id, status, points}],
  // decisions}; opts: {logY}.
  function learningCurves(container, curves, opts) {
    const logY = !!(opts && opts.logY);
    const trials = curves.trials.filter((t) => t.points.length > 0);
    const shown = curves.shown || curves.metric;
    if (trials.length === 0) {
      drawn.curves = {metric: shown, logY, trials: [], series: []};
      return empty(container, 'No reports yet.');
    }
    const milestones =
        [...new Set(curves.decisions.map((d) => d.milestone))].sort(
            (a, b) => a - b);
    // Greyed trials first, so the live ones are drawn over them.
    const groups = new Map([['stopped', []], ['failed', []]]);
    const xs = [...milestones, 0], ys = [];
    for (const t of trials) {
      const key = groupOf(t);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(t);
      for (const p of t.points) {
        xs.push(p[0]);
        ys.push(p[1]);
      }
    }
    const series = curveSeries(groups, logY);
    const dots = decisionDots(curves, trials, shown);
    for (const [verdict, points] of dots) {
      series.push({
        label: `decision-${verdict}`,
        stroke: null,
        fill: kVerdictColour[verdict] || '#6b7280',
        paths: dotsPath(points, 3.2, false, logY),
      });
    }
    plot(container, {
      id: 'curves-chart',
      x: {range: range(xs, 0.02), label: curves.time_attr},
      y: {range: range(ys, 0.05, logY), log: logY, label: shown},
      series,
      draw: rungHook(milestones),
    });
    drawn.curves = {
      metric: shown,
      logY,
      milestones,
      trials: trials.map((t) => ({id: t.id, status: t.status, points: t.points.length,
                                  last_seq: t.points[t.points.length - 1][3]})),
      series: series.map((s) => ({label: s.label, stroke: s.stroke, fill: s.fill})),
      groups: Object.fromEntries([...groups].map(([k, v]) => [k, v.map((t) => t.id)])),
      decisions: Object.fromEntries([...dots].map(([k, v]) => [k, v.length])),
    };
  }

  // Rung decisions as dots at each trial's value there, by verdict. Only
  // for the objective: other metrics were not what the scheduler judged.
  function decisionDots(curves, trials, shown) {
    const dots = new Map();
    if (shown !== curves.metric) return dots;
    const byId = new Map(trials.map((t) => [t.id, t]));
    for (const d of curves.decisions) {
      const t = byId.get(d.trial);
      const p = t && valueAt(t.points, d.milestone);
      if (!p) continue;
      if (!dots.has(d.verdict)) dots.set(d.verdict, []);
      dots.get(d.verdict).push([d.milestone, p[1]]);
    }
    return dots;
  }

  // The trial `tuner best` names after each report, by its default rule
  // (--by last): of every trial's latest report, those at the largest
  // time_attr first, then the better value, then the lower id. Returns
  // [[reported_at, value, trial], ...], one each time that changes.
  function bestByLast(curves) {
    const better = curves.mode === 'max' ? (a, b) => a > b : (a, b) => a < b;
    // a, b: [trial, time, value]; whether a ranks before b.
    const ahead = (a, b) => a[1] > b[1] || (a[1] === b[1] && (better(a[2], b[2]) ||
                                                             (a[2] === b[2] && a[0] < b[0])));
    const events = [];
    for (const t of curves.trials) {
      for (const p of t.points) if (Number.isFinite(p[1])) events.push([p[2], p[0], p[1], t.id]);
    }
    events.sort((a, b) => a[0] - b[0]);
    const latest = new Map();  // trial -> [trial, time, value]
    const out = [];
    let best = null;
    for (const [at, time, value, trial] of events) {
      const mine = [trial, time, value];
      latest.set(trial, mine);
      if (best === null || ahead(mine, best)) {
        best = mine;
      } else if (best[0] === trial) {  // the leader fell back: rank again
        best = mine;
        for (const other of latest.values()) if (ahead(other, best)) best = other;
      }
      const last = out[out.length - 1];
      if (!last || last[1] !== best[2] || last[2] !== best[0]) out.push([at, best[2], best[0]]);
    }
    return out;
  }

  // Best so far against seconds since the first report: the value of the
  // trial bestByLast names, a step each time that changes.
  function bestSoFar(container, curves, now, opts) {
    const logY = !!(opts && opts.logY);
    const reports = bestByLast(curves);
    if (reports.length === 0) {
      drawn.best = {steps: []};
      return empty(container, 'No reports yet.');
    }
    const t0 = reports[0][0];
    const steps = reports.map(([at, value, trial]) => [at - t0, value, trial]);
    const end = Math.max(reports[reports.length - 1][0], now || 0) - t0;
    const line = steps.map((s) => [s[0], s[1]]);
    line.push([end, steps[steps.length - 1][1]]);
    plot(container, {
      id: 'best-chart',
      x: {
        range: [0, Math.max(end, 1e-3)],
        label: 'time since the first report',
        values: (u, splits) => splits.map((v) => (v == null ? '' : Svg.duration(v))),
      },
      y: {
        range: range(line.map((p) => p[1]), 0.05, logY),
        log: logY,
        label: `best ${curves.shown || curves.metric} (${curves.mode})`,
      },
      series: [
        {label: 'best', stroke: '#2563eb', width: 2, paths: stepsPath(line)},
        {label: 'steps', fill: '#2563eb', paths: dotsPath(steps, 3, false, logY)},
      ],
    });
    drawn.best = {steps: steps.map((s) => ({at: s[0], value: s[1], trial: s[2]}))};
  }

  // A staircase through [x, y] points.
  function stepsPath(points) {
    return (u) => {
      const p = new Path2D();
      let lastY = 0;
      points.forEach(([x, y], i) => {
        const px = u.valToPos(x, 'x', true), py = u.valToPos(y, 'y', true);
        if (i === 0) {
          p.moveTo(px, py);
        } else {
          p.lineTo(px, lastY);
          p.lineTo(px, py);
        }
        lastY = py;
      });
      return {stroke: p, fill: null, clip: null, flags: 0};
    };
  }

  return {
    learningCurves, bestSoFar, bestByLast, paramsText, valueAt, plot, linesPath, dotsPath, range,
    empty, destroy, drawn, kGrey
  };
})();
