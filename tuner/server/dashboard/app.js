// The dashboard: the experiments list and one experiment's page, kept live
// through the service's event stream (GET /api/events). Everything it
// shows comes from the JSON API; it never writes.
'use strict';

(() => {
  const view = document.getElementById('view');
  const live = document.getElementById('live');
  const banner = document.getElementById('error');
  const kLaneNames = {habana: 'card', neuron: 'core', cuda: 'gpu', cpu: 'cpu'};
  const kMinRefreshMs = 1000;  // at most one redraw a second, however busy
  let page = null;             // what is drawn: {name} or {} for the list
  let lastDraw = 0;
  let timer = null;
  let drawing = null;

  // A small element builder; strings become text nodes (never HTML).
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== undefined && value !== null) node.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.appendChild(
          typeof child === 'string' || typeof child === 'number' ?
              document.createTextNode(String(child)) :
              child);
    }
    return node;
  }

  // The service's token: from the ?token= of the URL that `tuner serve`
  // printed, kept for this tab in sessionStorage and taken out of the
  // address bar. Sent as Authorization: Bearer (EventSource, which cannot
  // send headers, puts it in its query).
  const token = (() => {
    const url = new URL(window.location.href);
    const given = url.searchParams.get('token');
    if (given) {
      sessionStorage.setItem('tuner-token', given);
      url.searchParams.delete('token');
      history.replaceState(null, '', url.pathname + url.search + url.hash);
    }
    return sessionStorage.getItem('tuner-token') || '';
  })();

  async function getJson(path) {
    const headers = token ? {Authorization: `Bearer ${token}`} : {};
    const response = await fetch(path, {cache: 'no-store', headers});
    if (!response.ok) {
      let message = `${path}: HTTP ${response.status}`;
      try {
        message = (await response.json()).error || message;
      } catch (e) { /* not JSON: keep the status */
      }
      throw new Error(message);
    }
    return response.json();
  }

  const now = () => Date.now() / 1000;
  const encode = encodeURIComponent;
  const number = (v) => (typeof v === 'number' ? Svg.number(v) : '–');
  const when = (t) => (t ? new Date(t * 1000).toLocaleString() : '–');
  const badge = (status) => h('span', {class: `badge ${status}`}, status);

  function route() {
    const m = location.hash.match(/^#\/experiments\/([^/?]+)$/);
    return m ? {name: decodeURIComponent(m[1])} : {};
  }

  // ---- the experiments list -------------------------------------------

  function listLayout() {
    view.textContent = '';
    view.append(
        h('h1', {}, 'Experiments'),
        h('table', {id: 'experiments', class: 'table'}),
        h('section', {class: 'panel wide'},
          h('h2', {}, 'Devices (every experiment)'),
          h('div', {id: 'machine-timeline', class: 'plot-box'})));
  }

  function experimentRow(e) {
    const c = e.counts;
    const best = e.best && e.best.value !== undefined ? e.best : null;
    return h(
        'tr', {'data-name': e.name},
        h('td', {}, h('a', {href: `#/experiments/${encode(e.name)}`}, e.name)),
        h('td', {title: e.reason || ''}, badge(e.status)),
        h('td', {}, `${e.metric} (${e.mode})`),
        h('td', {class: 'num'},
          `${c.running + c.paused} / ${c.completed} / ` +
              `${c.stopped} / ${c.failed}`),
        h('td', {class: 'num'}, best ? number(best.value) : '–'),
        h('td', {class: 'params'}, best ? Charts.paramsText(best.params) : ''),
        h('td', {class: 'num'}, e.priority ?? '–'),
        h('td', {class: 'num'}, e.held_devices),
        h('td', {}, when(e.updated_at)));
  }

  async function drawList() {
    const experiments = await getJson('/api/experiments');
    const table = document.getElementById('experiments');
    table.textContent = '';
    table.append(h('tr', {}, [
      'name', 'status', 'metric', 'running / completed / stopped / failed',
      'best', 'best config', 'priority', 'devices', 'updated'
    ].map((t) => h('th', {}, t))));
    experiments.sort((a, b) => b.updated_at - a.updated_at);
    for (const e of experiments) table.append(experimentRow(e));
    if (experiments.length === 0) {
      table.append(
          h('tr', {},
            h('td', {colspan: 9, class: 'empty'},
              'No experiments yet: tuner submit CONFIG --server ' +
                  location.origin)));
    }
    await drawMachineTimeline(experiments);
  }

  // The leases of the most recently active experiments, coloured by
  // experiment: who held which card when.
  async function drawMachineTimeline(experiments) {
    const recent = experiments.filter(
        (e) => e.status === 'running' || now() - e.updated_at < 3600);
    const shown = recent.slice(0, 8);
    const leases = [];
    const lists = await Promise.all(
        shown.map((e) => getJson(`/api/experiments/${encode(e.name)}/leases`)));
    shown.forEach((e, i) => {
      for (const l of lists[i])
        leases.push(Object.assign({experiment: e.name, color: i}, l));
    });
    const kind = leases.length ? leases[0].kind : 'cpu';
    Charts.timeline(document.getElementById('machine-timeline'), leases, {
      id: 'machine-timeline-chart',
      now: now(),
      laneName: kLaneNames[kind] || kind,
      style: (l) => ({
        cls: `experiment-${l.color}`,
        fill: Svg.hue(l.color + 1, 55, 50),
        label: `${l.experiment}:${l.trial}`,
        text: `${l.experiment} trial ${l.trial}`
      }),
    });
  }

  // ---- one experiment ------------------------------------------------

  function experimentLayout(name) {
    view.textContent = '';
    const panel = (id, title, wide) =>
        h('section', {class: `panel${wide ? ' wide' : ''}`}, h('h2', {}, title),
          h('div', {id, class: 'plot-box'}));
    view.append(
        h('p', {}, h('a', {href: '#/'}, '← all experiments')),
        h('h1', {}, name, ' ', h('span', {id: 'status'})),
        h('dl', {id: 'summary', class: 'summary'}),
        h('div', {class: 'panels'},
          panel(
              'curves', 'Learning curves (rungs dashed, stopped trials grey)'),
          panel('best', 'Best so far'),
          panel('params', 'Parameters vs objective', true),
          panel(
              'timeline', 'Device timeline: which trial held which device when',
              true)),
        h('section', {class: 'panel wide'}, h('h2', {}, 'Trials'),
          h('table', {id: 'trials', class: 'table'})));
  }

  function drawSummary(e) {
    const status = document.getElementById('status');
    status.textContent = '';
    status.append(badge(e.status));
    const c = e.counts;
    const items = [
      [
        'metric',
        `${e.metric} (${e.mode}), by ${e.time_attr}` +
            (e.max_t ? ` up to ${e.max_t}` : '')
      ],
      [
        'trials',
        `${c.running} running, ${c.paused} paused, ${c.completed} ` +
            `completed, ${c.stopped} stopped, ${c.failed} failed`
      ],
      [
        'best',
        e.best && e.best.trial ? `${number(e.best.value)} (trial ` +
                `${e.best.trial}: ${Charts.paramsText(e.best.params)})` :
                                 '–'
      ],
      [
        'devices',
        e.priority ? `${e.held_devices} held, priority ${e.priority}` :
                     'none held'
      ],
      ['started', when(e.created_at)],
      ['updated', when(e.updated_at)],
      ...(e.reason ? [['failed because', e.reason]] : []),
    ];
    const dl = document.getElementById('summary');
    dl.textContent = '';
    for (const [k, v] of items) dl.append(h('dt', {}, k), h('dd', {}, v));
  }

  function drawTrials(trials) {
    const table = document.getElementById('trials');
    table.textContent = '';
    table.append(h('tr', {}, [
      'id', 'status', 'params', 'reached', 'last', 'best', 'attempts', 'reason',
      'logs'
    ].map((t) => h('th', {}, t))));
    for (const t of trials) {
      table.append(h(
          'tr', {'data-trial': t.id}, h('td', {class: 'num'}, t.id),
          h('td', {}, badge(t.status)),
          h('td', {class: 'params'}, Charts.paramsText(t.params)),
          h('td', {class: 'num'}, number(t.last_time)),
          h('td', {class: 'num'}, number(t.last_value)),
          h('td', {class: 'num'}, number(t.best_value)),
          h('td', {class: 'num'}, t.attempts), h('td', {}, t.reason || ''),
          h('td', {},
            h('a', {href: `/api/trials/${t.id}/log?tail=200`, target: '_blank'},
              'stdout'),
            ' ',
            h('a', {
              href: `/api/trials/${t.id}/log?stream=stderr&tail=200`,
              target: '_blank'
            },
              'stderr'))));
    }
  }

  async function drawExperiment(name) {
    const base = `/api/experiments/${encode(name)}`;
    const [e, curves, leases, trials] = await Promise.all([
      getJson(base), getJson(`${base}/curves`), getJson(`${base}/leases`),
      getJson(`${base}/trials`)
    ]);
    drawSummary(e);
    const t = now();
    Charts.learningCurves(document.getElementById('curves'), curves);
    Charts.bestSoFar(
        document.getElementById('best'), curves,
        e.status === 'running' ? t : 0);
    Charts.paramsVsObjective(
        document.getElementById('params'), curves, e.space);
    const status = new Map(curves.trials.map((x) => [x.id, x.status]));
    const kind = leases.length ? leases[0].kind : 'cpu';
    Charts.timeline(document.getElementById('timeline'), leases, {
      id: 'timeline-chart',
      now: t,
      laneName: kLaneNames[kind] || kind,
      style: (l) => ({
        cls: status.get(l.trial) || 'running',
        fill: Svg.hue(l.trial),
        label: String(l.trial),
        text: `trial ${l.trial} ` +
            `(${status.get(l.trial) || '?'}, attempt ${l.attempt})`
      }),
    });
    drawTrials(trials);
  }

  // ---- drawing and live updates ----------------------------------------

  async function draw() {
    const wanted = route();
    if (!page || page.name !== wanted.name) {
      page = wanted;
      page.name === undefined ? listLayout() : experimentLayout(page.name);
    }
    lastDraw = Date.now();
    try {
      await (page.name === undefined ? drawList() : drawExperiment(page.name));
      banner.hidden = true;
      document.body.dataset.drawn =
          String(Number(document.body.dataset.drawn || 0) + 1);
    } catch (e) {
      banner.textContent = e.message;
      banner.hidden = false;
    }
  }

  // Redraws soon, but at most once per kMinRefreshMs and never twice at once.
  function refresh() {
    if (timer) return;
    const wait = Math.max(0, lastDraw + kMinRefreshMs - Date.now());
    timer = setTimeout(async () => {
      if (drawing) await drawing;
      timer = null;
      drawing = draw();
      await drawing;
      drawing = null;
    }, wait);
  }

  function concerns(data) {
    return page && (page.name === undefined || data.experiment === page.name);
  }

  function listen() {
    const events = new EventSource(
        token ? `/api/events?token=${encodeURIComponent(token)}` :
                '/api/events');
    events.onopen = () => {
      live.textContent = 'live';
      live.className = 'live on';
    };
    events.onerror = () => {
      live.textContent = 'reconnecting';
      live.className = 'live off';
    };
    for (const type of
             ['experiment_started', 'experiment_ended', 'trial_started',
              'trial_promoted', 'trial_reported', 'trial_completed',
              'trial_stopped', 'trial_failed']) {
      events.addEventListener(type, (event) => {
        let data = {};
        try {
          data = JSON.parse(event.data);
        } catch (e) {
          return;
        }
        if (concerns(data)) refresh();
      });
    }
    events.addEventListener('reset', refresh);
  }

  window.addEventListener('hashchange', () => {
    page = null;
    refresh();
  });
  // Open leases and best-so-far lines grow with time even without events.
  setInterval(refresh, 5000);
  listen();
  refresh();
})();
