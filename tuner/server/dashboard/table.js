// The trials table: sorted by a clicked column, filtered by a text, the
// first kMaxRows rows shown, and every filtered row downloadable as CSV.
'use strict';

const TrialsTable = (() => {
  const kMaxRows = 200;  // 50,000 table rows would take the page seconds
  const columns = [
    {key: 'id', label: 'id', num: true, get: (t) => t.id},
    {key: 'status', label: 'status', get: (t) => t.status},
    {key: 'params', label: 'params', get: (t) => Charts.paramsText(t.params)},
    {key: 'last_time', label: 'reached', num: true, get: (t) => t.last_time},
    {key: 'last_value', label: 'last', num: true, get: (t) => t.last_value},
    {key: 'best_value', label: 'best', num: true, get: (t) => t.best_value},
    {key: 'attempts', label: 'attempts', num: true, get: (t) => t.attempts},
    {key: 'reason', label: 'reason', get: (t) => t.reason || ''},
  ];
  const view = {sort: 'id', descending: false, filter: ''};

  // The rows the table shows, in order: those whose status, params or
  // reason contain the filter text, sorted by the chosen column (missing
  // values last).
  function rows(trials) {
    const needle = view.filter.trim().toLowerCase();
    const column = columns.find((c) => c.key === view.sort) || columns[0];
    const kept = needle === '' ? [...trials] : trials.filter((t) =>
        `${t.status} ${Charts.paramsText(t.params)} ${t.reason || ''}`
            .toLowerCase().includes(needle));
    const sign = view.descending ? -1 : 1;
    return kept.sort((a, b) => {
      const x = column.get(a), y = column.get(b);
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return sign * (column.num ? x - y : String(x).localeCompare(String(y))) ||
          a.id - b.id;
    });
  }

  // CSV of the rows: one column per parameter; quotes doubled.
  function csv(list) {
    const names = [...new Set(list.flatMap((t) => Object.keys(t.params || {})))];
    const cell = (v) => {
      const s = v === null || v === undefined ? '' : String(v);
      return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    };
    const head = ['id', 'status', ...names, 'last_time', 'last_value', 'best_value',
                  'attempts', 'reason'];
    const lines = [head.map(cell).join(',')];
    for (const t of list) {
      lines.push([t.id, t.status, ...names.map((n) => (t.params || {})[n]),
                  t.last_time, t.last_value, t.best_value, t.attempts, t.reason]
                     .map(cell).join(','));
    }
    return lines.join('\n') + '\n';
  }

  // Draws the controls (once) and the rows into `section`; `h` builds
  // elements, `redraw` is called when the sort or filter changes.
  function draw(section, trials, h, experiment, redraw) {
    let controls = section.querySelector('.table-controls');
    if (!controls) {
      const filter = h('input', {id: 'trials-filter', type: 'search',
                                 placeholder: 'filter: status, params, reason'});
      filter.addEventListener('input', () => {
        view.filter = filter.value;
        redraw();
      });
      const download = h('button', {id: 'trials-csv', type: 'button'}, 'CSV');
      download.addEventListener('click', () => {
        const blob = new Blob([csv(rows(section.trials))], {type: 'text/csv'});
        const a = h('a', {href: URL.createObjectURL(blob),
                          download: `${experiment}-trials.csv`});
        a.click();
        setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      });
      controls = h('div', {class: 'table-controls'}, filter, download,
                   h('span', {id: 'trials-count'}));
      section.prepend(controls);
    }
    section.trials = trials;
    const list = rows(trials);
    section.querySelector('#trials-count').textContent = list.length > kMaxRows ?
        `first ${kMaxRows} of ${list.length} trials` : `${list.length} trials`;
    const table = section.querySelector('#trials');
    table.textContent = '';
    table.append(h('tr', {}, columns.map((c) => {
      const th = h('th', {'data-key': c.key, class: 'sortable'},
                   c.label + (view.sort === c.key ? (view.descending ? ' ▼' : ' ▲') : ''));
      th.addEventListener('click', () => {
        view.descending = view.sort === c.key ? !view.descending : false;
        view.sort = c.key;
        redraw();
      });
      return th;
    }), h('th', {}, 'curve and logs')));
    for (const t of list.slice(0, kMaxRows)) table.append(row(t, h, experiment));
  }

  function row(t, h, experiment) {
    const number = (v) => (typeof v === 'number' ? Svg.number(v) : '–');
    const page = `#/experiments/${encodeURIComponent(experiment)}/trials/${t.id}`;
    return h('tr', {'data-trial': t.id},
             h('td', {class: 'num'}, h('a', {href: page}, String(t.id))),
             h('td', {}, h('span', {class: `badge ${t.status}`}, t.status)),
             h('td', {class: 'params'}, Charts.paramsText(t.params)),
             h('td', {class: 'num'}, number(t.last_time)),
             h('td', {class: 'num'}, number(t.last_value)),
             h('td', {class: 'num'}, number(t.best_value)),
             h('td', {class: 'num'}, t.attempts), h('td', {}, t.reason || ''),
             h('td', {}, h('a', {href: page, class: 'trial-link'}, 'open')));
  }

  return {draw, rows, csv, view};
})();
