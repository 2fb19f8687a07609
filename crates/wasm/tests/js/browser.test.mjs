// The package in a real browser (Debian's Chromium, driven by
// playwright-core): a page served on localhost imports the package as it
// was built, streams fixtures with fetch() and the response body's reader
// into a Loader, and compares the dump with the golden, in the page; the
// package's demo page loads a chosen file, draws its flame chart (the
// canvas's pixels are checked) and shows its call tree, grouped.
// TRACEKIT_SCREENSHOT=FILE keeps a picture of the demo.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { join, normalize, extname } from 'node:path';
import { pathToFileURL } from 'node:url';

import { packageDir, root } from './support.mjs';

const playwrightDir = process.env.TRACEKIT_PLAYWRIGHT;
const chromium = process.env.TRACEKIT_CHROMIUM ?? '/usr/bin/chromium';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>tracekit in a browser</title>
<script type="module">
  import * as tracekit from '/pkg/tracekit.js';
  // Streams a fixture from fetch() into a Loader, chunk by chunk as the
  // network gives them, and compares its dump with the golden.
  window.streamFixture = async (fixture, golden) => {
    await tracekit.init();
    const response = await fetch(fixture);
    const reader = response.body.getReader();
    const loader = new tracekit.Loader();
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      loader.push(value);
      chunks += 1;
    }
    const trace = loader.finish();
    const dump = trace.conformance();
    const nodes = trace.tracksPacked().processes.flatMap((p) => p.threads).reduce((n, t) => n + t.nodes.length, 0);
    trace.free();
    const expected = await (await fetch(golden)).text();
    return { same: dump.trim() === expected.trim(), length: dump.length, chunks, bytes: loader.bytesPushed, nodes };
  };
  window.badInput = async () => {
    await tracekit.init();
    const loader = new tracekit.Loader();
    loader.push(new TextEncoder().encode('{"foo": 1}'));
    try {
      loader.finish();
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  };
  window.ready = true;
</script>`;

let server;
let browser;
let base;

before(async () => {
  server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    let file = null;
    if (path === '/') {
      response.writeHead(200, { 'content-type': TYPES['.html'] });
      response.end(PAGE);
      return;
    } else if (path.startsWith('/pkg/')) {
      file = join(packageDir, normalize(path.slice('/pkg/'.length)));
    } else if (path.startsWith('/fixtures/')) {
      file = join(root, normalize(path.slice(1)));
    }
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404);
      response.end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  const { chromium: launcher } = await import(pathToFileURL(join(playwrightDir, 'index.mjs')).href);
  browser = await launcher.launch({
    executablePath: chromium,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function openPage() {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.ready === true);
  return { page, errors };
}

for (const [fixture, golden] of [
  ['fixtures/traces/kitchen-sink.json.gz', 'fixtures/expected/2026-10/kitchen-sink.json'],
  ['fixtures/handwritten/begin-end.json', 'fixtures/expected/2026-10/handwritten/begin-end.json'],
  ['fixtures/traces/node-work.cpuprofile.gz', 'fixtures/expected/2026-10/node-work.json'],
]) {
  test(`a page streams ${fixture} with fetch() and gets the golden`, async () => {
    const { page, errors } = await openPage();
    const result = await page.evaluate(([f, g]) => window.streamFixture(`/${f}`, `/${g}`), [fixture, golden]);
    await page.close();
    assert.deepEqual(errors, []);
    assert.equal(result.bytes, statSync(join(root, fixture)).size);
    assert.ok(result.nodes > 0);
    assert.ok(result.same, `the dump (${result.length} characters, ${result.chunks} chunks) differs from ${golden}`);
  });
}

test('in a page, bad input throws the message of the CLI', async () => {
  const { page } = await openPage();
  const message = await page.evaluate(() => window.badInput());
  await page.close();
  assert.match(message, /^not a trace or profile: a JSON object without traceEvents/);
});

test('the demo page streams a chosen file, draws its flame chart and shows its call tree', async () => {
  const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${base}/pkg/demo/index.html`);
  await page.setInputFiles('#file', join(root, 'fixtures/traces/kitchen-sink.json.gz'));
  await page.waitForFunction(() => document.querySelectorAll('#calltree tbody tr').length > 10, null, { timeout: 60000 });
  // The chart's renderer marks its first frame.
  await page.waitForFunction(() => performance.getEntriesByName('tracekit-chart:first-draw').length > 0, null, { timeout: 60000 });
  const status = await page.textContent('#status');
  const progress = await page.evaluate(() => [document.getElementById('progress').value, document.getElementById('progress').max]);
  // What the chart drew: its lanes, and the canvas's pixels.
  const drawn = await page.evaluate(() => {
    const chart = window.tracekitChart;
    const canvas = document.querySelector('#chart canvas');
    const { width, height } = canvas;
    const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const colors = new Map();
    let painted = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const rgb = (pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2];
      if (rgb !== 0xffffff) painted += 1;
      colors.set(rgb, (colors.get(rgb) ?? 0) + 1);
    }
    const lanes = chart.model.lanes.map((l) => ({ thread: l.thread, nodes: l.count }));
    return {
      width,
      height,
      painted,
      colors: [...colors.entries()].filter(([, n]) => n > 50).map(([rgb]) => rgb),
      lanes,
      geometry: chart.geometry().lanes.length,
      headers: document.querySelectorAll('#chart .tkc-bar input[type=search]').length,
    };
  });
  if (process.env.TRACEKIT_SCREENSHOT) await page.screenshot({ path: process.env.TRACEKIT_SCREENSHOT });
  // The Call Tree grouped by domain: group rows first.
  await page.selectOption('#groupBy', 'domain');
  await page.waitForFunction(() => document.querySelectorAll('#calltree tbody tr.group').length > 0);
  const groups = await page.$$eval('#calltree tbody tr.group td.name', (cells) => cells.map((c) => c.textContent));
  await page.check('#bottomUp');
  await page.waitForFunction(() => document.querySelectorAll('#calltree tbody tr').length > 3);
  await page.close();
  assert.deepEqual(errors, []);
  assert.match(status, /kitchen-sink\.json\.gz: ChromeTrace, \d+ events, \d+ threads, \d+ track nodes/);
  assert.equal(progress[0], progress[1], 'the progress bar is full');
  // A lane per thread with tracks, the main thread's among them.
  assert.ok(drawn.lanes.length >= 3, JSON.stringify(drawn.lanes));
  assert.ok(drawn.lanes.some((l) => l.thread === 'CrRendererMain' && l.nodes > 1000), JSON.stringify(drawn.lanes));
  assert.equal(drawn.geometry, drawn.lanes.length);
  assert.equal(drawn.headers, 1, "the chart's toolbar");
  // Bars were drawn: a good part of the canvas is painted, in the
  // panel's colours (Scripting #facc15, System #c7c7c7, Rendering #d190ff).
  assert.ok(drawn.width > 500 && drawn.height > 300);
  assert.ok(drawn.painted > drawn.width * drawn.height * 0.05, `${drawn.painted} painted pixels`);
  for (const [name, rgb] of [['Scripting', 0xfacc15], ['System', 0xc7c7c7], ['Rendering', 0xd190ff]]) {
    assert.ok(drawn.colors.includes(rgb), `${name}'s colour among ${drawn.colors.map((c) => c.toString(16))}`);
  }
  assert.ok(groups.includes('a.test'), `groups: ${groups}`);
});
