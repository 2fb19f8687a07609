#!/usr/bin/env node
// Records real Chrome performance traces of the workload pages in fixtures/pages.
//
//   node xtask/js/record.mjs --out DIR [--scenario NAME ...] [--scale N] [--browser-session]
//
// For every scenario a fresh Chromium (/usr/bin/chromium) is launched and traced through the
// DevTools protocol Tracing domain on the page's CDP session (see recordScenario for why not a
// browser-level one) with the categories of the DevTools Performance panel; the trace is written
// as DIR/<scenario>.json.gz: the JSON object {"traceEvents":[...],"metadata":{...}} exactly
// as Chrome returns it (ReturnAsStream), gzipped. Tracing starts while the tab is still on
// about:blank, before the first navigation, as the panel's "record and reload" does.
//
// The causes scenario (issue 32's handlers: timers, rAF, idle callbacks, postTask, forced
// reflows with invalidation tracking, selector stats, layers and pictures, an extension track,
// a worker, WebGL, a WebSocket, a slow click) is the panel's "Record" rather than "Record and
// reload": tracing starts a second after the page's load event, with four more categories
// (CAUSES_CATEGORIES).
//
// The pages are served by a small static server on 127.0.0.1; Chromium maps *.test to it, so
// http://a.test:PORT and http://b.test:PORT are two sites in two renderer processes. Any URL
// takes ?delay=MS (the server waits before answering: slow resources for the page-load
// scenarios), and two URLs are generated rather than read (lib/assets.mjs):
// /img.png?w=W&h=H, a WxH PNG, and /font.ttf, a small TrueType font.
// Any WebSocket upgrade is answered by an echo of the page's text messages.

import { chromium } from 'playwright-core';
import crypto from 'node:crypto';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { png, ttf } from './lib/assets.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PAGES_DIR = path.resolve(HERE, '../../fixtures/pages');
const CHROMIUM = '/usr/bin/chromium';

// What the causes scenario adds to CATEGORIES, for the events whose causes DevTools shows:
// invalidation tracking (StyleRecalcInvalidationTracking, ...: the initiators of layouts and
// style recalcs), selector stats (the panel's "Enable CSS selector stats" setting), layers and
// pictures (the panel's "Enable advanced paint instrumentation" setting: the layer tree and
// paint snapshots).
// The panel's "Enable CSS selector stats" setting: SelectorStats events with every style
// recalculation's selector timings.
const SELECTOR_STATS_CATEGORY = 'disabled-by-default-blink.debug';
const CAUSES_CATEGORIES = [
  'disabled-by-default-devtools.timeline.invalidationTracking',
  SELECTOR_STATS_CATEGORY,
  'disabled-by-default-devtools.timeline.layers',
  'disabled-by-default-devtools.timeline.picture',
];

// How long a traceAfterLoad scenario waits between the page's load event and the start of
// tracing; its page waits longer than this before its work (causes.js: 2 s).
const TRACE_AFTER_LOAD_WAIT_MS = 1000;

// The scenarios: start page (on site a) and how it is recorded. Each page says "tracekit:done"
// on the console when its workload has finished, "tracekit:click" when it wants #click-target
// clicked and "tracekit:type" when it wants text typed into #type-target.
//   screenshots: the panel's "Screenshots" checkbox on (SCREENSHOT_CATEGORY added);
//   mobile: the panel's device mode and CPU throttling (MOBILE below), set before navigation;
//   categories: categories added to CATEGORIES (the causes scenario: CAUSES_CATEGORIES);
//   sourceMaps: the trace is written as the panel's "Save trace" with "Include script content
//   and source maps" writes it (an enhanced trace): the source maps of its scripts in
//   metadata.sourceMaps (withSourceMaps below);
//   traceAfterLoad: the panel's "Record" instead of "Record and reload": tracing starts a
//   second after the page has loaded (its "load" event), and the page waits two before its
//   work. The
//   causes scenario does so because with the picture category every repaint of the browser's
//   own window during a page load (tab strip, URL: text, so a megabyte of font each) would be
//   in the trace.
// The first five keep the panel's default categories (no screenshots): their recordings were
// made so, and adding a category would change what they are compared against.
const SCENARIOS = {
  'main-thread': { page: 'main-thread.html' },
  worker: { page: 'worker.html' },
  iframe: { page: 'iframe.html' },
  navigation: { page: 'navigation-start.html' },
  'kitchen-sink': { page: 'kitchen-sink.html' },
  'page-load': { page: 'page-load.html', screenshots: true },
  'page-load-mobile': { page: 'page-load.html', screenshots: true, mobile: true },
  causes: { page: 'causes.html', categories: CAUSES_CATEGORIES, traceAfterLoad: true },
  'legacy-css': { page: 'legacy-css.html', categories: [SELECTOR_STATS_CATEGORY] },
  bundles: { page: 'bundles.html', sourceMaps: true },
  initiators: { page: 'initiators.html' },
};

// Exactly the categories of the DevTools Performance panel (chrome-devtools-frontend,
// front_end/panels/timeline/TimelineController.ts, startRecording()) with its defaults:
// JS sampling on (disabled-by-default-v8.cpu_profiler), no screenshots, no pictures, no
// selector stats, no experiments. The panel passes '-*' as the first entry too.
const CATEGORIES = [
  '-*',
  'blink.console',
  'loading',
  'blink.user_timing',
  'devtools.timeline',
  'disabled-by-default-devtools.target-rundown',
  'disabled-by-default-devtools.timeline.frame',
  'disabled-by-default-devtools.timeline.stack',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-devtools.v8-source-rundown-sources',
  'disabled-by-default-devtools.v8-source-rundown',
  'disabled-by-default-layout_shift.debug',
  'disabled-by-default-v8.inspector',
  'disabled-by-default-v8.cpu_profiler.hires',
  'disabled-by-default-lighthouse',
  'v8.execute',
  'v8',
  'cppgc',
  'navigation',
  'rail',
  'disabled-by-default-v8.cpu_profiler',
];

// What the panel adds to CATEGORIES when "Screenshots" is checked
// (TimelineController.startRecording: captureFilmStrip). Chrome then emits a "Screenshot"
// event (a JPEG of the frame) for frames that changed.
const SCREENSHOT_CATEGORY = 'disabled-by-default-devtools.screenshot';

// The device mode the mobile scenario emulates, as the panel's device toolbar does it for its
// "Moto G Power" preset (412x823, DPR 1.75, mobile, touch) with the Performance panel's CPU
// throttling "4x slowdown". The panel sends these Emulation commands on the page's session;
// they last as long as that session stays attached (the whole recording here).
const MOBILE = {
  metrics: {
    width: 412,
    height: 823,
    deviceScaleFactor: 1.75,
    mobile: true,
    screenWidth: 412,
    screenHeight: 823,
    screenOrientation: { type: 'portraitPrimary', angle: 0 },
  },
  // The preset's user agent (Android, "Mobile" Chrome), with this browser's version put in as
  // the device toolbar does.
  userAgent: (version) =>
    `Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${version} Mobile Safari/537.36`,
  cpuThrottlingRate: 4,
};

// Where the recorder clicks (CSS pixels of the main frame's viewport; the pages make these
// elements position: fixed there, so no selector lookup is needed and no Playwright script
// runs in the page): #click-target at (0,0) 200x50, #type-target at (0,50) 200x30.
const CLICK_POINT = { x: 100, y: 25 };
const TYPE_POINT = { x: 100, y: 65 };
// What "tracekit:type" types, one key at a time with a pause between keys, so that every key
// is its own interaction (keydown, keypress, keyup).
const TYPED_TEXT = 'tk!';
const TYPE_KEY_DELAY_MS = 120;

// The complete Chromium command line (Playwright's own default switches are switched off with
// ignoreDefaultArgs, so that the recording conditions are explicit and stay put across
// Playwright versions).
function chromiumArgs(userDataDir) {
  return [
    // Asked for by the brief.
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-quic',
    '--no-first-run',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${userDataDir}`,
    // Two sites, two renderer processes: a.test and b.test both go to our server.
    '--site-per-process',
    '--host-resolver-rules=MAP *.test 127.0.0.1',
    // Plumbing Playwright needs (it normally adds these itself).
    '--remote-debugging-pipe',
    '--no-startup-window',
    // Quiet, deterministic browser (a subset of Playwright's defaults).
    '--disable-field-trial-config',
    '--disable-background-timer-throttling',
    '--disable-backgrounding-occluded-windows',
    '--disable-renderer-backgrounding',
    '--disable-back-forward-cache',
    '--disable-breakpad',
    '--disable-default-apps',
    '--disable-dev-shm-usage',
    '--disable-extensions',
    '--disable-hang-monitor',
    '--disable-ipc-flooding-protection',
    '--disable-popup-blocking',
    '--disable-prompt-on-repost',
    '--disable-search-engine-choice-screen',
    '--metrics-recording-only',
    '--no-default-browser-check',
    '--no-service-autorun',
    '--password-store=basic',
    '--use-mock-keychain',
    '--force-color-profile=srgb',
    '--hide-scrollbars',
    '--mute-audio',
    // A single --disable-features (Chromium keeps only the last one given):
    // - WebUIOmniboxPopup, WebUIOmniboxAimPopup: otherwise the browser window preloads the
    //   chrome://omnibox-popup.top-chrome WebUI in a "WebUI Top Renderer" process, which at
    //   times ends up in the recording (a third renderer with thousands of events);
    // - HttpsUpgrades, HttpsFirstBalancedModeAutoEnable: keep http://a.test on http;
    // - the rest: no requests to Google services on startup (there is no network here).
    '--disable-features=' +
      [
        'WebUIOmniboxPopup',
        'WebUIOmniboxAimPopup',
        'HttpsUpgrades',
        'HttpsFirstBalancedModeAutoEnable',
        'DestroyProfileOnBrowserClose',
        'MediaRouter',
        'OptimizationHints',
        'NetworkTimeServiceQuerying',
        'AimEnabled',
        'PreconnectToSearch',
        'LensOverlay',
      ].join(','),
  ];
}

function usage(msg) {
  if (msg) console.error(`record.mjs: ${msg}`);
  console.error(
    'usage: node xtask/js/record.mjs --out DIR [--scenario NAME ...] [--scale N] [--browser-session]\n' +
      `scenarios: ${Object.keys(SCENARIOS).join(', ')} (default: all)`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { out: null, scenarios: [], scale: 1, browserSession: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? a.split(/=(.*)/s) : [a, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case '--out': opts.out = value(); break;
      case '--scenario': opts.scenarios.push(...value().split(',').filter(Boolean)); break;
      case '--scale': opts.scale = Number(value()); break;
      case '--browser-session': opts.browserSession = true; break;
      case '-h': case '--help': usage(); break;
      default: usage(`unknown argument ${a}`);
    }
  }
  if (!opts.out) usage('--out is required');
  if (!(opts.scale > 0)) usage('--scale must be a positive number');
  if (opts.scenarios.length === 0) opts.scenarios = Object.keys(SCENARIOS);
  for (const s of opts.scenarios) if (!SCENARIOS[s]) usage(`unknown scenario ${s}`);
  return opts;
}

// ---------------------------------------------------------------------------------------
// Static file server for fixtures/pages.

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
};

// The generated URLs: path -> (query) -> body. Cached, as a page may load one several times.
const GENERATED = {
  '/img.png': (q) => png(Number(q.get('w') || 100), Number(q.get('h') || 100)),
  '/font.ttf': () => ttf(),
};
const generatedCache = new Map();

async function startServer() {
  const server = http.createServer((req, res) => {
    let rel, query;
    try {
      const u = new URL(req.url, 'http://x');
      rel = decodeURIComponent(u.pathname);
      query = u.searchParams;
    } catch {
      res.writeHead(400).end();
      return;
    }
    // ?delay=MS: a slow resource (the server waits, then answers as usual), capped so that a
    // typo cannot hang a recording.
    const delay = Math.min(10_000, Math.max(0, Number(query.get('delay')) || 0));
    setTimeout(() => answer(rel, query, res), delay);
  });
  server.on('upgrade', echoWebSocket);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

// A minimal WebSocket echo (RFC 6455) for any upgrade request: the handshake, then every text
// frame from the page comes back unmasked, and a close frame is answered with one and ends the
// connection. Enough for the causes page's one short message (no fragments, no frames over
// 125 bytes of payload); anything else closes the socket.
function echoWebSocket(req, socket) {
  const key = req.headers['sec-websocket-key'];
  if (!key) {
    socket.destroy();
    return;
  }
  const accept = crypto.createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  socket.on('error', () => socket.destroy());
  socket.on('data', (buf) => {
    const opcode = buf[0] & 0x0f;
    const len = buf[1] & 0x7f;
    const masked = (buf[1] & 0x80) !== 0;
    if (len > 125 || !masked || buf.length < 6 + len) {
      socket.destroy();
      return;
    }
    const mask = buf.subarray(2, 6);
    const payload = Buffer.from(buf.subarray(6, 6 + len).map((b, i) => b ^ mask[i % 4]));
    if (opcode === 0x1) socket.write(Buffer.concat([Buffer.from([0x81, len]), payload]));
    else if (opcode === 0x8) socket.end(Buffer.concat([Buffer.from([0x88, len]), payload]));
    else socket.destroy();
  });
}

function answer(rel, query, res) {
  // ?redirect=URL: a 302 to URL (a redirected request, on another site if URL is).
  const redirect = query.get('redirect');
  if (redirect) {
    res.writeHead(302, { location: redirect, 'cache-control': 'no-store' }).end();
    return;
  }
  // ?maxage=S: cacheable for S seconds (too short for the Cache insight) instead of no-store.
  const maxAge = Number(query.get('maxage'));
  const cacheControl = maxAge > 0 ? `max-age=${Math.floor(maxAge)}` : 'no-store';
  if (GENERATED[rel]) {
    const key = `${rel}?w=${query.get('w')}&h=${query.get('h')}`;
    if (!generatedCache.has(key)) generatedCache.set(key, GENERATED[rel](query));
    res.writeHead(200, { 'content-type': MIME[path.extname(rel)], 'cache-control': cacheControl });
    res.end(generatedCache.get(key));
    return;
  }
  const file = path.join(PAGES_DIR, path.normalize(rel));
  if (!file.startsWith(PAGES_DIR + path.sep)) {
    res.writeHead(403).end();
    return;
  }
  fs.readFile(file, (err, body) => {
    if (err) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[path.extname(file)] || 'application/octet-stream',
      'cache-control': cacheControl,
    });
    res.end(body);
  });
}

// ---------------------------------------------------------------------------------------
// Counting the events of the streamed JSON without parsing it (it can be hundreds of MB):
// counts the objects directly inside the top-level "traceEvents" array.

class EventCounter {
  constructor() {
    this.count = 0;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.str = '';
    this.lastKeyAtDepth1 = null;
    this.arrayDepth = -1; // depth inside the traceEvents array, -1 if not in it
  }

  feed(text) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (c === 92) this.escape = true; // backslash
        else if (c === 34) {
          this.inString = false;
          if (this.depth === 1) this.lastKeyAtDepth1 = this.str;
        } else if (this.depth === 1 && this.str.length < 32) this.str += text[i];
        continue;
      }
      switch (c) {
        case 34: // "
          this.inString = true;
          this.str = '';
          break;
        case 123: // {
          if (this.depth === this.arrayDepth) this.count++;
          this.depth++;
          break;
        case 91: // [
          if (this.depth === 1 && this.lastKeyAtDepth1 === 'traceEvents') this.arrayDepth = 2;
          this.depth++;
          break;
        case 125: // }
        case 93: // ]
          this.depth--;
          if (this.depth === 1 && this.arrayDepth === 2) this.arrayDepth = -1;
          break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Recording.

async function streamToGzipFile(cdp, handle, file) {
  const tmp = `${file}.partial`;
  const gzip = zlib.createGzip({ level: 9 });
  const out = fs.createWriteStream(tmp);
  const finished = new Promise((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    gzip.on('error', reject);
  });
  gzip.pipe(out);
  const counter = new EventCounter();
  let bytes = 0;
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle, size: 4 << 20 });
    if (data) {
      const buf = base64Encoded ? Buffer.from(data, 'base64') : Buffer.from(data, 'utf8');
      counter.feed(base64Encoded ? buf.toString('utf8') : data);
      bytes += buf.length;
      if (!gzip.write(buf)) await once(gzip, 'drain');
    }
    if (eof) break;
  }
  await cdp.send('IO.close', { handle });
  gzip.end();
  await finished;
  fs.renameSync(tmp, file);
  return { events: counter.count, rawBytes: bytes };
}

// Rewrites a recorded trace as the panel's "Save trace" with "Include script content and source
// maps" writes it (TimelinePanel: an enhanced trace): metadata first, opening with
// enhancedTraceVersion 1 (how the panel tells such a file when it loads one), then Chrome's own
// metadata, then sourceMaps: for each script of the trace that declared a source map (its
// ScriptCatchup event's sourceMapUrl, not a data: URL), {url: the script's URL, sourceMapUrl:
// that URL resolved against the script's, sourceMap: the map}, once per source map URL. The
// panel has the maps the page loaded; here they are read from this server's files, which is
// what it served. The script contents are already in the trace (the source rundown
// categories).
function withSourceMaps(file, port) {
  const trace = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8'));
  const sourceMaps = [];
  for (const e of trace.traceEvents) {
    const data = e.name === 'ScriptCatchup' ? e.args?.data : undefined;
    if (!data?.url || !data.sourceMapUrl || data.sourceMapUrl.startsWith('data:')) continue;
    const sourceMapUrl = new URL(data.sourceMapUrl, data.url);
    if (sourceMaps.some((m) => m.sourceMapUrl === sourceMapUrl.href)) continue;
    if (sourceMapUrl.host !== `a.test:${port}` && sourceMapUrl.host !== `b.test:${port}`) continue;
    const mapFile = path.join(PAGES_DIR, path.normalize(decodeURIComponent(sourceMapUrl.pathname)));
    if (!mapFile.startsWith(PAGES_DIR + path.sep) || !fs.existsSync(mapFile)) continue;
    sourceMaps.push({
      url: data.url,
      sourceMapUrl: sourceMapUrl.href,
      sourceMap: JSON.parse(fs.readFileSync(mapFile, 'utf8')),
    });
  }
  const metadata = { enhancedTraceVersion: 1, ...trace.metadata, sourceMaps };
  const text = JSON.stringify({ metadata, traceEvents: trace.traceEvents });
  fs.writeFileSync(file, zlib.gzipSync(text, { level: 9 }));
  console.log(`${file}: ${sourceMaps.length} source maps in metadata.sourceMaps`);
}

async function recordScenario(name, { port, scale, outDir, browserSession }) {
  const scenario = SCENARIOS[name];
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracekit-chromium-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: true,
    args: chromiumArgs(userDataDir),
  });
  try {
    // Desktop: Playwright's viewport (1280x720). Mobile: no Playwright emulation at all
    // (viewport: null), the Emulation commands below set the device instead, as the panel does.
    const context = await browser.newContext({ viewport: scenario.mobile ? null : { width: 1280, height: 720 } });
    const page = await context.newPage(); // about:blank
    // Tracing runs on the page target's session, as the panel does (it uses the tab target).
    // A browser-level session (--browser-session) records every process, but Chrome then emits
    // TracingStartedInBrowser without frames and no FrameCommittedInBrowser at all, and the
    // DevTools trace engine rejects such traces ("No frames found in trace data").
    // With the page session Chrome records the browser, the GPU process and every process of
    // the targets attached on this connection, added as they appear (the OOPIF's process, the
    // process of a cross-site navigation; workers live in their page's process).
    const cdp = browserSession ? await browser.newBrowserCDPSession() : await context.newCDPSession(page);

    // The page drives the recording through console messages.
    let resolveDone;
    const done = new Promise((resolve) => (resolveDone = resolve));
    page.on('console', (msg) => {
      const text = msg.text();
      if (text === 'tracekit:done') resolveDone();
      else if (text === 'tracekit:click') {
        page.mouse.click(CLICK_POINT.x, CLICK_POINT.y).catch((e) => console.error(`click failed: ${e.message}`));
      } else if (text === 'tracekit:type') {
        // Focus the input with a real click (an interaction of its own), then real key events
        // (Input.dispatchKeyEvent), so that the page's keydown handler runs as for a user.
        (async () => {
          await page.mouse.click(TYPE_POINT.x, TYPE_POINT.y);
          await page.keyboard.type(TYPED_TEXT, { delay: TYPE_KEY_DELAY_MS });
        })().catch((e) => console.error(`typing failed: ${e.message}`));
      }
    });
    page.on('pageerror', (err) => console.error(`[${name}] page error: ${err.message}`));

    if (scenario.mobile) {
      // Before Tracing.start: in the panel, device mode and CPU throttling are switched on
      // before a recording starts; and before the navigation, so that the page loads as on
      // the device from its first byte.
      // (Emulation is a page domain: with --browser-session it goes on a page session of its own.)
      const emu = browserSession ? await context.newCDPSession(page) : cdp;
      await emu.send('Emulation.setDeviceMetricsOverride', MOBILE.metrics);
      await emu.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
      await emu.send('Emulation.setUserAgentOverride', { userAgent: MOBILE.userAgent(browser.version()), platform: 'Android' });
      await emu.send('Emulation.setCPUThrottlingRate', { rate: MOBILE.cpuThrottlingRate });
    }

    const url = `http://a.test:${port}/${scenario.page}?scale=${scale}`;
    if (scenario.traceAfterLoad) {
      await page.goto(url, { waitUntil: 'load' });
      // Until the browser's window has settled too (the tab's throbber stops a little after
      // the load event; repainting the toolbar then is a megabyte of picture).
      await new Promise((r) => setTimeout(r, TRACE_AFTER_LOAD_WAIT_MS));
    }
    await cdp.send('Tracing.start', {
      transferMode: 'ReturnAsStream',
      streamFormat: 'json',
      streamCompression: 'none',
      traceConfig: {
        // As the panel's TracingManager: record until full, with a 1.2 GB buffer.
        recordMode: 'recordUntilFull',
        traceBufferSizeInKb: 1200 * 1000,
        includedCategories: [
          ...CATEGORIES,
          ...(scenario.screenshots ? [SCREENSHOT_CATEGORY] : []),
          ...(scenario.categories || []),
        ],
      },
    });

    const timeoutMs = 60_000 + 30_000 * scale;
    const started = Date.now();
    if (!scenario.traceAfterLoad) await page.goto(url, { waitUntil: 'commit' });
    let timer;
    await Promise.race([
      done,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name}: no "tracekit:done" after ${timeoutMs} ms`)), timeoutMs);
      }),
    ]).finally(() => clearTimeout(timer));
    const workMs = Date.now() - started;
    // Let the last frame be produced and the samplers flush before stopping.
    await new Promise((r) => setTimeout(r, 500));

    const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
    await cdp.send('Tracing.end');
    const { stream, dataLossOccurred } = await complete;
    if (dataLossOccurred) console.error(`[${name}] warning: Chrome reports trace data loss`);
    const file = path.join(outDir, `${name}.json.gz`);
    const { events, rawBytes } = await streamToGzipFile(cdp, stream, file);
    if (scenario.sourceMaps) withSourceMaps(file, port);
    const gz = fs.statSync(file).size;
    console.log(
      `${file}: ${(gz / 1e6).toFixed(2)} MB gzipped, ${(rawBytes / 1e6).toFixed(2)} MB raw, ` +
        `${events} events (workload ${(workMs / 1000).toFixed(1)} s, scale ${scale})`,
    );
    await cdp.detach().catch(() => {});
  } finally {
    await browser.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  fs.mkdirSync(opts.out, { recursive: true });
  const server = await startServer();
  const { port } = server.address();
  try {
    for (const name of opts.scenarios) {
      await recordScenario(name, { port, scale: opts.scale, outDir: opts.out, browserSession: opts.browserSession });
    }
  } finally {
    server.close();
  }
}

main().catch((e) => {
  console.error(e?.stack || String(e));
  process.exit(1);
});
