// A small SVG layer for the dashboard's device timeline (a lane-per-device
// chart that no stock chart type draws): scales, ticks, axes and marks; and
// the number, duration and colour formats every view shares.
'use strict';

const Svg = (() => {
  const NS = 'http://www.w3.org/2000/svg';

  // Creates an SVG element with attributes, appended to `parent`.
  function el(tag, attrs, parent) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== undefined && value !== null) node.setAttribute(key, value);
    }
    if (parent) parent.appendChild(node);
    return node;
  }

  // A hover text: SVG's <title> child.
  function title(node, text) {
    el('title', {}, node).textContent = text;
    return node;
  }

  // Round tick values: 1, 2 or 5 times a power of ten.
  function linearTicks(lo, hi, count) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
    const ticks = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9;
         v += step) {
      ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return ticks;
  }

  // Powers of ten in [lo, hi]; with fewer than two, linear ticks.
  function logTicks(lo, hi, count) {
    const ticks = [];
    for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi));
         e++) {
      ticks.push(Math.pow(10, e));
    }
    return ticks.length >= 2 ? ticks : linearTicks(lo, hi, count);
  }

  // Maps [d0, d1] onto [r0, r1]; `log` maps log10 of the value. A scale is
  // a function with .ticks(n) and .domain.
  function scale(d0, d1, r0, r1, log) {
    if (log) {
      d0 = Math.max(d0, 1e-300);
      d1 = Math.max(d1, d0 * 1.0001);
    }
    if (d0 === d1) {
      const pad = Math.abs(d0) * 0.05 || 1;
      d0 -= pad;
      d1 += pad;
    }
    const f = log ? Math.log10 : (v) => v;
    const a = f(d0), b = f(d1);
    const map = (v) => r0 + ((f(v) - a) / (b - a)) * (r1 - r0);
    map.domain = [d0, d1];
    map.ticks = (n) => (log ? logTicks(d0, d1, n) : linearTicks(d0, d1, n));
    return map;
  }

  // The extent of finite numbers, padded by `pad` of its width.
  function extent(values, pad) {
    const finite = values.filter(Number.isFinite);
    if (finite.length === 0) return [0, 1];
    let lo = Math.min(...finite), hi = Math.max(...finite);
    const width = hi - lo;
    lo -= width * (pad || 0);
    hi += width * (pad || 0);
    return [lo, hi];
  }

  // Short numbers: 0.00123 -> "0.00123", 12345 -> "1.23e+4".
  function number(v) {
    if (!Number.isFinite(v)) return String(v);
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e4 || a < 1e-3) return v.toExponential(2).replace(/\.?0+e/, 'e');
    return String(Number(v.toPrecision(3)));
  }

  // Seconds as "42s", "3m05s", "2h07m".
  function duration(s) {
    if (!Number.isFinite(s)) return '';
    s = Math.max(0, s);
    if (s < 60) return `${Number(s.toPrecision(3))}s`;
    const m = Math.floor(s / 60), h = Math.floor(m / 60);
    const pad = (n) => String(n).padStart(2, '0');
    if (h === 0) return `${m}m${pad(Math.floor(s % 60))}s`;
    return `${h}h${pad(m % 60)}m`;
  }

  // An empty chart in `container` (cleared): an <svg> with a viewBox, the
  // plot area's box, and x/y scales over the given domains. `spec`:
  // {id, width, height, x: {domain, log, label, format}, y: {...}}.
  function chart(container, spec) {
    container.textContent = '';
    const width = spec.width || 560, height = spec.height || 300;
    const m = Object.assign(
        {top: 12, right: 16, bottom: 40, left: 58}, spec.margin || {});
    const svg =
        el('svg', {
          id: spec.id,
          class: 'chart',
          viewBox: `0 0 ${width} ${height}`,
          role: 'img',
          'aria-label': spec.label || spec.id,
        },
           container);
    const box = {
      left: m.left,
      right: width - m.right,
      top: m.top,
      bottom: height - m.bottom
    };
    const x = scale(
        spec.x.domain[0], spec.x.domain[1], box.left, box.right, spec.x.log);
    const y = spec.y.band ? null :
                            scale(
                                spec.y.domain[0], spec.y.domain[1], box.bottom,
                                box.top, spec.y.log);
    const c = {svg, box, x, y, width, height};
    c.grid = el('g', {class: 'grid'}, svg);
    c.plot = el('g', {class: 'plot'}, svg);
    axisX(c, spec.x);
    if (y) axisY(c, spec.y);
    return c;
  }

  function axisX(c, spec) {
    const g = el('g', {class: 'axis x'}, c.svg);
    const fmt = spec.format || number;
    el('line',
       {x1: c.box.left, x2: c.box.right, y1: c.box.bottom, y2: c.box.bottom},
       g);
    for (const t of c.x.ticks(spec.ticks || 6)) {
      const px = c.x(t);
      el('line', {x1: px, x2: px, y1: c.box.top, y2: c.box.bottom}, c.grid);
      el('text', {x: px, y: c.box.bottom + 16, 'text-anchor': 'middle'}, g)
          .textContent = fmt(t);
    }
    if (spec.label) {
      el('text', {
        class: 'label',
        x: (c.box.left + c.box.right) / 2,
        y: c.height - 6,
        'text-anchor': 'middle'
      },
         g)
          .textContent = spec.label;
    }
  }

  function axisY(c, spec) {
    const g = el('g', {class: 'axis y'}, c.svg);
    const fmt = spec.format || number;
    el('line',
       {x1: c.box.left, x2: c.box.left, y1: c.box.top, y2: c.box.bottom}, g);
    for (const t of c.y.ticks(spec.ticks || 5)) {
      const py = c.y(t);
      el('line', {x1: c.box.left, x2: c.box.right, y1: py, y2: py}, c.grid);
      el('text', {x: c.box.left - 6, y: py + 4, 'text-anchor': 'end'}, g)
          .textContent = fmt(t);
    }
    if (spec.label) {
      const cy = (c.box.top + c.box.bottom) / 2;
      el('text', {
        class: 'label',
        x: 12,
        y: cy,
        'text-anchor': 'middle',
        transform: `rotate(-90 12 ${cy})`
      },
         g)
          .textContent = spec.label;
    }
  }

  // A polyline through [x, y] data points; `step` draws a staircase.
  function path(c, points, attrs, step) {
    let d = '';
    points.forEach(([px, py], i) => {
      const sx = c.x(px).toFixed(1), sy = c.y(py).toFixed(1);
      if (i === 0)
        d += `M${sx},${sy}`;
      else if (step)
        d += `H${sx}V${sy}`;
      else
        d += `L${sx},${sy}`;
    });
    return el('path', Object.assign({d, fill: 'none'}, attrs), c.plot);
  }

  function dot(c, px, py, attrs) {
    return el(
        'circle',
        Object.assign(
            {cx: c.x(px).toFixed(1), cy: c.y(py).toFixed(1), r: 3}, attrs),
        c.plot);
  }

  // A stable colour per integer key (golden-angle hues).
  function hue(key, saturation, light) {
    return `hsl(${(key * 137.508) % 360}, ${saturation || 62}%, ${
        light || 45}%)`;
  }

  return {el, title, scale, extent, number, duration, chart, path, dot, hue};
})();
