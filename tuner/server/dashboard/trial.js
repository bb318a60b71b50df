// One trial's page (#/experiments/NAME/trials/ID): its row, its whole
// curve (every report, read a page at a time from /api/trials/ID) in any
// metric it reported, and the tails of its stdout and stderr (the log
// endpoint needs the token: without it the page says how to get it).
'use strict';

const TrialPage = (() => {
  const {h} = Base;
  const encode = encodeURIComponent;
  const kMaxPages = 50;    // 500,000 reports: the API's pages are 10,000
  const kTailLines = 200;  // of each log
  let state = null;

  function layout(name, id) {
    state = {name, id, metric: ''};
    const metric = h('select', {id: 'trial-metric'});
    metric.addEventListener('change', () => {
      state.metric = metric.value;
      render();
    });
    const logPanel = (stream) =>
        h('section', {class: 'panel wide'}, h('h2', {}, `${stream} (last ${kTailLines} lines)`),
          h('pre', {id: `trial-${stream}`, class: 'log'}));
    const view = document.getElementById('view');
    view.textContent = '';
    view.append(
        h('p', {}, h('a', {href: `#/experiments/${encode(name)}`}, `← ${name}`)),
        h('h1', {}, `Trial ${id} `, h('span', {id: 'status'})),
        h('dl', {id: 'trial-summary', class: 'summary'}),
        h('section', {class: 'panel wide'},
          h('div', {class: 'panel-head'}, h('h2', {}, 'Every report'),
            h('label', {}, 'metric ', metric)),
          h('div', {id: 'trial-curve', class: 'plot-box'})),
        logPanel('stdout'), logPanel('stderr'));
  }

  // Every report of the trial, a page at a time.
  async function readTrial(id) {
    const base = `/api/trials/${id}`;
    const first = await Base.getJson(`${base}?after=0`);
    let next = first.next_after;
    for (let page = 1; next !== null && page < kMaxPages; page++) {
      const more = await Base.getJson(`${base}?after=${next}`);
      first.reports.push(...more.reports);
      next = more.next_after;
    }
    first.complete = next === null;
    return first;
  }

  // The log's tail as text, or why there is none.
  async function readLog(id, stream) {
    if (!Base.token) {
      return 'Open the URL that tuner serve printed (with ?token=) to see the logs.';
    }
    try {
      return await Base.getText(`/api/trials/${id}/log?stream=${stream}&tail=${kTailLines}`);
    } catch (e) {
      return e.message;
    }
  }

  async function draw(name, id) {
    const s = state;
    const [trial, experiment, stdout, stderr] = await Promise.all([
      readTrial(id), Base.getJson(`/api/experiments/${encode(name)}`),
      readLog(id, 'stdout'), readLog(id, 'stderr')
    ]);
    if (state !== s) return;
    Object.assign(s, {trial, experiment, stdout, stderr});
    render();
  }

  function metricsOf(trial) {
    const names = new Set();
    for (const r of trial.reports) for (const k of Object.keys(r.metrics)) names.add(k);
    return [...names];
  }

  function render() {
    const s = state;
    if (!s || !s.trial) return;
    const t = s.trial, e = s.experiment;
    const status = document.getElementById('status');
    status.textContent = '';
    status.append(Base.badge(t.status));
    drawSummary(t, e);
    fillMetrics(t, e);
    const points = drawCurve(t, e, s.metric);
    document.getElementById('trial-stdout').textContent = s.stdout;
    document.getElementById('trial-stderr').textContent = s.stderr;
    Charts.drawn.trial = {
      id: t.id, reports: t.reports.length, complete: t.complete,
      metric: s.metric || e.metric, points,
      stdout: s.stdout.length, stderr: s.stderr.length
    };
  }

  function drawSummary(t, e) {
    const items = [
      ['experiment', e.name],
      ['params', Charts.paramsText(t.params)],
      [`last ${e.metric}`, `${Base.number(t.last_value)} at ${e.time_attr} ` +
                               `${Base.number(t.last_time)} (best ${Base.number(t.best_value)})`],
      ['attempts', String(t.attempts)],
      ['started', Base.when(t.start)],
      ['ended', t.status === 'running' ? 'running' : Base.when(t.end)],
      ['duration', t.duration === null ? '–' : Svg.duration(t.duration) +
                       (t.status === 'running' ? ' so far' : '')],
      ...(t.reason ? [['reason', t.reason]] : []),
    ];
    const dl = document.getElementById('trial-summary');
    dl.textContent = '';
    for (const [k, v] of items) dl.append(h('dt', {}, k), h('dd', {}, v));
  }

  function fillMetrics(t, e) {
    const select = document.getElementById('trial-metric');
    const names = [e.metric, ...metricsOf(t).filter(
        (m) => m !== e.metric && m !== e.time_attr)];
    if (select.options.length === names.length) return;
    select.textContent = '';
    for (const m of names) select.append(h('option', {value: m === e.metric ? '' : m}, m));
    select.value = state.metric;
  }

  // Draws the curve of `metric` (the objective if empty); returns its
  // number of points.
  function drawCurve(t, e, metric) {
    const shown = metric || e.metric;
    const points = [];
    for (const r of t.reports) {
      const v = metric ? r.metrics[metric] : r.value;
      if (r.time !== null && typeof v === 'number') points.push([r.time, v]);
    }
    const container = document.getElementById('trial-curve');
    if (points.length === 0) {
      Charts.empty(container, `No report of ${shown}.`);
      return 0;
    }
    Charts.plot(container, {
      id: 'trial-chart',
      x: {range: Charts.range(points.map((p) => p[0]), 0.02), label: e.time_attr},
      y: {range: Charts.range(points.map((p) => p[1]), 0.05), label: shown},
      series: [
        {label: 'curve', stroke: '#2563eb', width: 1.6,
         paths: Charts.linesPath([points], false)},
        {label: 'reports', fill: '#2563eb', paths: Charts.dotsPath(points, 2.5, false)},
      ],
    });
    return points.length;
  }

  return {layout, draw, render};
})();
