// Unit tests of the chart renderer's pure parts (decoding, levels, the
// searches the drawing relies on), run in Node by crates/cli/tests/chart.rs:
// `node renderer.test.mjs` prints `ok` or fails with the first assertion.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = fs.readFileSync(path.join(here, '../../../export/src/export/chart/renderer.js'), 'utf8');
vm.runInThisContext(source, { filename: 'renderer.js' });
const { decode, decodeBase64, inflate, layOut, lowerBound, gallop } = globalThis.TracekitChart;

// lowerBound and gallop find the first value at least x, as a scan does.
let seed = 1;
const random = () => {
  seed = (seed * 48271) % 2147483647;
  return seed / 2147483647;
};
for (let round = 0; round < 20000; round++) {
  const values = [];
  let x = 0;
  const n = Math.floor(random() * 40);
  for (let i = 0; i < n; i++) values.push((x += Math.floor(random() * 3)));
  const from = Math.floor(random() * (n + 1));
  const to = from + Math.floor(random() * (n - from + 1));
  const q = random() * (x + 2) - 1;
  let want = to;
  for (let i = from; i < to; i++) {
    if (values[i] >= q) {
      want = i;
      break;
    }
  }
  assert.equal(lowerBound(values, from, to, q), want, `lowerBound ${values} ${from}..${to} ${q}`);
  assert.equal(gallop(values, from, to, q), want, `gallop ${values} ${from}..${to} ${q}`);
}

// Columns as the Rust side writes them: f64, then u8 columns, 8-aligned.
function lane(nodes) {
  const n = nodes.length;
  const pad = (x) => Math.ceil(x / 8) * 8;
  const offsets = { start: 0, dur: 8 * n, self: 16 * n, depth: 24 * n, label: pad(25 * n) };
  const bytes = new Uint8Array(offsets.label + n);
  const view = new DataView(bytes.buffer);
  nodes.forEach(([depth, label, start, dur], i) => {
    view.setFloat64(offsets.start + 8 * i, start, true);
    view.setFloat64(offsets.dur + 8 * i, dur, true);
    view.setFloat64(offsets.self + 8 * i, NaN, true);
    bytes[offsets.depth + i] = depth;
    bytes[offsets.label + i] = label;
  });
  const columns = Object.fromEntries(
    Object.entries(offsets).map(([k, offset]) => [k, { type: k === 'depth' || k === 'label' ? 'u8' : 'f64', offset }]),
  );
  return { bytes, columns };
}

// Label 0 is drawn, label 1 is an event the panel does not draw.
const { bytes, columns } = lane([
  [0, 0, 0, 100], // a task
  [1, 1, 10, 80], // not drawn: its children take its level
  [2, 0, 10, 30],
  [2, 0, 50, 40],
  [3, 0, 60, 5],
  [0, 0, 200, 10],
]);
const header = {
  format: 'tracekit-chart',
  version: 3,
  title: 't',
  strings: ['', 'Task', 'Hidden'],
  colors: ['#c7c7c7'],
  labels: { name: [1, 2], url: [0, 0], line: [-1, -1], column: [-1, -1], color: [0, 0], category: [0, 0], js: [0, 0], drawn: [1, 0] },
  lanes: [{ pid: '1', tid: '1', process: null, url: null, mainFrame: false, thread: 'T', folded: false, nodes: 6, columns }],
  view: [0, 210],
  bytes: bytes.length,
};
const model = decode(header, bytes);
const [decoded] = model.lanes;
assert.deepEqual(Array.from(decoded.start), [0, 10, 10, 50, 60, 200]);
assert.deepEqual(Array.from(decoded.depth), [0, 1, 2, 2, 3, 0]);
assert.deepEqual(model.labels.name, ['Task', 'Hidden']);
assert.ok(Number.isNaN(decoded.self[0]));

const panel = layOut(decoded, model.labels, false);
assert.deepEqual(Array.from(panel.level), [0, -1, 1, 1, 2, 0]);
assert.equal(panel.levels, 3);
assert.deepEqual(Array.from(panel.offsets), [0, 2, 4, 5]);
assert.deepEqual(Array.from(panel.order), [0, 5, 2, 3, 4]);
assert.deepEqual(Array.from(panel.maxEnd), [100, 210, 40, 90, 65]);
const all = layOut(decoded, model.labels, true);
assert.deepEqual(Array.from(all.level), [0, 1, 2, 2, 3, 0]);
assert.equal(all.levels, 4);

// Wrong data is refused with a reason.
assert.throws(() => decode({ ...header, version: 2 }, bytes), /version 3/);
// Without links or warnings: none.
assert.equal(model.links.count, 0);
assert.equal(model.warnings.count, 0);
assert.throws(() => decode(header, bytes.subarray(8)), /the header says/);
// Columns at an odd offset are copied to an aligned buffer.
const shifted = new Uint8Array(bytes.length + 1);
shifted.set(bytes, 1);
assert.deepEqual(Array.from(decode(header, shifted.subarray(1)).lanes[0].dur), [100, 80, 30, 40, 5, 10]);

// base64, and a raw deflate stream (zlib's, of "hello hello hello").
assert.deepEqual(Array.from(decodeBase64(' aGk= ')), [104, 105]);
const packed = decodeBase64('y0jNyclXyECQAA==');
assert.equal(new TextDecoder().decode(await inflate(packed)), 'hello hello hello');

// Page tracks: requests packed into rows as the panel packs them (the
// first row whose last item has ended), each row in time order with the
// running maximum of the ends.
const { packRows, pageTracks } = globalThis.TracekitChart;
const rows = packRows([
  { s: 0, e: 10 },
  { s: 5, e: 8 },
  { s: 10, e: 20 },
  { s: 6, e: 30 },
  { s: 9, e: 9 },
]);
assert.deepEqual(rows.map((r) => Array.from(r.order)), [[0, 2], [1, 4], [3]]);
assert.deepEqual(rows.map((r) => Array.from(r.maxEnd)), [[10, 20], [8, 9], [30]]);
assert.equal(model.page, null);
assert.deepEqual(pageTracks(null), []);
const page = decode({ ...header, bounds: [0, 300], page: {
  network: [{ url: 'a', start: 0, end: 10 }, { url: 'b', start: 5, end: 8 }],
  frames: [],
  screenshots: [{ image: 0, time: 10 }, { image: 0, time: 100 }],
  timings: [{ kind: 'measure', name: 'm', start: 0, dur: 50 }, { kind: 'mark', name: 'k', start: 10, dur: 0 }],
  markers: [{ label: 'FCP', time: 20 }],
  interactions: [],
  layoutShifts: [{ start: 0, end: 40, score: 0.2, shifts: [{ time: 0, score: 0.2 }] }],
} }, bytes, [new Uint8Array([1])]).page;
// A screenshot shows until the next, the last until the trace ends.
assert.deepEqual(page.screenshots.map((s) => s.until), [100, 300]);
const tracks = pageTracks(page);
// The GPU track, the memory graph and extension tracks: a group's
// tracks under a row of their names, nested by the tree's depths.
const more = pageTracks({ ...page, network: [], screenshots: [], timings: [], markers: [], layoutShifts: [],
  gpu: [{ start: 0, dur: 10 }, { start: 5, dur: 2 }],
  memory: { time: [0, 50], jsHeap: [10, 20], documents: [1, 1], nodes: [null, 4], listeners: [0, 0] },
  extensions: [{ name: 'G', group: true, tracks: [
    { name: 'a', entries: [{ name: 'p', start: 0, dur: 10, color: '#fff', depth: 0, tooltip: null }, { name: 'c', start: 1, dur: 2, color: '#fff', depth: 1, tooltip: null }] },
    { name: 'b', entries: [{ name: 'x', start: 0, dur: 10, color: '#fff', depth: null, tooltip: null }, { name: 'y', start: 5, dur: 10, color: '#fff', depth: null, tooltip: null }] },
  ] }],
});
assert.deepEqual(more.map((t) => t.kind), ['extension', 'gpu', 'memory']);
const ext = more[0];
assert.deepEqual(ext.rows.map((r) => Array.from(r.order)), [[], [0], [1], [], [2], [3]]);
assert.deepEqual(ext.rowLabels.filter(() => true), ['a', 'b']);
assert.equal(more[1].rows.length, 2);
assert.deepEqual(more[2].items.map((i) => [i.s, i.e]), [[0, 50], [50, 300]]);
assert.deepEqual(more[2].ranges, [[10, 20], [1, 1], [4, 4], [0, 0]]);
// Empty tracks are left out; the panel's order.
assert.deepEqual(tracks.map((t) => t.kind), ['network', 'screenshots', 'timings', 'layoutShifts']);
assert.equal(tracks[0].rows.length, 2);
// The markers' row first, then the timings: the mark goes under the measure.
assert.equal(tracks[2].rows.length, 3);
assert.deepEqual(Array.from(tracks[2].rowOf), [1, 2, 0]);

console.log('ok');
