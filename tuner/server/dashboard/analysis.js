// What the parameter views compute from the curves, with no drawing:
// each parameter's axis, the trials compared at each rung, and parameter
// importance (docs/service.md, "Parameter importance", says the method).
'use strict';

const Analysis = (() => {
  // A parameter's axis: numbers (log10 when the space says log) or
  // categories (their index). `spec` comes from the experiment's space; an
  // empty space falls back to what the trials carry.
  function axisOf(spec, trials) {
    const values = [];
    for (const t of trials) {
      if (t.params && spec.name in t.params) values.push(t.params[spec.name]);
    }
    const numeric = values.length > 0 &&
        values.every((v) => typeof v === 'number') && !spec.values;
    if (numeric) {
      // Without a stored space (spec.log undefined), positive values over
      // more than three decades are taken as log-scaled.
      const positive = values.every((v) => v > 0);
      const log = positive && (spec.log === undefined ?
          Math.max(...values) > 1000 * Math.min(...values) : !!spec.log);
      const f = log ? Math.log10 : (v) => v;
      let lo = spec.low ?? Math.min(...values), hi = spec.high ?? Math.max(...values);
      return {
        name: spec.name, log, categorical: false, lo: f(lo), hi: f(hi),
        raw: [lo, hi],
        at: (t) => (t.params && typeof t.params[spec.name] === 'number' ?
                        f(t.params[spec.name]) :
                        null),
      };
    }
    const labels = spec.values ? spec.values.map(String) :
                                 [...new Set(values.map(String))].sort();
    const index = new Map(labels.map((l, i) => [l, i]));
    return {
      name: spec.name, log: false, categorical: true, labels,
      lo: 0, hi: Math.max(1, labels.length - 1),
      at: (t) => (t.params && spec.name in t.params ?
                      index.get(String(t.params[spec.name])) ?? null :
                      null),
    };
  }

  function specsOf(space, trials) {
    if (space && space.length) return space;
    const first = trials.find((t) => t.params);
    return first ? Object.keys(first.params).map((name) => ({name})) : [];
  }

  // The trials the scheduler compared at each rung: those with a decision
  // at its milestone, valued by their last report at or before it. With no
  // decisions (fifo), one group: the completed trials' last values (every
  // trial's, when none completed).
  function rungs(curves) {
    const trials = new Map(curves.trials.map((t) => [t.id, t]));
    const byMilestone = new Map();
    for (const d of curves.decisions) {
      const t = trials.get(d.trial);
      const p = t && Charts.valueAt(t.points, d.milestone);
      if (!p || !Number.isFinite(p[1])) continue;
      if (!byMilestone.has(d.milestone)) byMilestone.set(d.milestone, new Map());
      byMilestone.get(d.milestone).set(d.trial, {trial: t, value: p[1]});
    }
    const out = [...byMilestone]
                    .sort((a, b) => a[0] - b[0])
                    .map(([milestone, rows]) => ({milestone, rows: [...rows.values()]}));
    if (out.length > 0) return out;
    const reported = curves.trials.filter((t) => t.points.length > 0);
    const done = reported.filter((t) => t.status === 'completed');
    const rows = (done.length ? done : reported)
                     .map((t) => ({trial: t, value: t.points[t.points.length - 1][1]}))
                     .filter((r) => Number.isFinite(r.value));
    return rows.length ? [{milestone: null, rows}] : [];
  }

  // Ranks 0..n-1 of `values`, ties sharing their mean rank.
  function ranks(values) {
    const order = values.map((v, i) => i).sort((a, b) => values[a] - values[b]);
    const out = new Array(values.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && values[order[j + 1]] === values[order[i]]) j++;
      for (let k = i; k <= j; k++) out[order[k]] = (i + j) / 2;
      i = j + 1;
    }
    return out;
  }

  // Bins of an axis's values: one per category, else `count` quantile bins.
  function bins(axis, xs, count) {
    if (axis.categorical) return xs;
    const sorted = [...xs].sort((a, b) => a - b);
    const edges = [];
    for (let b = 1; b < count; b++)
      edges.push(sorted[Math.floor((b * sorted.length) / count)]);
    return xs.map((x) => {
      let b = 0;
      while (b < edges.length && x >= edges[b]) b++;
      return b;
    });
  }

  // The adjusted share of the ranks' variance that the bins explain
  // (epsilon squared), 0 when it is below chance; null when too few rows.
  function explained(ys, groups) {
    const n = ys.length;
    const mean = ys.reduce((a, b) => a + b, 0) / n;
    const sums = new Map();
    for (let i = 0; i < n; i++) {
      const s = sums.get(groups[i]) || {n: 0, sum: 0};
      s.n++;
      s.sum += ys[i];
      sums.set(groups[i], s);
    }
    const k = sums.size;
    if (k < 2 || n <= k) return null;
    let between = 0, total = 0;
    for (const s of sums.values()) between += s.n * (s.sum / s.n - mean) ** 2;
    for (const y of ys) total += (y - mean) ** 2;
    if (total === 0) return null;
    const eta2 = between / total;
    return Math.max(0, 1 - ((1 - eta2) * (n - 1)) / (n - k));
  }

  // Per parameter: its score at each rung with at least 10 trials,
  // combined over rungs weighted by their trial count. Sorted, best first.
  function importance(curves, space) {
    const groups = rungs(curves);
    const specs = specsOf(space, curves.trials);
    const out = [];
    for (const spec of specs) {
      const axis = axisOf(spec, curves.trials);
      let weighted = 0, weight = 0;
      for (const g of groups) {
        const rows = g.rows.filter((r) => axis.at(r.trial) !== null);
        if (rows.length < 10) continue;
        const xs = rows.map((r) => axis.at(r.trial));
        const count = Math.min(10, Math.floor(rows.length / 5));
        const score = explained(ranks(rows.map((r) => r.value)), bins(axis, xs, count));
        if (score === null) continue;
        weighted += score * rows.length;
        weight += rows.length;
      }
      out.push({name: spec.name, score: weight ? weighted / weight : null, trials: weight});
    }
    return out.sort((a, b) => (b.score ?? -1) - (a.score ?? -1));
  }

  return {axisOf, specsOf, rungs, ranks, importance};
})();
