// What every page part shares: an element builder, the service's token,
// JSON and text reads and token-authenticated POSTs. window.tunerTest is the
// browser test's and the benchmark's view of the page: what each chart was
// handed, the bytes of each read, the control requests sent.
'use strict';

const Base = (() => {
  window.tunerTest =
      {charts: Charts.drawn, bytes: {}, firstBytes: {}, reads: [], control: []};

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

  async function errorOf(response, path) {
    let message = `${path}: HTTP ${response.status}`;
    try {
      message = (await response.json()).error || message;
    } catch (e) { /* not JSON: keep the status */
    }
    return new Error(message);
  }

  function headers() {
    return token ? {Authorization: `Bearer ${token}`} : {};
  }

  // GETs JSON; records the body's size under the path without its query
  // (the first read's in firstBytes, the latest in bytes).
  async function getJson(path) {
    const response = await fetch(path, {cache: 'no-store', headers: headers()});
    if (!response.ok) throw await errorOf(response, path);
    const text = await response.text();
    const key = path.split('?')[0];
    window.tunerTest.bytes[key] = text.length;
    if (!(key in window.tunerTest.firstBytes)) window.tunerTest.firstBytes[key] = text.length;
    window.tunerTest.reads.push(path);
    if (window.tunerTest.reads.length > 100) window.tunerTest.reads.shift();
    return JSON.parse(text);
  }

  // GETs text with the token (a trial's log).
  async function getText(path) {
    const response = await fetch(path, {cache: 'no-store', headers: headers()});
    if (!response.ok) throw await errorOf(response, path);
    window.tunerTest.reads.push(path);
    return response.text();
  }

  // POSTs with the token; resolves to the answer's JSON.
  async function post(path) {
    // A JSON content type: the service refuses the types a cross-site form
    // can send.
    const response = await fetch(path, {
      method: 'POST',
      headers: Object.assign({'Content-Type': 'application/json'}, headers()),
      body: '{}'
    });
    window.tunerTest.control.push({path, status: response.status});
    if (!response.ok) throw await errorOf(response, path);
    return response.json();
  }

  const number = (v) => (typeof v === 'number' ? Svg.number(v) : '–');
  const when = (t) => (t ? new Date(t * 1000).toLocaleString() : '–');
  const badge = (status) => h('span', {class: `badge ${status}`}, status);
  const kLaneNames = {habana: 'card', neuron: 'core', cuda: 'gpu', cpu: 'cpu'};

  return {h, token, getJson, getText, post, number, when, badge, kLaneNames};
})();
