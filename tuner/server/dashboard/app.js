// The dashboard: the experiments list, one experiment's page
// (experiment.js) and one trial's (trial.js), kept live through the
// service's event stream (GET /api/events). It reads the JSON API; it writes only through the
// stop, extend and delete buttons, with the token.
'use strict';

(() => {
  const {h} = Base;
  const view = document.getElementById('view');
  const live = document.getElementById('live');
  const banner = document.getElementById('error');
  const kMinRefreshMs = 1000;  // at most one redraw a second, however busy
  let page = null;             // what is drawn: {name} or {} for the list
  let lastDraw = 0;
  let timer = null;
  let drawing = null;

  const now = () => Date.now() / 1000;
  const encode = encodeURIComponent;

  // {} for the list, {name} for an experiment, {name, trial} for a trial.
  function route() {
    const m = location.hash.match(/^#\/experiments\/([^/?]+)(?:\/trials\/([0-9]+))?$/);
    if (!m) return {};
    return m[2] ? {name: decodeURIComponent(m[1]), trial: Number(m[2])} :
                  {name: decodeURIComponent(m[1])};
  }

  const samePage = (a, b) => a && a.name === b.name && a.trial === b.trial;

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
        h('td', {title: e.reason || ''}, Base.badge(e.status)),
        h('td', {}, `${e.metric} (${e.mode})`),
        h('td', {class: 'num'},
          `${c.running + c.paused} / ${c.completed} / ` +
              `${c.stopped} / ${c.failed}`),
        h('td', {class: 'num'}, best ? Base.number(best.value) : '–'),
        h('td', {class: 'params'}, best ? Charts.paramsText(best.params) : ''),
        h('td', {class: 'num'}, e.priority ?? '–'),
        h('td', {class: 'num'}, e.held_devices),
        h('td', {}, Base.when(e.updated_at)));
  }

  async function drawList() {
    const experiments = await Base.getJson('/api/experiments');
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
    const lists = await Promise.all(shown.map(
        (e) => Base.getJson(`/api/experiments/${encode(e.name)}/leases`)));
    shown.forEach((e, i) => {
      for (const l of lists[i])
        leases.push(Object.assign({experiment: e.name, color: i}, l));
    });
    const kind = leases.length ? leases[0].kind : 'cpu';
    const container = document.getElementById('machine-timeline');
    Timeline.timeline(container, leases, {
      id: 'machine-timeline-chart',
      now: now(),
      laneName: Base.kLaneNames[kind] || kind,
      style: (l) => ({
        cls: `experiment-${l.color}`,
        fill: Svg.hue(l.color + 1, 55, 50),
        label: `${l.experiment}:${l.trial}`,
        text: `${l.experiment} trial ${l.trial}`
      }),
    });
    if (leases.length) {
      Timeline.legend(container, shown.map((e, i) => ({
        fill: Svg.hue(i + 1, 55, 50), text: e.name
      })));
    }
  }

  // ---- drawing and live updates ----------------------------------------

  async function draw() {
    const wanted = route();
    if (!samePage(page, wanted)) {
      page = wanted;
      if (page.name === undefined) listLayout();
      else if (page.trial === undefined) ExperimentPage.layout(page.name);
      else TrialPage.layout(page.name, page.trial);
    }
    lastDraw = Date.now();
    const started = performance.now();
    try {
      await (page.name === undefined ? drawList() :
             page.trial === undefined ? ExperimentPage.draw(page.name) :
                                        TrialPage.draw(page.name, page.trial));
      banner.hidden = true;
      window.tunerTest.drawMs = Math.round(performance.now() - started);
      // The marker tests and benchmarks wait for: one more full draw.
      if (!window.tunerTest.firstDrawMs) window.tunerTest.firstDrawMs = performance.now();
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
        Base.token ? `/api/events?token=${encode(Base.token)}` : '/api/events');
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
  ExperimentPage.onChange = refresh;
  window.tunerTest.refresh = refresh;
  // Open leases and best-so-far lines grow with time even without events.
  setInterval(refresh, 5000);
  listen();
  refresh();
})();
