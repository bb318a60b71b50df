// One experiment's page. Its data is read once in full, then only what
// changed (`?since=` the previous answer's cursor) and merged here, so a
// redraw of a 50,000-trial experiment fetches kilobytes, not megabytes.
'use strict';

const ExperimentPage = (() => {
  const {h} = Base;
  const encode = encodeURIComponent;
  const kStatusFill = {
    running: '#2563eb', paused: '#d97706', completed: '#16a34a',
    stopped: '#9ca3af', failed: '#dc2626', pending: '#6b7280'
  };
  const options = {logY: false, contour: []};
  let state = null;  // what was read of the experiment in view

  function fresh(name, metric) {
    return {
      name, metric, curvesCursor: null, leasesCursor: null, meta: null,
      metrics: [], trials: new Map(), decisions: new Map(), leases: new Map()
    };
  }

  function layout(name) {
    state = fresh(name, '');
    const panel = (id, title, wide, ...tools) =>
        h('section', {class: `panel${wide ? ' wide' : ''}`},
          h('div', {class: 'panel-head'}, h('h2', {}, title), ...tools),
          h('div', {id, class: 'plot-box'}));
    const logY = h('input', {type: 'checkbox', id: 'log-y'});
    logY.checked = options.logY;
    logY.addEventListener('change', () => {
      options.logY = logY.checked;
      render();
    });
    const metric = h('select', {id: 'metric-select'});
    metric.addEventListener('change', () => {
      state = fresh(name, metric.value);
      ExperimentPage.onChange();
    });
    const contourX = h('select', {id: 'contour-x'}), contourY = h('select', {id: 'contour-y'});
    for (const [i, select] of [contourX, contourY].entries()) {
      select.addEventListener('change', () => {
        options.contour[i] = select.value;
        render();
      });
    }
    const view = document.getElementById('view');
    view.textContent = '';
    view.append(
        h('p', {}, h('a', {href: '#/'}, '← all experiments')),
        h('h1', {}, name, ' ', h('span', {id: 'status'})), controls(name),
        h('dl', {id: 'summary', class: 'summary'}),
        h('div', {class: 'panels'},
          panel('curves', 'Learning curves (rungs dashed, stopped trials grey)', false,
                h('label', {}, 'metric ', metric), h('label', {}, logY, ' log y')),
          panel('best', 'Best so far, as tuner best ranks (below)'),
          panel('params', 'Parameters vs objective', true),
          panel('parallel', 'Parallel coordinates (colour: rank of the last value)', true),
          panel('importance', 'Parameter importance (per rung, docs/service.md)'),
          panel('contour', 'Two parameters at the deepest rung', false,
                h('label', {}, 'x ', contourX), h('label', {}, 'y ', contourY)),
          panel('timeline', 'Device timeline: which trial held which device when', true)),
        h('section', {id: 'trials-section', class: 'panel wide'}, h('h2', {}, 'Trials'),
          h('table', {id: 'trials', class: 'table'})));
  }

  // Stop (shown while the experiment runs: drawSummary), extend and
  // delete, for a user holding the token.
  function controls(name) {
    if (!Base.token) {
      return h('p', {class: 'hint', id: 'controls'},
               'Open the URL that tuner serve printed (with ?token=) to stop, ' +
                   'extend or delete this experiment.');
    }
    const base = `/api/experiments/${encode(name)}`;
    const result = h('span', {id: 'control-result'});
    const act = async (path, after) => {
      try {
        await Base.post(path);
        result.textContent = `${path.split('/').pop().split('?')[0]}: done`;
        if (after) after();
      } catch (e) {
        result.textContent = e.message;
      }
    };
    const button = (id, text, onClick) => {
      const b = h('button', {id, type: 'button'}, text);
      b.addEventListener('click', onClick);
      return b;
    };
    return h('div', {class: 'controls', id: 'controls'},
             Object.assign(button('stop-button', 'Stop', () => act(`${base}/stop`)),
                           {hidden: true}),
             button('extend-button', 'Extend…', () => {
               const n = window.prompt('How many more trials?', '10');
               if (n === null) return;
               if (!/^[1-9][0-9]{0,6}$/.test(n.trim())) {
                 result.textContent = 'extend: a number of trials (1 or more)';
                 return;
               }
               act(`${base}/extend?trials=${n.trim()}`);
             }),
             button('delete-button', 'Delete…', () => {
               if (!window.confirm(`Delete the experiment ${name}, its trials and ` +
                                   'their reports? This cannot be undone.')) {
                 return;
               }
               act(`${base}/delete`, () => { location.hash = '#/'; });
             }),
             result);
  }

  // The rows of a columnar answer (an array per field; `params`, if there,
  // an object of arrays) as objects, params nested as the API's trial has.
  function rowsOf(columns) {
    const keys = Object.keys(columns).filter((k) => k !== 'params');
    const params = columns.params || {};
    const names = Object.keys(params);
    const n = keys.length ? columns[keys[0]].length : 0;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const row = {};
      for (const k of keys) row[k] = columns[k][i];
      if (columns.params) {
        row.params = {};
        for (const p of names) if (params[p][i] !== null) row.params[p] = params[p][i];
      }
      out[i] = row;
    }
    return out;
  }

  // Merges an answer of /curves into the state: new trial rows replace
  // old ones (keeping their points), new points (by seq) are appended to
  // their trial's [time, value, reported_at, seq] list. The first answer
  // is the overview (a few points a trial: docs/service.md); the later
  // ones bring every new report.
  function mergeCurves(s, curves) {
    for (const t of rowsOf(curves.trials)) {
      const old = s.trials.get(t.id);
      t.points = old ? old.points : [];
      s.trials.set(t.id, t);
    }
    const c = curves.points;
    for (let i = 0; i < c.trial.length; i++) {
      const t = s.trials.get(c.trial[i]);
      if (!t) continue;
      const last = t.points.length ? t.points[t.points.length - 1][3] : 0;
      if (c.seq[i] > last) t.points.push([c.time[i], c.value[i], c.reported_at[i], c.seq[i]]);
    }
    for (const d of rowsOf(curves.decisions))
      s.decisions.set(`${d.trial}:${d.rung}:${d.milestone}:${d.verdict}`, d);
    if (curves.metrics) s.metrics = curves.metrics;
    s.meta = {metric: curves.metric, shown: curves.shown, mode: curves.mode,
              time_attr: curves.time_attr};
    s.curvesCursor = curves.cursor;
  }

  async function draw(name) {
    const s = state;
    const base = `/api/experiments/${encode(name)}`;
    const query = new URLSearchParams();
    if (s.curvesCursor !== null) query.set('since', s.curvesCursor);
    if (s.metric) query.set('metric', s.metric);
    const [e, curves, leases] = await Promise.all([
      Base.getJson(base), Base.getJson(`${base}/curves?${query}`),
      Base.getJson(`${base}/leases?since=${s.leasesCursor ?? 0}`)
    ]);
    if (state !== s) return;  // the metric changed meanwhile
    mergeCurves(s, curves);
    for (const l of leases.leases) s.leases.set(l.id, l);
    s.leasesCursor = leases.cursor;
    s.info = e;
    render();
  }

  function curvesOf(s) {
    return Object.assign({}, s.meta, {
      trials: [...s.trials.values()], decisions: [...s.decisions.values()]
    });
  }

  // Draws everything from the state (no reads).
  function render() {
    const s = state;
    if (!s || !s.info) return;
    const e = s.info, curves = curvesOf(s), now = Date.now() / 1000;
    drawSummary(e);
    fillMetrics(s);
    const byId = (id) => document.getElementById(id);
    const ms = window.tunerTest.renderMs = {};
    const timed = (name, draw) => {
      const start = performance.now();
      const result = draw();
      ms[name] = Math.round(performance.now() - start);
      return result;
    };
    timed('curves', () => Charts.learningCurves(byId('curves'), curves, options));
    timed('best', () => Charts.bestSoFar(
        byId('best'), curves, e.status === 'running' ? now : 0, options));
    timed('params', () => Views.paramsVsObjective(byId('params'), curves, e.space));
    timed('parallel', () => Views.parallel(byId('parallel'), curves, e.space));
    const scores = timed('importance', () => Analysis.importance(curves, e.space));
    Views.importance(byId('importance'), scores);
    fillContour(scores);
    timed('contour', () => Views.contour(byId('contour'), curves, e.space, options.contour));
    timed('timeline', () => drawTimeline(s, now));
    timed('table', drawTable);
  }

  function drawTable() {
    TrialsTable.draw(document.getElementById('trials-section'),
                     [...state.trials.values()], h, state.name, drawTable);
  }

  function fillMetrics(s) {
    const select = document.getElementById('metric-select');
    const names = [s.meta.metric, ...s.metrics.filter(
        (m) => m !== s.meta.metric && m !== s.meta.time_attr)];
    if (select.options.length === names.length) return;
    select.textContent = '';
    for (const m of names) select.append(h('option', {value: m === s.meta.metric ? '' : m}, m));
    select.value = s.metric;
  }

  // The contour's choices: every parameter, the two most important first.
  function fillContour(scores) {
    const names = scores.map((s) => s.name);
    if (options.contour.length < 2 || !names.includes(options.contour[0])) {
      options.contour = names.slice(0, 2);
    }
    ['contour-x', 'contour-y'].forEach((id, i) => {
      const select = document.getElementById(id);
      if (select.options.length !== names.length) {
        select.textContent = '';
        for (const n of names) select.append(h('option', {value: n}, n));
      }
      select.value = options.contour[i] ?? '';
    });
  }

  function drawTimeline(s, now) {
    const leases = [...s.leases.values()];
    const kind = leases.length ? leases[0].kind : 'cpu';
    const container = document.getElementById('timeline');
    Timeline.timeline(container, leases, {
      id: 'timeline-chart',
      now,
      laneName: Base.kLaneNames[kind] || kind,
      style: (l) => {
        const status = (s.trials.get(l.trial) || {}).status || 'running';
        return {
          cls: status, fill: kStatusFill[status] || '#6b7280', label: String(l.trial),
          text: `trial ${l.trial} (${status}, attempt ${l.attempt})`
        };
      },
    });
    if (leases.length) {
      Timeline.legend(container, Object.entries(kStatusFill).map(
          ([status, fill]) => ({fill, text: `trial ${status}`})));
    }
  }

  // The summary. Its best and the best-so-far chart follow one rule,
  // `tuner best`'s default (--by last): the last value of the trial that
  // trained longest, the better value first among equals.
  function drawSummary(e) {
    const status = document.getElementById('status');
    status.textContent = '';
    status.append(Base.badge(e.status));
    const stop = document.getElementById('stop-button');
    if (stop) stop.hidden = e.status !== 'running';
    const c = e.counts;
    const items = [
      ['metric', `${e.metric} (${e.mode}), by ${e.time_attr}` + (e.max_t ? ` up to ${e.max_t}` : '')],
      ['trials', `${c.running} running, ${c.paused} paused, ${c.completed} ` +
                     `completed, ${c.stopped} stopped, ${c.failed} failed`],
      ['best', e.best && e.best.trial ? `${Base.number(e.best.value)} at ${e.time_attr} ` +
                   `${Base.number(e.best.time)} (trial ${e.best.trial}: ` +
                   `${Charts.paramsText(e.best.params)})` : '–'],
      ['best means', `as tuner best ranks (--by last): the last ${e.metric} of the ` +
                         `trials that trained longest, the ${e.mode === 'max' ? 'highest' :
                         'lowest'} first; best so far is that, at each report`],
      ['devices', e.priority ? `${e.held_devices} held, priority ${e.priority}` : 'none held'],
      ['started', Base.when(e.created_at)],
      ['updated', Base.when(e.updated_at)],
      ...(e.reason ? [['failed because', e.reason]] : []),
    ];
    const dl = document.getElementById('summary');
    dl.textContent = '';
    for (const [k, v] of items) dl.append(h('dt', {}, k), h('dd', {}, v));
  }

  // onChange: set by app.js, redraws soon (a new metric needs a full read).
  return {layout, draw, render, onChange: () => {}};
})();
