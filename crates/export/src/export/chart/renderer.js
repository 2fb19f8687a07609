/**
 * tracekit's flame chart renderer: draws the sync tracks of a trace (the
 * data `tracekit chart` embeds, docs/chart.md) on a canvas as the DevTools
 * Performance panel's flame chart does: a lane per thread, levels by
 * depth, colours as the panel's, a time axis in ms; zoom, pan, tooltips,
 * pinned details, search. Plain JavaScript without dependencies: it makes
 * no request, and any page can use it:
 *
 *   const packed = TracekitChart.decodeBase64(text);   // the page's columns
 *   const model = TracekitChart.decode(header, await TracekitChart.inflate(packed));
 *   const chart = new TracekitChart.FlameChart(element, model);
 *
 * Speed: the nodes stay in the typed arrays of the data; each lane is laid
 * out once into levels (node indices by level, in time order, with the
 * running maximum of their ends), so that a frame finds the visible nodes
 * of a level by binary search, merges those under a pixel into one
 * rectangle (jumping past them by binary search too), and fills the
 * rectangles of a colour as one path.
 */
(function (root) {
  'use strict';

  /** The data format version this renderer reads (docs/chart.md). */
  const VERSION = 3;

  // Geometry, in CSS pixels: the panel's bars are 17 px apart.
  const AXIS_HEIGHT = 22;
  const HEADER_HEIGHT = 20;
  const ROW_HEIGHT = 17;
  const BAR_HEIGHT = 16;
  const LANE_PADDING = 4;
  // A node narrower than this is drawn as one pixel, merged with the
  // nodes after it under the same pixel.
  const MERGE_WIDTH = 1;
  // Names are drawn in bars at least this wide.
  const TEXT_MIN_WIDTH = 24;
  // Bars narrower than this are drawn without the gap that sets wider
  // ones apart, joined to the previous bar of their colour they touch.
  const NARROW_WIDTH = 3;
  const TEXT_PADDING = 4;
  // A name cut to fit keeps at least this many characters, or is not drawn.
  const MIN_TEXT_CHARS = 3;
  const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const BACKGROUND = '#ffffff';
  // The view may not get narrower than this (µs), nor wider than ten
  // times the data.
  const MIN_SPAN = 0.5;

  const TYPES = { f64: Float64Array, u8: Uint8Array, u16: Uint16Array, u32: Uint32Array };

  /** Bytes of base64 text (the columns as `tracekit chart` embeds them). */
  function decodeBase64(text) {
    if (typeof Uint8Array.fromBase64 === 'function') {
      return Uint8Array.fromBase64(text.trim());
    }
    const binary = atob(text.trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) {
      bytes[i] = binary.charCodeAt(i);
    }
    return bytes;
  }

  /** Bytes inflated from a raw deflate stream (how the page packs the columns). */
  async function inflate(bytes) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  /**
   * The model the chart draws, from the data: `header` (the parsed JSON
   * header) and `bytes` (a Uint8Array of the columns). The columns are
   * viewed in place, not copied.
   */
  function decode(header, bytes, images) {
    if (header.format !== 'tracekit-chart' || header.version !== VERSION) {
      throw new Error(`not tracekit chart data of version ${VERSION}`);
    }
    if (bytes.length !== header.bytes) {
      throw new Error(`the columns have ${bytes.length} bytes, the header says ${header.bytes}`);
    }
    // Typed arrays of 8-byte values must start at a multiple of 8.
    if (bytes.byteOffset % 8 !== 0) {
      bytes = bytes.slice();
    }
    const column = (entry, count) => {
      const Type = TYPES[entry.type];
      if (!Type) {
        throw new Error(`unknown column type ${entry.type}`);
      }
      return new Type(bytes.buffer, bytes.byteOffset + entry.offset, count);
    };
    const strings = header.strings;
    const l = header.labels;
    const labels = {
      count: l.name.length,
      name: l.name.map((i) => strings[i]),
      url: l.url.map((i) => strings[i]),
      line: Float64Array.from(l.line),
      column: Float64Array.from(l.column),
      color: Uint32Array.from(l.color),
      category: l.category.map((i) => strings[i]),
      js: Uint8Array.from(l.js),
      drawn: Uint8Array.from(l.drawn),
    };
    const lanes = header.lanes.map((lane) => ({
      pid: lane.pid,
      tid: lane.tid,
      process: lane.process,
      url: lane.url,
      mainFrame: lane.mainFrame,
      thread: lane.thread,
      folded: lane.folded,
      count: lane.nodes,
      start: column(lane.columns.start, lane.nodes),
      dur: column(lane.columns.dur, lane.nodes),
      self: column(lane.columns.self, lane.nodes),
      depth: column(lane.columns.depth, lane.nodes),
      label: column(lane.columns.label, lane.nodes),
      details: lane.details || {},
    }));
    // The initiators' links and the warnings: columns of their own.
    const table = (t) => {
      if (!t) return { count: 0 };
      const out = { count: t.count };
      for (const [key, entry] of Object.entries(t.columns)) out[key] = column(entry, t.count);
      return out;
    };
    return {
      title: header.title,
      input: header.input,
      origin: header.origin,
      bounds: header.bounds,
      view: header.view,
      generic: header.generic,
      colors: header.colors,
      labels,
      lanes,
      links: table(header.links),
      warnings: table(header.warnings),
      page: decodePage(header.page, images || [], header.bounds),
    };
  }

  /**
   * The levels of a lane: each node's level (-1 when not drawn), and the
   * drawn nodes grouped by level in time order (`order`, level `v` being
   * `order[offsets[v]] .. order[offsets[v + 1] - 1]`) with the running
   * maximum of their ends (`maxEnd`, for binary search). A node that is
   * not drawn leaves its level to its children, as in the panel.
   */
  function layOut(lane, labels, showAll) {
    const n = lane.count;
    const level = new Int32Array(n);
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      if (lane.depth[i] > maxDepth) maxDepth = lane.depth[i];
    }
    // The level the children of the last node seen at each depth go to:
    // in pre-order, a node's parent is the last node one level up.
    const childLevel = new Int32Array(maxDepth + 1);
    let levels = 0;
    for (let i = 0; i < n; i++) {
      const d = lane.depth[i];
      const at = d === 0 ? 0 : childLevel[d - 1];
      if (showAll || labels.drawn[lane.label[i]]) {
        level[i] = at;
        childLevel[d] = at + 1;
        if (at + 1 > levels) levels = at + 1;
      } else {
        level[i] = -1;
        childLevel[d] = at;
      }
    }
    const offsets = new Uint32Array(levels + 1);
    for (let i = 0; i < n; i++) {
      if (level[i] >= 0) offsets[level[i] + 1]++;
    }
    for (let v = 0; v < levels; v++) offsets[v + 1] += offsets[v];
    const order = new Uint32Array(offsets[levels]);
    const fill = offsets.slice(0, levels);
    for (let i = 0; i < n; i++) {
      if (level[i] >= 0) order[fill[level[i]]++] = i;
    }
    return { level, levels, offsets, order, maxEnd: runningMaxEnd(lane, levels, offsets, order) };
  }

  /** Per level, the latest end of the nodes up to each position. */
  function runningMaxEnd(lane, levels, offsets, order) {
    const maxEnd = new Float64Array(order.length);
    for (let v = 0; v < levels; v++) {
      let max = -Infinity;
      for (let p = offsets[v]; p < offsets[v + 1]; p++) {
        const i = order[p];
        const end = lane.start[i] + lane.dur[i];
        if (end > max) max = end;
        maxEnd[p] = max;
      }
    }
    return maxEnd;
  }

  /**
   * The part of a lane's layout whose labels match (`matches[label]` is
   * 1): the same levels, only the matching nodes, and the running maximum
   * of their own ends.
   */
  function matchesOf(layout, lane, matches) {
    const { levels, offsets, order } = layout;
    const kept = new Uint32Array(levels + 1);
    const positions = [];
    for (let v = 0; v < levels; v++) {
      kept[v] = positions.length;
      for (let p = offsets[v]; p < offsets[v + 1]; p++) {
        if (matches[lane.label[order[p]]]) positions.push(order[p]);
      }
    }
    kept[levels] = positions.length;
    const matchOrder = Uint32Array.from(positions);
    return {
      level: layout.level,
      levels,
      offsets: kept,
      order: matchOrder,
      maxEnd: runningMaxEnd(lane, levels, kept, matchOrder),
    };
  }

  /** The first position in `from..to` whose value is at least `x` (`to` if none). */
  function lowerBound(values, from, to, x) {
    let lo = from;
    let hi = to;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (values[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * `lowerBound` for a position likely near `from`: steps of 1, 2, 4...
   * then a binary search in the last step, so that skipping a few nodes
   * costs a few reads.
   */
  function gallop(values, from, to, x) {
    if (from >= to) return to;
    let step = 1;
    let lo = from;
    while (lo + step < to && values[lo + step] < x) {
      lo += step;
      step *= 2;
    }
    if (values[lo] >= x) return lo;
    return lowerBound(values, lo + 1, Math.min(lo + step + 1, to), x);
  }

  /** Milliseconds with three decimals, as `tracekit tracks` prints them. */
  function ms(us) {
    return `${(us / 1000).toFixed(3)} ms`;
  }

  /** A step of 1, 2 or 5 times a power of ten, at least `raw`. */
  function niceStep(raw) {
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) {
      if (m * power >= raw) return m * power;
    }
    return 10 * power;
  }

  /**
   * Rectangles of one colour for a frame, as x, y, width triples in a
   * typed array kept from frame to frame (no garbage while zooming).
   */
  class Rects {
    constructor() {
      this.data = new Float32Array(3 * 1024);
      this.count = 0;
    }

    push(x, y, w) {
      if (3 * this.count + 3 > this.data.length) {
        const bigger = new Float32Array(this.data.length * 2);
        bigger.set(this.data);
        this.data = bigger;
      }
      const j = 3 * this.count++;
      this.data[j] = x;
      this.data[j + 1] = y;
      this.data[j + 2] = w;
    }

    /**
     * A rectangle from x0 to x1 on row y that widens the last one when it
     * is on the same row and reaches x0 (a dense stretch of small bars is
     * one rectangle, not hundreds).
     */
    add(x0, y, x1) {
      const j = 3 * (this.count - 1);
      const d = this.data;
      if (this.count > 0 && d[j + 1] === Math.fround(y) && d[j] + d[j + 2] >= x0 - 0.5) {
        d[j + 2] = Math.max(d[j + 2], x1 - d[j]);
      } else {
        this.push(x0, y, x1 - x0);
      }
    }
  }

  // ---- The page's tracks ------------------------------------------------
  //
  // What the panel shows above the threads (docs/chart.md, "page"): a few
  // thousand items at most, kept as plain objects. Each track's items are
  // packed into rows as the panel packs them (an item goes to the first
  // row whose last item has ended), and each row keeps its items in time
  // order with the running maximum of their ends, so that a frame finds
  // the visible ones by binary search, as for the lanes.

  // The filmstrip's row, and the screenshot shown on hover, in CSS px.
  const FILM_HEIGHT = 72;
  const SHOT_WIDTH = 240;
  const SHOT_HEIGHT = 160;
  // Interactions longer than this (µs) are striped red past it.
  const LONG_INTERACTION = 200000;
  // Instants (marks, timestamps, shifts) are found this far away (px).
  const INSTANT_SLACK = 5;
  const PRIORITY_NAMES = { VeryHigh: 'Highest', High: 'High', Medium: 'Medium', Low: 'Low', VeryLow: 'Lowest' };
  const FRAME_COLORS = { good: '#d7f0d1', idle: '#ffffff', partial: '#f0e442', dropped: '#f08080' };
  const FRAME_NAMES = { good: 'Frame', idle: 'Idle frame', partial: 'Partially presented frame', dropped: 'Dropped frame' };
  const SHIFT_COLOR = '#d190ff';
  const CLUSTER_COLOR = 'rgba(209, 144, 255, 0.5)';
  const WHISKER_COLOR = '#c7c7c7';
  // The GPU's tasks: the panel's GPU category colour.
  const GPU_COLOR = '#37be5f';
  const MEMORY_HEIGHT = 72;
  // The panel's memory counters, their names and colours.
  const COUNTERS = [
    ['jsHeap', 'JS heap', 'hsl(220, 90%, 43%)'],
    ['documents', 'Documents', 'hsl(0, 90%, 43%)'],
    ['nodes', 'Nodes', 'hsl(120, 90%, 43%)'],
    ['listeners', 'Listeners', 'hsl(38, 90%, 43%)'],
  ];
  // The warnings' bits (docs/chart.md) and what the tooltip says of each.
  const WARNINGS = [
    [1, 'Long task (over 50 ms)'],
    [2, 'Idle callback ran over its allotted time'],
    [4, 'Forced reflow'],
    [8, 'Long interaction (over 200 ms)'],
  ];
  // A long task is striped past this (µs), as the panel stripes it.
  const LONG_TASK = 50000;
  const WARNING_RED = '#e50000';
  const ARROW_COLOR = '#202124';

  /** The page's tracks of the header (`null` when none), images decoded to bytes. */
  function decodePage(page, images, bounds) {
    if (!page) return null;
    const end = bounds ? bounds[1] : -Infinity;
    const shots = page.screenshots;
    // A screenshot shows until the next one, the last until the trace ends.
    const screenshots = shots.map((s, i) => ({
      ...s,
      until: i + 1 < shots.length ? shots[i + 1].time : Math.max(end, s.time),
    }));
    return { ...page, screenshots, images, end };
  }

  /** Items (with `s` and `e`, their start and end) packed into rows as the panel packs them. */
  function packRows(items, rowCount) {
    const ends = [];
    const rows = [];
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      let r = 0;
      while (r < ends.length && it.s < ends[r]) r++;
      ends[r] = it.e;
      (rows[r] || (rows[r] = [])).push(i);
    }
    return rowsOf(items, rows, rowCount);
  }

  /** Per row, its items' indices (in time order) and the running maximum of their ends. */
  function rowsOf(items, rows, rowCount) {
    const out = [];
    for (let r = 0; r < Math.max(rows.length, rowCount || 0); r++) {
      const order = Uint32Array.from(rows[r] || []);
      const maxEnd = new Float64Array(order.length);
      let max = -Infinity;
      for (let p = 0; p < order.length; p++) {
        max = Math.max(max, items[order[p]].e);
        maxEnd[p] = max;
      }
      out.push({ order, maxEnd });
    }
    return out;
  }

  /** The tracks to draw above the lanes, in the panel's order; the empty ones left out. */
  function pageTracks(page) {
    if (!page) return [];
    const tracks = [];
    const add = (kind, title, items, rows, rowHeight) => {
      if (items.length === 0 && kind !== 'timings') return;
      tracks.push({ kind, title, items, rows, rowHeight: rowHeight || ROW_HEIGHT });
    };
    const network = page.network.map((r) => ({ ...r, s: r.start, e: r.end }));
    add('network', 'Network', network, packRows(network));
    const frames = page.frames.map((f) => ({ ...f, s: f.start, e: f.end }));
    add('frames', 'Frames', frames, rowsOf(frames, [frames.map((f, i) => i)]));
    const shots = page.screenshots.map((s) => ({ ...s, s: s.time, e: s.until }));
    add('screenshots', 'Screenshots', shots, rowsOf(shots, [shots.map((f, i) => i)]), FILM_HEIGHT);
    // Timings: the markers' labels on the first row (when there are
    // markers), then the user and console timings.
    const markers = page.markers.map((m) => ({ ...m, marker: true, s: m.time, e: m.time }));
    const timings = page.timings.map((t) => ({ ...t, s: t.start, e: t.start + t.dur }));
    if (markers.length + timings.length > 0) {
      const packed = packRows(timings);
      const items = timings.concat(markers);
      const rows = rowsOf(items, packed.map((row) => Array.from(row.order)));
      if (markers.length > 0) rows.unshift(rowsOf(items, [markers.map((m, i) => timings.length + i)])[0]);
      tracks.push({ kind: 'timings', title: 'Timings', items, rows, rowHeight: ROW_HEIGHT });
    }
    const interactions = page.interactions.map((x) => ({ ...x, s: x.start, e: x.end }));
    add('interactions', 'Interactions', interactions, packRows(interactions));
    // Layout shifts: one row of clusters, the shifts' diamonds over them.
    const shifts = [];
    const clusters = page.layoutShifts.map((c, i) => ({ ...c, s: c.start, e: c.end }));
    page.layoutShifts.forEach((c, i) => {
      for (const shift of c.shifts) shifts.push({ ...shift, cluster: i, s: shift.time, e: shift.time });
    });
    const shiftItems = clusters.concat(shifts);
    if (clusters.length > 0) {
      const row = rowsOf(shiftItems, [clusters.map((c, i) => i)])[0];
      const diamonds = rowsOf(shiftItems, [shifts.map((s, i) => clusters.length + i)])[0];
      tracks.push({ kind: 'layoutShifts', title: 'Layout shifts', items: shiftItems, rows: [row], diamonds, rowHeight: ROW_HEIGHT });
    }
    // The tracks of pages and extensions: a group's tracks each under a
    // row of its own with the track's name.
    for (const ext of page.extensions || []) {
      const items = [];
      const rows = [];
      const rowLabels = [];
      for (const sub of ext.tracks) {
        if (ext.group) {
          rowLabels[rows.length] = sub.name;
          rows.push([]);
        }
        const from = items.length;
        for (const e of sub.entries) items.push({ ...e, track: sub.name, s: e.start, e: e.start + e.dur });
        const mine = items.slice(from);
        if (mine.length > 0 && mine.every((e) => e.depth !== null)) {
          // Nested as the handler's tree says.
          const base = rows.length;
          mine.forEach((e, i) => {
            const r = base + e.depth;
            while (rows.length <= r) rows.push([]);
            rows[r].push(from + i);
          });
        } else {
          const packed = packRows(mine);
          for (const row of packed) rows.push(Array.from(row.order, (i) => from + i));
        }
      }
      if (items.length === 0) continue;
      tracks.push({ kind: 'extension', title: ext.name, items, rows: rowsOf(items, rows), rowLabels, rowHeight: ROW_HEIGHT });
    }
    const gpu = (page.gpu || []).map((t) => ({ ...t, s: t.start, e: t.start + t.dur }));
    add('gpu', 'GPU', gpu, packRows(gpu));
    const memory = page.memory || { time: [] };
    if (memory.time.length > 0) {
      // Each sample holds until the next.
      const times = memory.time;
      const items = times.map((t, i) => ({
        sample: i,
        s: t,
        e: i + 1 < times.length ? times[i + 1] : Math.max(t, end(page)),
      }));
      // Each counter's range, for its own scale (as the panel scales each).
      const ranges = COUNTERS.map(([key]) => {
        const values = memory[key].filter((v) => v !== null);
        return values.length ? [Math.min(...values), Math.max(...values)] : null;
      });
      tracks.push({ kind: 'memory', title: 'Memory', items, rows: rowsOf(items, [items.map((x, i) => i)]), memory, ranges, rowHeight: MEMORY_HEIGHT });
    }
    for (const track of tracks) {
      // Each item's row, for its outline.
      track.rowOf = new Int32Array(track.items.length);
      track.rows.forEach((row, r) => {
        for (const i of row.order) track.rowOf[i] = r;
      });
    }
    return tracks;
  }

  /** The end of the trace (-Infinity when unknown). */
  function end(page) {
    return page.end === undefined ? -Infinity : page.end;
  }

  /** Bytes in the units the panel shows (kB, MB). */
  function bytesText(n) {
    if (n === null || n === undefined) return '';
    if (n < 1000) return `${n} B`;
    if (n < 1e6) return `${(n / 1000).toFixed(1)} kB`;
    return `${(n / 1e6).toFixed(1)} MB`;
  }

  /** A canvas pattern of lines at 45°: `gap` px apart, `width` wide, dashed when `dash` is given. */
  function stripes(color, gap, width, dash) {
    const size = 17;
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = size;
    const ctx = canvas.getContext('2d');
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    if (dash) ctx.setLineDash(dash);
    ctx.beginPath();
    for (let x = -size; x < 2 * size; x += gap) {
      ctx.moveTo(x, size);
      ctx.lineTo(x + size, 0);
    }
    ctx.stroke();
    return ctx.createPattern(canvas, 'repeat');
  }

  const CSS = `
.tkc { display: flex; flex-direction: column; height: 100%; min-height: 0; font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #202124; }
.tkc-bar { display: flex; align-items: center; gap: 8px; padding: 4px 8px; border-bottom: 1px solid #dadce0; background: #f8f9fa; flex-wrap: wrap; }
.tkc-bar input[type=search] { width: 18em; font: inherit; padding: 2px 4px; }
.tkc-bar button { font: inherit; }
.tkc-count { color: #5f6368; min-width: 6em; }
.tkc-help { color: #5f6368; margin-left: auto; }
.tkc-main { position: relative; flex: 1; min-height: 0; overflow: hidden; outline: none; }
.tkc-main canvas { position: absolute; left: 0; top: 0; }
.tkc-scroll { position: absolute; inset: 0; overflow-y: auto; overflow-x: hidden; cursor: default; }
.tkc-scroll.tkc-dragging { cursor: grabbing; }
.tkc-tip { position: absolute; pointer-events: none; display: none; background: #fff; border: 1px solid #dadce0; border-radius: 4px; box-shadow: 0 1px 4px rgba(0,0,0,.2); padding: 4px 8px; max-width: 60%; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; z-index: 2; }
.tkc-tip .tkc-name, .tkc-details .tkc-name { font-weight: 600; }
.tkc-tip .tkc-url, .tkc-details .tkc-url { color: #1a73e8; }
.tkc-tip .tkc-times { color: #5f6368; }
.tkc-details { border-top: 1px solid #dadce0; padding: 4px 8px; background: #f8f9fa; min-height: 3.2em; }
.tkc-details table { border-collapse: collapse; }
.tkc-details td { padding: 0 12px 0 0; vertical-align: top; }
.tkc-details td:first-child { color: #5f6368; }
.tkc-tip .tkc-warn, .tkc-details .tkc-warn { color: #d93025; }
.tkc-shot { position: absolute; pointer-events: none; display: none; background: #fff; border: 1px solid #dadce0; border-radius: 4px; box-shadow: 0 1px 4px rgba(0,0,0,.2); padding: 4px; z-index: 3; }
.tkc-shot canvas { display: block; position: static; }
.tkc-shot div { color: #5f6368; font-size: 11px; padding-top: 2px; }
`;

  function element(tag, className, parent) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (parent) parent.appendChild(e);
    return e;
  }

  /**
   * The chart, drawn into `container` (which it fills; give it a height).
   * `model` is what `decode` returns.
   */
  class FlameChart {
    constructor(container, model) {
      this.model = model;
      this.labels = model.labels;
      this.showAll = false;
      this.collapsed = model.lanes.map((lane) => lane.folded);
      this.tracks = pageTracks(model.page);
      this.trackCollapsed = this.tracks.map(() => false);
      this.bitmaps = [];
      this.viewStart = model.view[0];
      this.viewEnd = model.view[1];
      this.scrollTop = 0;
      this.hovered = null;
      this.selected = null;
      this.query = '';
      this.labelMatches = null;
      this.matchCount = 0;
      this.matchCursor = null;
      /** Milliseconds each frame took to draw, the last 200. */
      this.frameTimes = [];
      /** The axis labels of the last frame. */
      this.axisLabels = [];
      this.mouse = null;
      this.textWidths = new Float32Array(this.labels.count).fill(-1);
      // Rectangles to fill, by colour: x, y, width triples.
      this.rects = model.colors.map(() => new Rects());
      this.fadedRects = model.colors.map(() => new Rects());
      this.matchLayouts = null;
      this.indexCauses();
      /** The arrows of the last frame: initiator to initiated, around the selected bar. */
      this.arrows = [];
      this.buildDom(container);
      this.layOutLanes();
      this.resize();
      this.draw();
      this.listen();
      this.loadImages();
    }

    /**
     * The warnings by lane (node -> bits, and the nodes in time order for
     * drawing) and the initiators' links by their ends.
     */
    indexCauses() {
      const w = this.model.warnings;
      this.warnings = this.model.lanes.map(() => ({ bits: new Map(), nodes: [] }));
      for (let i = 0; i < w.count; i++) {
        const lane = this.warnings[w.lane[i]];
        if (!lane) continue;
        lane.bits.set(w.node[i], (lane.bits.get(w.node[i]) || 0) | w.kinds[i]);
        lane.nodes.push(w.node[i]);
      }
      const l = this.model.links;
      this.initiatorOf = new Map();
      this.initiated = new Map();
      for (let i = 0; i < l.count; i++) {
        const from = `${l.fromLane[i]}:${l.fromNode[i]}`;
        const to = `${l.toLane[i]}:${l.toNode[i]}`;
        this.initiatorOf.set(to, i);
        if (!this.initiated.has(from)) this.initiated.set(from, []);
        this.initiated.get(from).push(i);
      }
    }

    /** The warnings' texts of a node. */
    warningsOf(lane, node) {
      const bits = this.warnings[lane] ? this.warnings[lane].bits.get(node) || 0 : 0;
      return WARNINGS.filter(([bit]) => bits & bit).map(([, text]) => text);
    }

    /**
     * The links to draw for a selected node, as the panel draws them: the
     * chain of its initiators (its initiator, that one's, ...) and the
     * events it initiated.
     */
    linksOf(lane, node) {
      const l = this.model.links;
      const out = [];
      const seen = new Set();
      let at = `${lane}:${node}`;
      while (this.initiatorOf.has(at) && !seen.has(at)) {
        seen.add(at);
        const i = this.initiatorOf.get(at);
        out.push(i);
        at = `${l.fromLane[i]}:${l.fromNode[i]}`;
      }
      for (const i of this.initiated.get(`${lane}:${node}`) || []) out.push(i);
      return out;
    }

    /**
     * Removes the chart from the page and stops listening to the window,
     * for a page that shows another trace in its place.
     */
    destroy() {
      this.stopListening.abort();
      this.resizeObserver?.disconnect();
      this.root.remove();
    }

    buildDom(container) {
      if (!document.getElementById('tkc-style')) {
        const style = element('style', null, document.head);
        style.id = 'tkc-style';
        style.textContent = CSS;
      }
      const root = element('div', 'tkc', container);
      this.root = root;
      const bar = element('div', 'tkc-bar', root);
      this.searchBox = element('input', null, bar);
      this.searchBox.type = 'search';
      this.searchBox.placeholder = 'Search names and URLs';
      this.searchBox.title = 'Enter: next match, Shift+Enter: previous, Escape: clear';
      this.countText = element('span', 'tkc-count', bar);
      this.resetButton = element('button', null, bar);
      this.resetButton.textContent = 'Reset zoom (0)';
      const all = element('label', null, bar);
      this.showAllBox = element('input', null, all);
      this.showAllBox.type = 'checkbox';
      all.appendChild(document.createTextNode(' Show all events'));
      const help = element('span', 'tkc-help', bar);
      help.textContent = 'Zoom: wheel, W/S · Pan: drag, A/D · Reset: 0 · Click: pin · /: search';
      help.title =
        'Zoom: the wheel, W and S, or a pinch (ctrl+wheel). Pan: drag, A and D, or a sideways wheel. ' +
        'Scroll: the scrollbar, a vertical drag, or shift+wheel. Reset: 0. ' +
        'Click a bar to pin its details (Escape: unpin), a lane header to fold the lane.';
      this.main = element('div', 'tkc-main', root);
      this.main.tabIndex = 0;
      this.canvas = element('canvas', null, this.main);
      this.scroller = element('div', 'tkc-scroll', this.main);
      this.spacer = element('div', null, this.scroller);
      this.tip = element('div', 'tkc-tip', this.main);
      // The screenshot at the pointer's time.
      this.shot = element('div', 'tkc-shot', this.main);
      this.shotCanvas = element('canvas', null, this.shot);
      this.shotTime = element('div', null, this.shot);
      this.shotShown = -1;
      this.details = element('div', 'tkc-details', root);
      this.details.textContent = 'Click a bar to pin its details.';
      this.ctx = this.canvas.getContext('2d');
    }

    /** Lays out every lane's levels and where each lane is. */
    layOutLanes() {
      this.layouts = this.model.lanes.map((lane) => layOut(lane, this.labels, this.showAll));
      this.placeLanes();
      if (this.labelMatches) this.findMatches();
    }

    placeLanes() {
      // The page's tracks first, then the lanes.
      this.trackTops = [];
      let y = 0;
      this.tracks.forEach((track, i) => {
        this.trackTops.push(y);
        y += this.trackHeight(i);
      });
      this.lanesTop = y;
      this.laneTops = [];
      this.model.lanes.forEach((lane, i) => {
        this.laneTops.push(y);
        y += this.laneHeight(i);
      });
      this.contentHeight = y;
      this.spacer.style.height = `${AXIS_HEIGHT + y}px`;
    }

    laneHeight(i) {
      if (this.collapsed[i]) return HEADER_HEIGHT;
      return HEADER_HEIGHT + this.layouts[i].levels * ROW_HEIGHT + LANE_PADDING;
    }

    resize() {
      const width = this.scroller.clientWidth;
      const height = this.main.clientHeight;
      const ratio = window.devicePixelRatio || 1;
      this.width = width;
      this.height = height;
      this.canvas.width = Math.max(1, Math.round(width * ratio));
      this.canvas.height = Math.max(1, Math.round(height * ratio));
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
      this.ratio = ratio;
    }

    listen() {
      const scroller = this.scroller;
      scroller.addEventListener('scroll', () => {
        this.scrollTop = scroller.scrollTop;
        this.invalidate();
      });
      scroller.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
      scroller.addEventListener('mousedown', (e) => this.onMouseDown(e));
      scroller.addEventListener('mousemove', (e) => {
        if (!this.drag) this.onHover(e);
      });
      scroller.addEventListener('mouseleave', () => {
        this.mouse = null;
        this.setHovered(null);
        this.placeShot(null);
      });
      // What listens to the window stops with destroy().
      this.stopListening = new AbortController();
      const { signal } = this.stopListening;
      window.addEventListener('mousemove', (e) => this.onDrag(e), { signal });
      window.addEventListener('mouseup', (e) => this.onMouseUp(e), { signal });
      window.addEventListener('keydown', (e) => this.onKey(e), { signal });
      this.resetButton.addEventListener('click', () => this.resetView());
      this.showAllBox.addEventListener('change', () => {
        this.showAll = this.showAllBox.checked;
        // Nodes keep their indices: the pinned one stays pinned.
        this.hovered = null;
        this.layOutLanes();
        this.invalidate();
      });
      let timer = 0;
      this.searchBox.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.search(this.searchBox.value), 120);
      });
      this.searchBox.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') {
          clearTimeout(timer);
          if (this.query !== this.searchBox.value.trim().toLowerCase()) this.search(this.searchBox.value);
          this.nextMatch(e.shiftKey ? -1 : 1);
          e.preventDefault();
        } else if (e.key === 'Escape') {
          this.searchBox.value = '';
          this.search('');
          this.searchBox.blur();
        }
      });
      if (typeof ResizeObserver === 'function') {
        this.resizeObserver = new ResizeObserver(() => {
          this.resize();
          this.draw();
        });
        this.resizeObserver.observe(this.main);
      }
    }

    /** Asks for a frame (several asks, one frame). */
    invalidate() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.draw();
      });
    }

    // ---- The view -------------------------------------------------------

    /** The view, in ms from the start of the trace. */
    view() {
      return { start: this.viewStart / 1000, end: this.viewEnd / 1000 };
    }

    /** Shows `startMs..endMs` (ms from the start of the trace). */
    setView(startMs, endMs) {
      this.setViewUs(startMs * 1000, endMs * 1000);
    }

    setViewUs(start, end) {
      const [b0, b1] = this.model.view;
      const maxSpan = 10 * Math.max(b1 - b0, MIN_SPAN);
      let span = Math.min(Math.max(end - start, MIN_SPAN), maxSpan);
      const centre = (start + end) / 2;
      start = centre - span / 2;
      end = centre + span / 2;
      // Keep some of the data in view.
      const lo = b0 - span * 0.9;
      const hi = b1 + span * 0.9;
      if (start < lo) [start, end] = [lo, lo + span];
      if (end > hi) [start, end] = [hi - span, hi];
      this.viewStart = start;
      this.viewEnd = end;
      this.invalidate();
    }

    resetView() {
      this.setViewUs(this.model.view[0], this.model.view[1]);
    }

    /** Zooms by `factor` (< 1: in) around the time at x `anchorX` (px). */
    zoom(factor, anchorX) {
      const span = this.viewEnd - this.viewStart;
      const x = anchorX === undefined ? this.width / 2 : anchorX;
      const t = this.viewStart + (x / this.width) * span;
      const newSpan = span * factor;
      this.setViewUs(t - (x / this.width) * newSpan, t + (1 - x / this.width) * newSpan);
    }

    /** Pans by `dx` pixels (positive: later). */
    pan(dx) {
      const shift = (dx / this.width) * (this.viewEnd - this.viewStart);
      this.setViewUs(this.viewStart + shift, this.viewEnd + shift);
    }

    scrollBy(dy) {
      this.scroller.scrollTop += dy;
    }

    /** Scrolls so that lane `i` is at the top. */
    scrollToLane(i) {
      this.scroller.scrollTop = this.laneTops[i];
      this.scrollTop = this.scroller.scrollTop;
      this.draw();
    }

    /**
     * Where things are on the canvas (CSS px, at the current scroll): per
     * lane, its top, height, header and levels.
     */
    geometry() {
      return {
        width: this.width,
        height: this.height,
        axisHeight: AXIS_HEIGHT,
        headerHeight: HEADER_HEIGHT,
        rowHeight: ROW_HEIGHT,
        barHeight: BAR_HEIGHT,
        lanesTop: this.screenY(this.lanesTop),
        tracks: this.tracks.map((track, i) => ({
          kind: track.kind,
          title: track.title,
          top: this.screenY(this.trackTops[i]),
          height: this.trackHeight(i),
          rows: this.trackCollapsed[i] ? 0 : track.rows.length,
          rowsTop: track.rowsTop,
          rowHeight: track.rowHeight,
          collapsed: this.trackCollapsed[i],
        })),
        lanes: this.model.lanes.map((lane, i) => ({
          top: this.screenY(this.laneTops[i]),
          height: this.laneHeight(i),
          levels: this.collapsed[i] ? 0 : this.layouts[i].levels,
          collapsed: this.collapsed[i],
        })),
      };
    }

    screenY(contentY) {
      return AXIS_HEIGHT + contentY - this.scrollTop;
    }

    // ---- Input ----------------------------------------------------------

    onWheel(e) {
      e.preventDefault();
      const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.height : 1;
      const dx = e.deltaX * scale;
      const dy = e.deltaY * scale;
      const x = e.offsetX;
      if (e.ctrlKey || e.metaKey) {
        // A pinch (Chrome sends it as a wheel with ctrl).
        this.zoom(Math.exp(dy * 0.01), x);
      } else if (e.shiftKey) {
        this.scrollBy(dy || dx);
      } else if (Math.abs(dx) > Math.abs(dy)) {
        this.pan(dx);
      } else {
        this.zoom(Math.exp(dy * 0.002), x);
      }
    }

    onMouseDown(e) {
      if (e.button !== 0) return;
      this.main.focus({ preventScroll: true });
      // The point on the canvas as the hover finds it: from the scroller's
      // box (an event's offsetY is relative to whichever element is under
      // the pointer, which may be the scrolled content).
      const rect = this.scroller.getBoundingClientRect();
      this.drag = {
        x: e.clientX,
        y: e.clientY,
        moved: false,
        offsetX: e.clientX - rect.left,
        offsetY: e.clientY - rect.top,
      };
      e.preventDefault();
    }

    onDrag(e) {
      const drag = this.drag;
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 3) return;
      if (!drag.moved) {
        drag.moved = true;
        this.scroller.classList.add('tkc-dragging');
        this.setHovered(null);
      }
      drag.x = e.clientX;
      drag.y = e.clientY;
      this.pan(-dx);
      this.scrollBy(-dy);
    }

    onMouseUp(e) {
      const drag = this.drag;
      if (!drag) return;
      this.drag = null;
      this.scroller.classList.remove('tkc-dragging');
      if (!drag.moved) this.onClick(drag.offsetX, drag.offsetY);
      else this.onHover(e);
    }

    onClick(x, y) {
      const hit = this.hitTest(x, y);
      if (hit && hit.header) {
        if (hit.track !== undefined) this.trackCollapsed[hit.track] = !this.trackCollapsed[hit.track];
        else this.collapsed[hit.lane] = !this.collapsed[hit.lane];
        this.placeLanes();
        this.invalidate();
        return;
      }
      this.pin(hit && !hit.header ? hit : null);
    }

    onHover(e) {
      const rect = this.scroller.getBoundingClientRect();
      const x = e.clientX - rect.left;
      const y = e.clientY - rect.top;
      this.mouse = { x, y };
      const hit = this.hitTest(x, y);
      this.setHovered(hit && !hit.header ? hit : null, x, y);
    }

    onKey(e) {
      // Keys typed into a text field are its own.
      const target = e.target;
      const typing =
        target &&
        (target.isContentEditable ||
          target.tagName === 'TEXTAREA' ||
          (target.tagName === 'INPUT' && !['checkbox', 'button', 'radio'].includes(target.type)));
      if (typing) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const x = this.mouse ? this.mouse.x : undefined;
      switch (e.key.toLowerCase()) {
        case 'w':
          this.zoom(0.8, x);
          break;
        case 's':
          this.zoom(1.25, x);
          break;
        case 'a':
          this.pan(-this.width * 0.1);
          break;
        case 'd':
          this.pan(this.width * 0.1);
          break;
        case '0':
          this.resetView();
          break;
        case '/':
          this.searchBox.focus();
          break;
        case 'escape':
          this.pin(null);
          break;
        default:
          return;
      }
      e.preventDefault();
    }

    // ---- Finding nodes --------------------------------------------------

    /**
     * What is at (x, y) on the canvas: `{lane, header: true}` on a lane's
     * header, `{lane, node}` on a bar, else null.
     */
    hitTest(x, y) {
      if (y < AXIS_HEIGHT) return null;
      const contentY = y - AXIS_HEIGHT + this.scrollTop;
      if (contentY < this.lanesTop) return this.hitTrack(x, contentY);
      const lane = lowerBound(this.laneTops, 0, this.laneTops.length, contentY + 1) - 1;
      if (lane < 0) return null;
      const within = contentY - this.laneTops[lane];
      if (within >= this.laneHeight(lane)) return null;
      if (within < HEADER_HEIGHT) return { lane, header: true };
      if (this.collapsed[lane]) return null;
      const level = Math.floor((within - HEADER_HEIGHT) / ROW_HEIGHT);
      const layout = this.layouts[lane];
      if (level >= layout.levels) return null;
      const k = this.width / (this.viewEnd - this.viewStart);
      const t = this.viewStart + x / k;
      // A bar narrower than a pixel is found from up to 2 px away.
      const slack = 2 / k;
      const data = this.model.lanes[lane];
      const from = layout.offsets[level];
      const to = layout.offsets[level + 1];
      let best = -1;
      let bestDistance = Infinity;
      for (let p = lowerBound(layout.maxEnd, from, to, t - slack); p < to; p++) {
        const i = layout.order[p];
        const start = data.start[i];
        if (start > t + slack) break;
        const end = start + data.dur[i];
        const distance = t < start ? start - t : t > end ? t - end : 0;
        if (distance < bestDistance) {
          best = i;
          bestDistance = distance;
          if (distance === 0) break;
        }
      }
      return best >= 0 && bestDistance <= slack ? { lane, node: best } : null;
    }

    /** A node's name, location and times, as the tooltip and details show them. */
    describe(lane, node) {
      const data = this.model.lanes[lane];
      const labels = this.labels;
      const label = data.label[node];
      let location = '';
      if (labels.js[label]) {
        // Lines and columns count from 1, as DevTools shows them (the
        // profile's count from 0); an unknown one (-1) is left out.
        const line = labels.line[label];
        const column = labels.column[label];
        location = labels.url[label];
        if (line >= 0) {
          location += `:${line + 1}`;
          if (column >= 0) location += `:${column + 1}`;
        }
      }
      const self = data.self[node];
      return {
        name: labels.name[label],
        detail: data.details[node] || '',
        location,
        category: labels.category[label],
        js: labels.js[label] === 1,
        start: ms(data.start[node]),
        total: ms(data.dur[node]),
        self: Number.isNaN(self) ? '' : ms(self),
        depth: data.depth[node],
      };
    }

    setHovered(hit, x, y) {
      const was = this.hovered;
      const same =
        hit && was
          ? hit.lane === was.lane && hit.node === was.node && hit.track === was.track && hit.item === was.item
          : !hit && !was;
      if (!same) {
        this.hovered = hit;
        this.invalidate();
      }
      const tip = this.tip;
      if (!hit) {
        tip.style.display = 'none';
        this.placeShot(x === undefined ? null : { x, y, tip: null });
        return;
      }
      if (!same) {
        tip.textContent = '';
        if (hit.track !== undefined) {
          for (const [className, text] of this.describeItem(hit.track, hit.item).tip) {
            element('div', className, tip).textContent = text;
          }
        } else {
          const d = this.describe(hit.lane, hit.node);
          element('div', 'tkc-name', tip).textContent = d.name;
          if (d.detail) element('div', 'tkc-url', tip).textContent = d.detail;
          if (d.location) element('div', 'tkc-url', tip).textContent = d.location;
          element('div', 'tkc-times', tip).textContent =
            `start ${d.start} · total ${d.total}` + (d.self ? ` · self ${d.self}` : '');
          for (const warning of this.warningsOf(hit.lane, hit.node)) element('div', 'tkc-warn', tip).textContent = warning;
        }
        tip.style.display = 'block';
      }
      // Beside the pointer, inside the chart.
      const w = tip.offsetWidth;
      const h = tip.offsetHeight;
      let left = x + 12;
      let top = y + 16;
      if (left + w > this.width) left = Math.max(0, x - w - 12);
      if (top + h > this.height) top = Math.max(0, y - h - 8);
      tip.style.left = `${left}px`;
      tip.style.top = `${top}px`;
      this.placeShot({ x, y, tip: { left, top, w, h } });
    }

    /** Pins a node's details below the chart (null: unpins). */
    pin(hit) {
      this.selected = hit;
      this.invalidate();
      const details = this.details;
      details.textContent = '';
      if (!hit) {
        details.textContent = 'Click a bar to pin its details.';
        return;
      }
      const table = element('table', null, details);
      const row = (key, value, className) => {
        if (!value && value !== 0) return;
        const tr = element('tr', null, table);
        element('td', null, tr).textContent = key;
        element('td', className, tr).textContent = value;
      };
      if (hit.track !== undefined) {
        for (const [key, value, className] of this.describeItem(hit.track, hit.item).details) row(key, value, className);
        return;
      }
      const d = this.describe(hit.lane, hit.node);
      const lane = this.model.lanes[hit.lane];
      row('Name', d.name, 'tkc-name');
      row('Detail', d.detail, 'tkc-url');
      row(d.js ? 'Function at' : '', d.location, 'tkc-url');
      row('Category', d.category);
      row('Start', d.start);
      row('Total', d.total);
      row('Self', d.self);
      row('Depth', String(d.depth));
      row('Thread', `${lane.thread || 'tid ' + lane.tid} (${lane.process || 'process'} ${lane.pid})`);
      for (const warning of this.warningsOf(hit.lane, hit.node)) row('Warning', warning, 'tkc-warn');
      const links = this.model.links;
      const at = `${hit.lane}:${hit.node}`;
      if (this.initiatorOf.has(at)) {
        const i = this.initiatorOf.get(at);
        row('Initiated by', this.describe(links.fromLane[i], links.fromNode[i]).name);
      }
      const initiated = this.initiated.get(at) || [];
      if (initiated.length > 0) {
        const names = initiated.map((i) => this.describe(links.toLane[i], links.toNode[i]).name);
        row('Initiated', names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', '));
      }
    }

    // ---- Search ---------------------------------------------------------

    /** Highlights the nodes whose name or URL holds `text` (any case). */
    search(text) {
      const query = text.trim().toLowerCase();
      this.query = query;
      this.matchCursor = null;
      if (!query) {
        this.labelMatches = null;
        this.matchLayouts = null;
        this.matchCount = 0;
        this.countText.textContent = '';
        this.invalidate();
        return;
      }
      const labels = this.labels;
      const matches = new Uint8Array(labels.count);
      for (let l = 0; l < labels.count; l++) {
        if (labels.name[l].toLowerCase().includes(query) || labels.url[l].toLowerCase().includes(query)) {
          matches[l] = 1;
        }
      }
      this.labelMatches = matches;
      this.findMatches();
      this.invalidate();
    }

    /** The layouts of the matches of each lane, and their count. */
    findMatches() {
      const matches = this.labelMatches;
      this.matchLayouts = this.model.lanes.map((lane, i) => matchesOf(this.layouts[i], lane, matches));
      const count = this.matchLayouts.reduce((sum, m) => sum + m.order.length, 0);
      this.matchCount = count;
      this.countText.textContent = `${count} match${count === 1 ? '' : 'es'}`;
    }

    /** Shows and pins the next (`step` 1) or previous (-1) match, lane by lane in time order. */
    nextMatch(step) {
      if (!this.labelMatches || this.matchCount === 0) return;
      const lanes = this.model.lanes;
      let lane = this.matchCursor ? this.matchCursor.lane : step > 0 ? 0 : lanes.length - 1;
      let node = this.matchCursor ? this.matchCursor.node + step : step > 0 ? 0 : lanes[lane].count - 1;
      for (let tries = 0; tries <= lanes.length; ) {
        const data = lanes[lane];
        const level = this.layouts[lane].level;
        for (; node >= 0 && node < data.count; node += step) {
          if (level[node] >= 0 && this.labelMatches[data.label[node]]) {
            this.matchCursor = { lane, node };
            this.reveal(lane, node);
            this.pin({ lane, node });
            return;
          }
        }
        lane = (lane + step + lanes.length) % lanes.length;
        node = step > 0 ? 0 : lanes[lane].count - 1;
        tries++;
      }
    }

    /** Zooms to a node (with a margin) and scrolls its level into view. */
    reveal(lane, node) {
      const data = this.model.lanes[lane];
      const start = data.start[node];
      const dur = Math.max(data.dur[node], MIN_SPAN);
      this.setViewUs(start - dur * 0.25, start + dur * 1.25);
      if (this.collapsed[lane]) {
        this.collapsed[lane] = false;
        this.placeLanes();
      }
      const y = this.laneTops[lane] + HEADER_HEIGHT + this.layouts[lane].level[node] * ROW_HEIGHT;
      const visible = this.height - AXIS_HEIGHT;
      if (y < this.scrollTop || y + ROW_HEIGHT > this.scrollTop + visible) {
        this.scroller.scrollTop = Math.max(0, y - visible / 3);
        this.scrollTop = this.scroller.scrollTop;
      }
    }

    // ---- Drawing --------------------------------------------------------

    draw() {
      const began = performance.now();
      const ctx = this.ctx;
      ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
      ctx.fillStyle = BACKGROUND;
      ctx.fillRect(0, 0, this.width, this.height);
      const ticks = this.ticks();
      this.drawGrid(ticks);
      for (let i = 0; i < this.tracks.length; i++) {
        const top = this.screenY(this.trackTops[i]);
        if (top + this.trackHeight(i) < AXIS_HEIGHT || top > this.height) continue;
        this.drawTrack(i, top);
      }
      for (let i = 0; i < this.model.lanes.length; i++) {
        const top = this.screenY(this.laneTops[i]);
        const height = this.laneHeight(i);
        if (top + height < AXIS_HEIGHT || top > this.height) continue;
        this.drawLane(i, top);
      }
      this.drawMarkerLines();
      this.drawArrows();
      this.drawAxis(ticks);
      // The view moved under a still pointer: what it points at changed.
      if (this.mouse && !this.drag) {
        const hit = this.hitTest(this.mouse.x, this.mouse.y);
        this.setHovered(hit && !hit.header ? hit : null, this.mouse.x, this.mouse.y);
      }
      const took = performance.now() - began;
      this.frameTimes.push(took);
      if (this.frameTimes.length > 200) this.frameTimes.shift();
      if (!this.drawnOnce) {
        this.drawnOnce = true;
        performance.mark('tracekit-chart:first-draw');
      }
    }

    /** The axis ticks: a round step about 100 px apart, in µs. */
    ticks() {
      const span = this.viewEnd - this.viewStart;
      const step = niceStep((span / Math.max(this.width, 1)) * 100);
      const first = Math.ceil(this.viewStart / step) * step;
      const decimals = Math.max(0, Math.ceil(-Math.log10(step / 1000)));
      const ticks = [];
      for (let t = first; t <= this.viewEnd; t += step) {
        ticks.push({ x: ((t - this.viewStart) / span) * this.width, text: `${(t / 1000).toFixed(decimals)} ms` });
      }
      return ticks;
    }

    drawGrid(ticks) {
      const ctx = this.ctx;
      ctx.fillStyle = '#eceef1';
      for (const tick of ticks) ctx.fillRect(Math.round(tick.x), AXIS_HEIGHT, 1, this.height - AXIS_HEIGHT);
    }

    drawAxis(ticks) {
      const ctx = this.ctx;
      ctx.fillStyle = '#f8f9fa';
      ctx.fillRect(0, 0, this.width, AXIS_HEIGHT);
      ctx.fillStyle = '#dadce0';
      ctx.fillRect(0, AXIS_HEIGHT - 1, this.width, 1);
      ctx.font = FONT;
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#5f6368';
      const labels = [];
      for (const tick of ticks) {
        ctx.fillRect(Math.round(tick.x), AXIS_HEIGHT - 6, 1, 5);
        ctx.fillText(tick.text, Math.round(tick.x) + 3, AXIS_HEIGHT / 2 - 1);
        labels.push(tick.text);
      }
      this.axisLabels = labels;
      this.canvas.dataset.axis = labels.join(' ');
    }

    drawLane(i, top) {
      const ctx = this.ctx;
      const lane = this.model.lanes[i];
      const layout = this.layouts[i];
      // The header: which thread of which process.
      ctx.fillStyle = '#f1f3f4';
      ctx.fillRect(0, top, this.width, HEADER_HEIGHT);
      ctx.fillStyle = '#dadce0';
      ctx.fillRect(0, top + HEADER_HEIGHT - 1, this.width, 1);
      ctx.font = FONT;
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#202124';
      const thread = lane.thread || `tid ${lane.tid}`;
      const process = `${lane.process || 'process'} ${lane.pid}`;
      const url = lane.url ? ` · ${lane.url}${lane.mainFrame ? ' (main frame)' : ''}` : '';
      const arrow = this.collapsed[i] ? '▸' : '▾';
      ctx.font = `600 ${FONT}`;
      const head = `${arrow} ${thread}`;
      ctx.fillText(head, 6, top + HEADER_HEIGHT / 2);
      const headWidth = ctx.measureText(head).width;
      ctx.font = FONT;
      ctx.fillStyle = '#5f6368';
      ctx.fillText(`— ${process}${url}`, 12 + headWidth, top + HEADER_HEIGHT / 2);
      if (this.collapsed[i]) return;
      const levelsTop = top + HEADER_HEIGHT;
      const firstLevel = Math.max(0, Math.floor((AXIS_HEIGHT - levelsTop) / ROW_HEIGHT));
      const lastLevel = Math.min(layout.levels - 1, Math.floor((this.height - levelsTop) / ROW_HEIGHT));
      const texts = [];
      const rects = this.rects;
      for (const list of rects) list.count = 0;
      if (this.matchLayouts) {
        // Searching: every bar faded, then the matches on top (their own
        // pass, so that a match merged under a faded pixel still shows).
        const faded = this.fadedRects;
        for (const list of faded) list.count = 0;
        this.collectBars(lane, layout, levelsTop, firstLevel, lastLevel, faded, texts);
        ctx.globalAlpha = 0.22;
        this.fillRects(faded);
        ctx.globalAlpha = 1;
        this.collectBars(lane, this.matchLayouts[i], levelsTop, firstLevel, lastLevel, rects, null);
      } else {
        this.collectBars(lane, layout, levelsTop, firstLevel, lastLevel, rects, texts);
      }
      this.fillRects(rects);
      this.drawWarnings(i, levelsTop, firstLevel, lastLevel);
      this.drawTexts(lane, texts);
      this.drawOutline(i, levelsTop, this.hovered, '#202124', 1);
      this.drawOutline(i, levelsTop, this.selected, '#1a73e8', 2);
    }

    /**
     * The rectangles of the bars of `layout` (a lane's, or its matches')
     * on levels `firstLevel..lastLevel` in view, by colour, as x, y, width
     * triples; and, when `texts` is given, the bars wide enough for a
     * name, as node, x, y, width.
     */
    collectBars(lane, layout, levelsTop, firstLevel, lastLevel, byColor, texts) {
      const t0 = this.viewStart;
      const t1 = this.viewEnd;
      const k = this.width / (t1 - t0);
      const { start, dur, label } = lane;
      const colors = this.labels.color;
      const { offsets, order, maxEnd } = layout;
      for (let v = firstLevel; v <= lastLevel; v++) {
        const y = levelsTop + v * ROW_HEIGHT;
        const to = offsets[v + 1];
        let p = lowerBound(maxEnd, offsets[v], to, t0);
        while (p < to) {
          const node = order[p];
          const s = start[node];
          if (s > t1) break;
          const x = (s - t0) * k;
          const w = dur[node] * k;
          const list = byColor[colors[label[node]]];
          if (w < MERGE_WIDTH) {
            // This node and the next ones under the same pixel: one pixel.
            const px = Math.floor(x);
            list.add(px, y, px + 1);
            p = gallop(maxEnd, p + 1, to, t0 + (px + 1) / k);
            continue;
          }
          // Clip to the canvas, so that huge zooms keep small numbers.
          const x0 = Math.max(x, -1);
          const x1 = Math.min(x + w, this.width + 1);
          // Half a pixel left out between neighbours, as the panel does, so
          // that a run of calls does not look like one; narrow bars, whose
          // gaps would only be noise, join their neighbours of a colour.
          if (x1 - x0 < NARROW_WIDTH) list.add(x0, y, x1);
          else list.push(x0, y, x1 - x0 - 0.5);
          if (texts && x1 - x0 >= TEXT_MIN_WIDTH) texts.push(node, x0, y, x1 - x0);
          p++;
        }
      }
    }

    fillRects(byColor) {
      const ctx = this.ctx;
      const colors = this.model.colors;
      for (let c = 0; c < byColor.length; c++) {
        const list = byColor[c];
        if (list.count === 0) continue;
        const d = list.data;
        ctx.fillStyle = colors[c];
        ctx.beginPath();
        for (let j = 0; j < list.count * 3; j += 3) ctx.rect(d[j], d[j + 1], d[j + 2], BAR_HEIGHT);
        ctx.fill();
      }
    }

    drawTexts(lane, texts) {
      const ctx = this.ctx;
      const labels = this.labels;
      ctx.font = FONT;
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#202124';
      for (let j = 0; j < texts.length; j += 4) {
        const l = lane.label[texts[j]];
        const x = texts[j + 1];
        const y = texts[j + 2];
        const room = texts[j + 3] - 2 * TEXT_PADDING;
        const name = labels.name[l];
        ctx.fillStyle = this.labelMatches && !this.labelMatches[l] ? '#9aa0a6' : '#202124';
        if (this.textWidths[l] < 0) this.textWidths[l] = ctx.measureText(name).width;
        let text = name;
        if (this.textWidths[l] > room) {
          // Cut to what fits, by the average width of its characters,
          // then by measure; a name cut shorter than a few characters
          // says nothing, and is left out.
          let kept = Math.floor((room / this.textWidths[l]) * name.length) - 1;
          text = `${name.slice(0, kept)}…`;
          while (kept >= MIN_TEXT_CHARS && ctx.measureText(text).width > room) {
            kept--;
            text = `${name.slice(0, kept)}…`;
          }
          if (kept < MIN_TEXT_CHARS) continue;
        }
        ctx.fillText(text, Math.max(x, 0) + TEXT_PADDING, y + BAR_HEIGHT / 2 + 1);
      }
    }

    /**
     * The warnings of a lane's bars in view, as the panel marks them: a red
     * triangle in the top-right corner, and a long task striped red past
     * its first 50 ms.
     */
    drawWarnings(i, levelsTop, firstLevel, lastLevel) {
      const nodes = this.warnings[i].nodes;
      if (nodes.length === 0) return;
      const ctx = this.ctx;
      const lane = this.model.lanes[i];
      const level = this.layouts[i].level;
      const k = this.width / (this.viewEnd - this.viewStart);
      for (const node of nodes) {
        const v = level[node];
        if (v < firstLevel || v > lastLevel) continue;
        const start = lane.start[node];
        const end = start + lane.dur[node];
        if (end < this.viewStart || start > this.viewEnd) continue;
        const y = levelsTop + v * ROW_HEIGHT;
        const x0 = Math.max((start - this.viewStart) * k, -1);
        const x1 = Math.min((end - this.viewStart) * k, this.width + 1);
        const bits = this.warnings[i].bits.get(node);
        if (bits & 1 && lane.dur[node] > LONG_TASK) {
          if (!this.candyStripes) this.candyStripes = stripes('rgba(255, 0, 0, 0.8)', 6, 2.5);
          const from = Math.max((start + LONG_TASK - this.viewStart) * k, -1);
          if (x1 > from) {
            ctx.fillStyle = this.candyStripes;
            ctx.fillRect(from, y, x1 - from - 0.5, BAR_HEIGHT);
          }
        }
        const size = Math.min(8, x1 - x0);
        if (size < 2) continue;
        ctx.fillStyle = WARNING_RED;
        ctx.beginPath();
        ctx.moveTo(x1 - size - 0.5, y);
        ctx.lineTo(x1 - 0.5, y);
        ctx.lineTo(x1 - 0.5, y + size);
        ctx.fill();
      }
    }

    /** Where a node's bar is on the canvas ({x0, x1, y}), or null when it is not drawn. */
    barBox(lane, node) {
      if (this.collapsed[lane]) return null;
      const level = this.layouts[lane].level[node];
      if (level < 0) return null;
      const data = this.model.lanes[lane];
      const k = this.width / (this.viewEnd - this.viewStart);
      const x0 = (data.start[node] - this.viewStart) * k;
      const x1 = x0 + Math.max(data.dur[node] * k, 1);
      const y = this.screenY(this.laneTops[lane]) + HEADER_HEIGHT + level * ROW_HEIGHT;
      return { x0, x1, y };
    }

    /**
     * With a bar selected, the panel's arrows: from each initiator to what
     * it initiated, up the chain of the bar's initiators and down to the
     * events it initiated. An arrow leaves its initiator's bar at its end
     * (at its start when the initiated bar starts before that end) and
     * comes into the initiated bar at its start.
     */
    drawArrows() {
      this.arrows = [];
      const hit = this.selected;
      if (!hit || hit.track !== undefined || this.model.links.count === 0) return;
      const l = this.model.links;
      const ctx = this.ctx;
      ctx.save();
      ctx.beginPath();
      ctx.rect(0, AXIS_HEIGHT, this.width, this.height - AXIS_HEIGHT);
      ctx.clip();
      ctx.strokeStyle = ARROW_COLOR;
      ctx.fillStyle = ARROW_COLOR;
      ctx.lineWidth = 1;
      for (const i of this.linksOf(hit.lane, hit.node)) {
        const from = this.barBox(l.fromLane[i], l.fromNode[i]);
        const to = this.barBox(l.toLane[i], l.toNode[i]);
        if (!from || !to) continue;
        const x1 = from.x1 <= to.x0 ? from.x1 : from.x0 + Math.min(4, (from.x1 - from.x0) / 2);
        const y1 = from.y + BAR_HEIGHT / 2;
        const x2 = to.x0;
        const y2 = to.y + BAR_HEIGHT / 2;
        this.arrows.push({
          from: { lane: l.fromLane[i], node: l.fromNode[i] },
          to: { lane: l.toLane[i], node: l.toNode[i] },
          x1,
          y1,
          x2,
          y2,
        });
        // An elbow: along the initiator's row, then down (or up) to the
        // initiated bar's row, then into its start.
        const elbow = Math.max(x1, Math.min(x2 - 6, x1 + (x2 - x1) / 2));
        ctx.beginPath();
        ctx.arc(x1, y1, 2.5, 0, 2 * Math.PI);
        ctx.fill();
        ctx.beginPath();
        ctx.moveTo(x1, y1);
        ctx.lineTo(elbow, y1);
        ctx.lineTo(elbow, y2);
        ctx.lineTo(x2, y2);
        ctx.stroke();
        // The head, pointing into the initiated bar.
        const dir = x2 >= elbow ? 1 : -1;
        ctx.beginPath();
        ctx.moveTo(x2, y2);
        ctx.lineTo(x2 - dir * 6, y2 - 4);
        ctx.lineTo(x2 - dir * 6, y2 + 4);
        ctx.closePath();
        ctx.fill();
      }
      ctx.restore();
    }

    drawOutline(i, levelsTop, hit, color, width) {
      if (!hit || hit.lane !== i) return;
      const level = this.layouts[i].level[hit.node];
      if (level < 0) return;
      const lane = this.model.lanes[i];
      const k = this.width / (this.viewEnd - this.viewStart);
      const x = (lane.start[hit.node] - this.viewStart) * k;
      const w = Math.max(lane.dur[hit.node] * k, 1);
      const x0 = Math.max(x, -width);
      const x1 = Math.min(x + w, this.width + width);
      if (x1 < 0 || x0 > this.width) return;
      const ctx = this.ctx;
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.strokeRect(x0 + width / 2, levelsTop + level * ROW_HEIGHT + width / 2, x1 - x0 - width, BAR_HEIGHT - width);
    }

    // ---- The page's tracks ----------------------------------------------

    trackHeight(i) {
      if (this.trackCollapsed[i]) return HEADER_HEIGHT;
      const track = this.tracks[i];
      return HEADER_HEIGHT + track.rows.length * track.rowHeight + LANE_PADDING;
    }

    /** The screenshots' images, decoded off the main thread; drawn as they come. */
    loadImages() {
      const page = this.model.page;
      if (!page || page.images.length === 0 || typeof createImageBitmap !== 'function') return;
      page.images.forEach((bytes, i) => {
        createImageBitmap(new Blob([bytes], { type: 'image/jpeg' })).then(
          (bitmap) => {
            this.bitmaps[i] = bitmap;
            this.invalidate();
          },
          () => {
            this.bitmaps[i] = null;
          },
        );
      });
    }

    /** The index of the screenshot showing at `t` (µs), or -1. */
    screenshotAt(t) {
      const shots = this.model.page ? this.model.page.screenshots : [];
      let lo = 0;
      let hi = shots.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (shots[mid].time <= t) lo = mid + 1;
        else hi = mid;
      }
      return lo - 1;
    }

    /**
     * Shows the screenshot at the pointer's time beside it (`at`: the
     * pointer and the tooltip's box, null: hides it).
     */
    placeShot(at) {
      const popup = this.shot;
      const i = at ? this.screenshotAt(this.viewStart + (at.x / this.width) * (this.viewEnd - this.viewStart)) : -1;
      const shot = i >= 0 ? this.model.page.screenshots[i] : null;
      const bitmap = shot ? this.bitmaps[shot.image] : null;
      if (!bitmap) {
        if (popup.style.display !== 'none') popup.style.display = 'none';
        this.shotShown = -1;
        return;
      }
      if (this.shotShown !== i) {
        this.shotShown = i;
        const scale = Math.min(SHOT_WIDTH / bitmap.width, SHOT_HEIGHT / bitmap.height);
        const w = Math.max(1, Math.round(bitmap.width * scale));
        const h = Math.max(1, Math.round(bitmap.height * scale));
        const canvas = this.shotCanvas;
        canvas.width = Math.round(w * this.ratio);
        canvas.height = Math.round(h * this.ratio);
        canvas.style.width = `${w}px`;
        canvas.style.height = `${h}px`;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        this.shotTime.textContent = ms(shot.time);
        popup.dataset.time = String(shot.time);
        popup.style.display = 'block';
      }
      // Above the tooltip (or the pointer), else below it.
      const w = popup.offsetWidth;
      const h = popup.offsetHeight;
      const tip = at.tip || { left: at.x + 12, top: at.y + 16, w: 0, h: 0 };
      let left = tip.left;
      if (left + w > this.width) left = Math.max(0, at.x - w - 12);
      let top = Math.min(tip.top, at.y) - h - 8;
      if (top < AXIS_HEIGHT) top = Math.max(tip.top + tip.h, at.y + 16) + 4;
      popup.style.left = `${left}px`;
      popup.style.top = `${Math.max(0, top)}px`;
    }

    /** What is at (x, contentY) among the page's tracks: a header, an item, or null. */
    hitTrack(x, contentY) {
      const t = lowerBound(this.trackTops, 0, this.trackTops.length, contentY + 1) - 1;
      if (t < 0) return null;
      const within = contentY - this.trackTops[t];
      if (within >= this.trackHeight(t)) return null;
      if (within < HEADER_HEIGHT) return { track: t, header: true };
      if (this.trackCollapsed[t]) return null;
      const track = this.tracks[t];
      const r = Math.floor((within - HEADER_HEIGHT) / track.rowHeight);
      if (r >= track.rows.length) return null;
      const k = this.width / (this.viewEnd - this.viewStart);
      const time = this.viewStart + x / k;
      // Diamonds over the clusters first.
      const rows = track.diamonds ? [track.diamonds, track.rows[r]] : [track.rows[r]];
      for (const row of rows) {
        const item = this.itemAt(track, row, time, k);
        if (item >= 0) return { track: t, item };
      }
      return null;
    }

    /** The item of a row at `time` (or the nearest within a few px), or -1. */
    itemAt(track, row, time, k) {
      const slack = INSTANT_SLACK / k;
      let best = -1;
      let bestDistance = Infinity;
      for (let p = lowerBound(row.maxEnd, 0, row.order.length, time - slack); p < row.order.length; p++) {
        const it = track.items[row.order[p]];
        if (it.s > time + slack) break;
        const distance = time < it.s ? it.s - time : time > it.e ? time - it.e : 0;
        // Instants are found by their middle, bars by their extent.
        const d = it.s === it.e ? Math.abs(time - it.s) : distance;
        if (d < bestDistance) {
          best = row.order[p];
          bestDistance = d;
        }
      }
      return bestDistance <= slack ? best : -1;
    }

    /**
     * An item's tooltip (lines of [class, text]) and details (rows of
     * [key, value, class]).
     */
    describeItem(t, i) {
      const track = this.tracks[t];
      const it = track.items[i];
      const tip = [];
      const details = [];
      const span = (a, b) => ms(b - a);
      switch (track.kind) {
        case 'network': {
          const priority = PRIORITY_NAMES[it.priority] || it.priority;
          const initial = PRIORITY_NAMES[it.initialPriority] || it.initialPriority;
          const priorityText = initial && initial !== priority ? `${initial} → ${priority}` : priority;
          const size = it.transferSize !== null ? `${bytesText(it.transferSize)} transferred` : '';
          const response = [it.status !== null ? String(it.status) : '', it.mimeType, size, it.fromCache ? '(from cache)' : '']
            .filter(Boolean)
            .join(' · ');
          const phases = [
            ['Queuing and connecting', it.start, it.sendStart],
            ['Request sent and waiting', it.sendStart, it.downloadStart],
            ['Content downloading', it.downloadStart, it.finish],
            ['Waiting on main thread', it.finish, it.end],
          ];
          tip.push(['tkc-name', it.url]);
          tip.push(['', `${it.kind} · Priority: ${priorityText}`]);
          if (it.renderBlocking) tip.push(['tkc-warn', 'Render-blocking']);
          if (response) tip.push(['', response]);
          for (const [name, a, b] of phases) tip.push(['tkc-times', `${name}: ${span(a, b)}`]);
          tip.push(['tkc-times', `start ${ms(it.start)} · total ${span(it.start, it.end)}`]);
          details.push(['URL', it.url, 'tkc-url'], ['Request', `${it.kind} · Priority: ${priorityText}`]);
          if (it.renderBlocking) details.push(['Blocking', 'Render-blocking', 'tkc-warn']);
          const sizes = [
            it.transferSize !== null ? `${bytesText(it.transferSize)} transferred` : '',
            it.decodedSize !== null ? `${bytesText(it.decodedSize)} resource` : '',
          ];
          const status = it.status !== null ? String(it.status) : '';
          details.push(['Response', [status, it.mimeType, ...sizes, it.fromCache ? '(from cache)' : ''].filter(Boolean).join(' · ')]);
          details.push(['Phases', phases.map(([name, a, b]) => `${name} ${span(a, b)}`).join(' · ')]);
          details.push(['Start', ms(it.start)], ['Total', span(it.start, it.end)]);
          break;
        }
        case 'frames':
          tip.push(['tkc-name', `${FRAME_NAMES[it.state] || 'Frame'} · ${span(it.start, it.end)}`]);
          tip.push(['tkc-times', `start ${ms(it.start)}`]);
          details.push(['Frame', FRAME_NAMES[it.state] || it.state], ['Start', ms(it.start)], ['Duration', span(it.start, it.end)]);
          break;
        case 'screenshots':
          tip.push(['tkc-name', 'Screenshot'], ['tkc-times', `at ${ms(it.time)}`]);
          details.push(['Screenshot', ms(it.time)]);
          break;
        case 'timings': {
          if (it.marker) {
            tip.push(['tkc-name', `${it.label} · ${it.title}`], ['tkc-times', `at ${ms(it.time)}`]);
            details.push(['Marker', `${it.label} (${it.title})`], ['Time', ms(it.time)]);
            break;
          }
          const kinds = { mark: 'Performance mark', measure: 'Performance measure', console: 'Console timing', timestamp: 'console.timeStamp' };
          tip.push(['tkc-name', this.timingTitle(it)]);
          tip.push(['tkc-times', it.dur > 0 ? `start ${ms(it.start)} · total ${ms(it.dur)}` : `at ${ms(it.start)}`]);
          details.push(['Name', it.name, 'tkc-name'], ['Kind', kinds[it.kind] || it.kind], ['Start', ms(it.start)]);
          if (it.dur > 0) details.push(['Total', ms(it.dur)]);
          break;
        }
        case 'interactions': {
          const long = it.end - it.start > LONG_INTERACTION;
          tip.push(['tkc-name', `${it.title} (${it.type}) · ${span(it.start, it.end)}`]);
          if (long) tip.push(['tkc-warn', 'Long interaction (over 200 ms)']);
          tip.push(['tkc-times', `Input delay: ${span(it.start, it.processingStart)}`]);
          tip.push(['tkc-times', `Processing duration: ${span(it.processingStart, it.processingEnd)}`]);
          tip.push(['tkc-times', `Presentation delay: ${span(it.processingEnd, it.end)}`]);
          details.push(
            ['Interaction', `${it.title} (${it.type})`, 'tkc-name'],
            ['Id', String(it.id)],
            ['Start', ms(it.start)],
            ['Total', span(it.start, it.end)],
            ['Input delay', span(it.start, it.processingStart)],
            ['Processing duration', span(it.processingStart, it.processingEnd)],
            ['Presentation delay', span(it.processingEnd, it.end)],
          );
          if (long) details.push(['Warning', 'Long interaction (over 200 ms)', 'tkc-warn']);
          break;
        }
        case 'layoutShifts':
          if (it.cluster !== undefined) {
            tip.push(['tkc-name', `Layout shift · score ${it.score.toFixed(4)}`], ['tkc-times', `at ${ms(it.time)}`]);
            details.push(['Layout shift', `score ${it.score.toFixed(4)}`, 'tkc-name'], ['Time', ms(it.time)]);
          } else {
            tip.push(['tkc-name', `Layout shift cluster · score ${it.score.toFixed(4)}`]);
            tip.push(['tkc-times', `start ${ms(it.start)} · total ${span(it.start, it.end)} · ${it.shifts.length} shifts`]);
            details.push(
              ['Layout shift cluster', `score ${it.score.toFixed(4)}`, 'tkc-name'],
              ['Start', ms(it.start)],
              ['Total', span(it.start, it.end)],
              ['Shifts', String(it.shifts.length)],
            );
          }
          break;
        case 'extension':
          tip.push(['tkc-name', it.tooltip || it.name]);
          tip.push(['tkc-times', `start ${ms(it.start)} · total ${ms(it.dur)}`]);
          details.push(['Name', it.name, 'tkc-name'], ['Track', track.rowLabels.length ? `${track.title} › ${it.track}` : track.title]);
          if (it.tooltip) details.push(['Tooltip', it.tooltip]);
          details.push(['Start', ms(it.start)], ['Total', ms(it.dur)]);
          break;
        case 'gpu':
          tip.push(['tkc-name', 'GPU task'], ['tkc-times', `start ${ms(it.start)} · total ${ms(it.dur)}`]);
          details.push(['Name', 'GPU task', 'tkc-name'], ['Start', ms(it.start)], ['Total', ms(it.dur)]);
          break;
        case 'memory': {
          const m = track.memory;
          const value = (key, v) => (v === null ? 'unknown' : key === 'jsHeap' ? bytesText(v) : String(v));
          tip.push(['tkc-name', `Memory at ${ms(it.s)}`]);
          for (const [key, name] of COUNTERS) tip.push(['', `${name}: ${value(key, m[key][it.sample])}`]);
          details.push(['Memory', ms(it.s)]);
          for (const [key, name] of COUNTERS) details.push([name, value(key, m[key][it.sample])]);
          break;
        }
        default:
          break;
      }
      return { tip, details };
    }

    /** A timing's title, as the panel words it. */
    timingTitle(it) {
      if (it.kind === 'mark') return `[mark]: ${it.name}`;
      if (it.kind === 'timestamp') return `TimeStamp: ${it.name}`;
      return it.name;
    }

    drawTrack(t, top) {
      const ctx = this.ctx;
      const track = this.tracks[t];
      ctx.fillStyle = '#f1f3f4';
      ctx.fillRect(0, top, this.width, HEADER_HEIGHT);
      ctx.fillStyle = '#dadce0';
      ctx.fillRect(0, top + HEADER_HEIGHT - 1, this.width, 1);
      ctx.font = `600 ${FONT}`;
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#202124';
      const head = `${this.trackCollapsed[t] ? '▸' : '▾'} ${track.title}`;
      ctx.fillText(head, 6, top + HEADER_HEIGHT / 2);
      if (this.trackCollapsed[t]) return;
      const rowsTop = top + HEADER_HEIGHT;
      const k = this.width / (this.viewEnd - this.viewStart);
      ctx.save();
      ctx.beginPath();
      ctx.rect(0, rowsTop, this.width, this.trackHeight(t) - HEADER_HEIGHT);
      ctx.clip();
      ctx.font = FONT;
      ctx.textBaseline = 'middle';
      if (track.kind === 'screenshots') {
        this.drawFilmstrip(track, rowsTop, k);
      } else if (track.kind === 'layoutShifts') {
        this.drawShifts(track, rowsTop, k);
      } else if (track.kind === 'memory') {
        this.drawMemory(track, rowsTop, k);
      } else {
        for (let r = 0; r < track.rows.length; r++) {
          const y = rowsTop + r * track.rowHeight;
          if (y + track.rowHeight < AXIS_HEIGHT || y > this.height) continue;
          if (track.rowLabels && track.rowLabels[r] !== undefined) {
            // A track of a group: its name on a row of its own.
            ctx.fillStyle = '#5f6368';
            ctx.fillText(`▾ ${track.rowLabels[r]}`, 14, y + BAR_HEIGHT / 2 + 1);
          }
          this.visibleItems(track, track.rows[r], k, (it, x, w, i, next) => this.drawItem(track, it, x, y, w, k, next));
        }
      }
      const hovered = this.hovered;
      if (hovered && hovered.track === t && track.kind !== 'memory') this.outlineItem(track, hovered.item, rowsTop, k, '#202124', 1);
      const selected = this.selected;
      if (track.kind === 'memory') {
        // No box: a line where the pointer's sample begins.
        if (hovered && hovered.track === t) {
          ctx.fillStyle = '#5f6368';
          ctx.fillRect(Math.round((track.items[hovered.item].s - this.viewStart) * k), rowsTop, 1, track.rowHeight);
        }
      } else if (selected && selected.track === t) this.outlineItem(track, selected.item, rowsTop, k, '#1a73e8', 2);
      ctx.restore();
    }

    /** Calls `draw(item, x, width, index, nextX)` for the items of a row in view. */
    visibleItems(track, row, k, draw) {
      const { order, maxEnd } = row;
      const t0 = this.viewStart - INSTANT_SLACK / k;
      const t1 = this.viewEnd + INSTANT_SLACK / k;
      for (let p = lowerBound(maxEnd, 0, order.length, t0); p < order.length; p++) {
        const it = track.items[order[p]];
        if (it.s > t1) break;
        const next = p + 1 < order.length ? (track.items[order[p + 1]].s - this.viewStart) * k : Infinity;
        draw(it, (it.s - this.viewStart) * k, (it.e - it.s) * k, order[p], next);
      }
    }

    /** Where an item is drawn: its row and x extent (instants a few px wide). */
    itemBox(track, i, rowsTop, k) {
      const it = track.items[i];
      const row = track.rowOf[i];
      const x = (it.s - this.viewStart) * k;
      const w = (it.e - it.s) * k;
      if (it.s === it.e) return { x: x - INSTANT_SLACK, y: rowsTop + row * track.rowHeight, w: 2 * INSTANT_SLACK, h: BAR_HEIGHT };
      return { x, y: rowsTop + row * track.rowHeight, w: Math.max(w, 1), h: track.rowHeight - 1 };
    }

    outlineItem(track, i, rowsTop, k, color, width) {
      const box = this.itemBox(track, i, rowsTop, k);
      const x0 = Math.max(box.x, -width);
      const x1 = Math.min(box.x + box.w, this.width + width);
      if (x1 < 0 || x0 > this.width) return;
      const ctx = this.ctx;
      ctx.strokeStyle = color;
      ctx.lineWidth = width;
      ctx.strokeRect(x0 + width / 2, box.y + width / 2, x1 - x0 - width, box.h - width);
    }

    drawItem(track, it, x, y, w, k, next) {
      switch (track.kind) {
        case 'network':
          return this.drawRequest(it, x, y, k);
        case 'frames':
          return this.drawFrame(it, x, y, w);
        case 'timings':
          return this.drawTiming(it, x, y, w, next);
        case 'interactions':
          return this.drawInteraction(it, x, y, k);
        case 'extension':
          return this.drawBar(it.name, it.color, x, y, w);
        case 'gpu':
          return this.drawBar('GPU task', GPU_COLOR, x, y, w);
        default:
          return undefined;
      }
    }

    /** A plain bar with its name, as a lane's. */
    drawBar(name, color, x, y, w) {
      const ctx = this.ctx;
      const x0 = Math.max(x, -1);
      const x1 = Math.min(x + Math.max(w, 1), this.width + 1);
      ctx.fillStyle = color;
      ctx.fillRect(x0, y, Math.max(x1 - x0 - (w >= NARROW_WIDTH ? 0.5 : 0), 1), BAR_HEIGHT);
      if (x1 - x0 >= TEXT_MIN_WIDTH) this.fitText(name, Math.max(x0, 0) + TEXT_PADDING, y + BAR_HEIGHT / 2 + 1, x1 - Math.max(x0, 0) - 2 * TEXT_PADDING);
    }

    /**
     * The memory counters: a line per counter, each on its own scale (its
     * lowest value at the bottom, its highest at the top), a step at each
     * sample, as the panel's Memory graph; the counters' names and colours
     * on the header.
     */
    drawMemory(track, y, k) {
      const ctx = this.ctx;
      const { memory, ranges } = track;
      const times = memory.time;
      // Below the legend.
      const top = y + 16;
      const height = track.rowHeight - 20;
      const row = track.rows[0];
      const first = Math.max(0, lowerBound(row.maxEnd, 0, row.order.length, this.viewStart) - 1);
      const px = (t) => Math.max(-2, Math.min(this.width + 2, (t - this.viewStart) * k));
      COUNTERS.forEach(([key, , color], c) => {
        const range = ranges[c];
        if (!range) return;
        const values = memory[key];
        const scale = range[1] > range[0] ? height / (range[1] - range[0]) : 0;
        const yOf = (v) => top + height - (v - range[0]) * scale - (scale === 0 ? height / 2 : 0);
        ctx.strokeStyle = color;
        ctx.lineWidth = 1;
        ctx.beginPath();
        let started = false;
        for (let i = first; i < times.length; i++) {
          const v = values[i];
          if (v === null) continue;
          const x = px(times[i]);
          const end = px(track.items[i].e);
          if (!started) ctx.moveTo(x, yOf(v));
          else ctx.lineTo(x, yOf(v));
          ctx.lineTo(end, yOf(v));
          started = true;
          if (times[i] > this.viewEnd) break;
        }
        ctx.stroke();
      });
      // The legend, over the header's right.
      ctx.font = FONT;
      let x = this.width - 8;
      for (let c = COUNTERS.length - 1; c >= 0; c--) {
        const [, name, color] = COUNTERS[c];
        const text = ranges[c] ? name : `${name} (none)`;
        const w = ctx.measureText(text).width;
        x -= w;
        ctx.fillStyle = '#202124';
        ctx.fillText(text, x, y + 8);
        x -= 14;
        ctx.fillStyle = color;
        ctx.fillRect(x, y + 4, 10, 8);
        x -= 12;
      }
    }

    /** A text in a box from x over `room` px, cut with … to fit (nothing when too little fits). */
    fitText(text, x, y, room, color) {
      const ctx = this.ctx;
      if (room < 12) return;
      let shown = text;
      if (ctx.measureText(text).width > room) {
        let kept = Math.floor((room / ctx.measureText(text).width) * text.length);
        do {
          kept--;
          shown = `${text.slice(0, kept)}…`;
        } while (kept >= MIN_TEXT_CHARS && ctx.measureText(shown).width > room);
        if (kept < MIN_TEXT_CHARS) return;
      }
      ctx.fillStyle = color || '#202124';
      ctx.fillText(shown, x, y);
    }

    /** Thin lines with a tick at their outer end: a request's queueing and main-thread wait, an interaction's delays. */
    whisker(from, to, y) {
      const ctx = this.ctx;
      const mid = Math.floor(y + BAR_HEIGHT / 2) + 0.5;
      ctx.moveTo(from, mid - 3);
      ctx.lineTo(from, mid + 3);
      ctx.moveTo(from, mid);
      ctx.lineTo(to, mid);
    }

    drawRequest(it, x, y, k) {
      const ctx = this.ctx;
      const px = (t) => Math.max(-2, Math.min(this.width + 2, (t - this.viewStart) * k));
      const start = px(it.start);
      const send = px(it.sendStart);
      const download = px(it.downloadStart);
      const finish = px(it.finish);
      const end = px(it.end);
      // Sent and waiting: the colour lightened; downloading: the colour.
      ctx.fillStyle = it.color;
      ctx.fillRect(send, y, Math.max(finish - send, 1), BAR_HEIGHT);
      ctx.fillStyle = 'rgba(255, 255, 255, 0.6)';
      if (download > send + 1) ctx.fillRect(send + 0.5, y + 0.5, download - send - 1, BAR_HEIGHT - 1);
      ctx.beginPath();
      ctx.lineWidth = 1;
      ctx.strokeStyle = WHISKER_COLOR;
      if (send - start >= 1) this.whisker(start + 0.5, send, y);
      if (end - finish >= 1) this.whisker(end - 0.5, finish, y);
      ctx.stroke();
      if (it.renderBlocking) {
        // A red corner on the start of the request's box.
        ctx.fillStyle = '#d93025';
        ctx.beginPath();
        ctx.moveTo(send, y);
        ctx.lineTo(send + Math.min(7, Math.max(finish - send, 3)), y);
        ctx.lineTo(send, y + 7);
        ctx.fill();
      }
      const textX = Math.max(send, 0) + TEXT_PADDING + (it.renderBlocking ? 4 : 0);
      this.fitText(it.url, textX, y + BAR_HEIGHT / 2 + 1, finish - textX - TEXT_PADDING, '#333333');
    }

    drawFrame(it, x, y, w) {
      const ctx = this.ctx;
      const x0 = Math.max(x + 1, -1);
      const x1 = Math.min(x + w - 1, this.width + 1);
      if (x1 - x0 < 0.5) {
        if (it.state === 'idle') return;
        ctx.fillStyle = FRAME_COLORS[it.state];
        ctx.fillRect(Math.floor(x), y, 1, BAR_HEIGHT);
        return;
      }
      ctx.fillStyle = FRAME_COLORS[it.state] || FRAME_COLORS.good;
      ctx.fillRect(x0, y, x1 - x0, BAR_HEIGHT);
      if (it.state === 'dropped' || it.state === 'partial') {
        if (!this.framePatterns) {
          this.framePatterns = { dropped: stripes('#ffffff', 3, 1), partial: stripes('#ffffff', 8, 2, [6, 4]) };
        }
        ctx.fillStyle = this.framePatterns[it.state];
        ctx.fillRect(x0, y, x1 - x0, BAR_HEIGHT);
      } else if (it.state === 'idle') {
        ctx.strokeStyle = '#e0e0e0';
        ctx.lineWidth = 1;
        ctx.strokeRect(x0 + 0.5, y + 0.5, x1 - x0 - 1, BAR_HEIGHT - 1);
      }
      const text = `${((it.end - it.start) / 1000).toFixed(1)} ms`;
      const width = ctx.measureText(text).width;
      if (width + 4 <= x1 - x0) {
        ctx.fillStyle = '#202124';
        ctx.fillText(text, x0 + (x1 - x0 - width) / 2, y + BAR_HEIGHT / 2 + 1);
      }
    }

    drawTiming(it, x, y, w, next) {
      const ctx = this.ctx;
      if (it.marker) {
        // The marker's label, a chip at its line.
        const width = ctx.measureText(it.label).width + 8;
        ctx.fillStyle = it.color;
        ctx.fillRect(x, y + 1, width, BAR_HEIGHT - 2);
        ctx.fillStyle = '#ffffff';
        ctx.fillText(it.label, x + 4, y + BAR_HEIGHT / 2 + 1);
        return;
      }
      ctx.fillStyle = it.color;
      if (it.dur > 0 && w >= 1) {
        const x0 = Math.max(x, -1);
        const x1 = Math.min(x + w, this.width + 1);
        ctx.fillRect(x0, y, Math.max(x1 - x0 - 0.5, 1), BAR_HEIGHT);
        this.fitText(this.timingTitle(it), Math.max(x0, 0) + TEXT_PADDING, y + BAR_HEIGHT / 2 + 1, x1 - Math.max(x0, 0) - 2 * TEXT_PADDING);
        return;
      }
      // An instant: a small flag, its title after it while there is room.
      ctx.beginPath();
      ctx.moveTo(x - 4, y + 2);
      ctx.lineTo(x + 4, y + 2);
      ctx.lineTo(x, y + BAR_HEIGHT - 2);
      ctx.closePath();
      ctx.fill();
      this.fitText(this.timingTitle(it), x + 6, y + BAR_HEIGHT / 2 + 1, Math.min(next, this.width) - x - 10);
    }

    drawInteraction(it, x, y, k) {
      const ctx = this.ctx;
      const px = (t) => Math.max(-2, Math.min(this.width + 2, (t - this.viewStart) * k));
      const start = px(it.start);
      let boxStart = px(it.processingStart);
      const boxEnd = px(it.processingEnd);
      const end = px(it.end);
      if (boxEnd - boxStart < 1) boxStart = boxEnd - 1;
      ctx.fillStyle = it.color;
      ctx.fillRect(boxStart, y, boxEnd - boxStart, BAR_HEIGHT);
      ctx.beginPath();
      ctx.lineWidth = 1;
      ctx.strokeStyle = WHISKER_COLOR;
      if (boxStart - start >= 1) this.whisker(start + 0.5, boxStart, y);
      if (end - boxEnd >= 1) this.whisker(end - 0.5, boxEnd, y);
      ctx.stroke();
      if (it.end - it.start > LONG_INTERACTION) {
        // Red stripes over what is past 200 ms, a red corner at the end of processing.
        if (!this.candyStripes) this.candyStripes = stripes('rgba(255, 0, 0, 0.8)', 6, 2.5);
        const from = px(it.start + LONG_INTERACTION);
        ctx.fillStyle = this.candyStripes;
        ctx.fillRect(from, y, end - from, BAR_HEIGHT);
        ctx.fillStyle = 'red';
        ctx.beginPath();
        ctx.moveTo(boxEnd - 8, y);
        ctx.lineTo(boxEnd, y);
        ctx.lineTo(boxEnd, y + 8);
        ctx.fill();
      }
      this.fitText(it.title, Math.max(boxStart, 0) + TEXT_PADDING, y + BAR_HEIGHT / 2 + 1, boxEnd - Math.max(boxStart, 0) - 2 * TEXT_PADDING);
    }

    drawShifts(track, y, k) {
      const ctx = this.ctx;
      // The clusters: thin bars through the middle of the row.
      ctx.fillStyle = CLUSTER_COLOR;
      const barHeight = ROW_HEIGHT * 0.2;
      this.visibleItems(track, track.rows[0], k, (it, x, w) => {
        const x0 = Math.max(x, -1);
        const x1 = Math.min(x + w, this.width + 1);
        ctx.fillRect(x0, y + (ROW_HEIGHT - barHeight) / 2 + 0.5, Math.max(x1 - x0 - 0.5, 1), barHeight - 1);
      });
      // A diamond per shift, its size by its score (full from 0.1).
      ctx.fillStyle = SHIFT_COLOR;
      ctx.beginPath();
      this.visibleItems(track, track.diamonds, k, (it, x) => {
        const buffer = (1 - Math.min(it.score / 0.1, 1)) * (ROW_HEIGHT / 3);
        const half = ROW_HEIGHT / 2;
        ctx.moveTo(x, y + buffer);
        ctx.lineTo(x + half - buffer, y + half);
        ctx.lineTo(x, y + ROW_HEIGHT - buffer);
        ctx.lineTo(x - half + buffer, y + half);
        ctx.closePath();
      });
      ctx.fill();
    }

    /**
     * The filmstrip: each screenshot from its time on, scaled to the row;
     * where screenshots come faster than thumbnails fit, the first of
     * those under a thumbnail shows.
     */
    drawFilmstrip(track, y, k) {
      const ctx = this.ctx;
      const row = track.rows[0];
      const height = FILM_HEIGHT - 4;
      let drawnTo = -Infinity;
      const pending = [];
      this.visibleItems(track, row, k, (it, x) => {
        const bitmap = this.bitmaps[it.image];
        if (!bitmap) return;
        const width = Math.floor((bitmap.width * height) / bitmap.height);
        if (x < drawnTo) return;
        pending.push([bitmap, x, width]);
        drawnTo = Math.max(x, 0) + width;
      });
      for (let j = 0; j < pending.length; j++) {
        const [bitmap, x, width] = pending[j];
        // Up to the next one drawn, as the panel clips a screenshot at the next.
        const room = j + 1 < pending.length ? pending[j + 1][1] - x : Infinity;
        const w = Math.min(width, room);
        const left = Math.max(x, 0);
        const shown = Math.min(width, room - (left - x));
        if (shown <= 0) continue;
        ctx.save();
        ctx.beginPath();
        ctx.rect(left, y + 1, shown + 1, height + 2);
        ctx.clip();
        ctx.drawImage(bitmap, left + 1, y + 2, width, height);
        ctx.strokeStyle = '#c7c7c7';
        ctx.lineWidth = 1;
        ctx.strokeRect(left + 0.5, y + 1.5, Math.min(w, shown), height + 1);
        ctx.restore();
      }
    }

    /** The page-load markers: dashed lines from the axis down, over the tracks and lanes. */
    drawMarkerLines() {
      const markers = this.model.page ? this.model.page.markers : [];
      if (markers.length === 0) return;
      const ctx = this.ctx;
      const k = this.width / (this.viewEnd - this.viewStart);
      ctx.save();
      ctx.setLineDash([6, 4]);
      ctx.lineWidth = 1;
      for (const m of markers) {
        const x = Math.round((m.time - this.viewStart) * k) + 0.5;
        if (x < 0 || x > this.width) continue;
        ctx.strokeStyle = m.color;
        ctx.beginPath();
        ctx.moveTo(x, AXIS_HEIGHT);
        ctx.lineTo(x, this.height);
        ctx.stroke();
      }
      ctx.restore();
    }
  }

  root.TracekitChart = { VERSION, decode, decodeBase64, inflate, layOut, lowerBound, gallop, packRows, pageTracks, FlameChart };
})(globalThis);
