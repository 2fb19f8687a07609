// The package's API against the CLI: tracks() is `tracks --format json`
// with the same filters, tracksPacked() holds the same nodes as tracks(),
// callTree() is `calltree --format json` (with `--group-by`: each
// grouping, loaded with and without {groupArgs: true}), chart() is the
// data `tracekit chart` puts in its page, diagnostics().text is what
// `--stats` prints; init() is idempotent and required.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';

import { loadPackage, packageDir, read, root, runCli } from './support.mjs';

test('calls before init() say to call it', async () => {
  const fresh = await import(`${pathToFileURL(join(packageDir, 'tracekit.js')).href}?before-init`);
  assert.throws(() => new fresh.Loader(), /init\(\)/);
  const first = fresh.init();
  assert.equal(fresh.init(), first, 'init() returns the same promise');
  await first;
  await fresh.init();
  assert.match(fresh.version(), /^\d+\.\d+\.\d+/);
});

const tracekit = await loadPackage();

const TRACES = ['fixtures/traces/main-thread.json.gz', 'fixtures/traces/node-work.cpuprofile.gz', 'fixtures/handwritten/truncated.json'];

/** The CLI's arguments for a query, as the package's options. */
const QUERIES = [
  [[], {}],
  [['--thread', 'CrRendererMain', '--max-depth', '3'], { thread: 'CrRendererMain', maxDepth: 3 }],
  [['--window', '100..300', '--min-duration', '0.5'], { window: [100, 300], minDuration: 0.5 }],
  [['--window', '..50'], { window: { end: 50 } }],
];

/** The nodes of tracks() rebuilt from the packed columns. */
function unpackNodes(packed, thread) {
  const { strings } = packed;
  const { nodes, frames } = thread;
  const out = [];
  const nullable = (x) => (Number.isNaN(x) ? null : x);
  for (let i = 0; i < nodes.length; i++) {
    const common = { depth: nodes.depth[i] };
    if (nodes.type[i] === tracekit.NODE_EVENT) {
      Object.assign(common, {
        type: 'event',
        name: strings[nodes.name[i]],
        cat: strings[nodes.category[i]],
        ph: String.fromCharCode(nodes.phase[i]),
      });
      assert.equal(nodes.frame[i], -1);
    } else {
      const f = nodes.frame[i];
      assert.equal(strings[nodes.name[i]], strings[frames.functionName[f]]);
      Object.assign(common, {
        type: 'js',
        functionName: strings[frames.functionName[f]],
        url: strings[frames.url[f]],
        scriptId: strings[frames.scriptId[f]],
        lineNumber: nullable(frames.lineNumber[f]),
        columnNumber: nullable(frames.columnNumber[f]),
        nodeId: frames.nodeId[f],
      });
    }
    out.push({ ...common, ts: nodes.ts[i], dur: nodes.dur[i], self: nullable(nodes.self[i]) });
  }
  return out;
}

for (const name of TRACES) {
  const path = join(root, name);
  test(`${name}: tracks(), tracksPacked(), callTree() and diagnostics() are the CLI's`, () => {
    const trace = tracekit.analyze(read(path));
    try {
      for (const [args, options] of QUERIES) {
        const native = runCli(['tracks', path, '--format', 'json', '-q', ...args]);
        if (native.status !== 0) {
          assert.throws(() => trace.tracks(options), { message: native.stderr.trim().replace(`tracekit: ${path}: `, '') });
          continue;
        }
        const tracks = trace.tracks(options);
        assert.deepEqual(tracks, JSON.parse(native.stdout), `tracks(${JSON.stringify(options)})`);

        const packed = trace.tracksPacked(options);
        assert.equal(packed.format, 'tracekit-tracks-packed');
        assert.deepEqual(packed.bounds, tracks.bounds);
        assert.equal(packed.processes.length, tracks.processes.length);
        tracks.processes.forEach((process, p) => {
          const packedProcess = packed.processes[p];
          for (const key of ['pid', 'url', 'isOnMainFrame', 'keptByDevTools']) {
            assert.equal(packedProcess[key], process[key]);
          }
          assert.equal(packedProcess.threads.length, process.threads.length);
          process.threads.forEach((thread, t) => {
            const packedThread = packedProcess.threads[t];
            assert.equal(packedThread.tid, thread.tid);
            assert.equal(packedThread.name, thread.name);
            // The packed form has no `detail` (what tells an event apart).
            const nodes = thread.nodes.map(({ detail, ...node }) => node);
            assert.deepEqual(unpackNodes(packed, packedThread), nodes, `packed nodes of tid ${thread.tid}`);
          });
        });
      }

      for (const [args, options] of [
        [[], {}],
        [['--window', '10..200', '--max-depth', '2'], { window: [10, 200], maxDepth: 2 }],
      ]) {
        const native = runCli(['calltree', path, '--format', 'json', '-q', ...args]);
        if (native.status !== 0) {
          assert.throws(() => trace.callTree(options), { message: native.stderr.trim().replace(`tracekit: ${path}: `, '') });
          continue;
        }
        const both = JSON.parse(native.stdout);
        assert.deepEqual(trace.callTree(options), both);
        const bottomUp = trace.callTree({ ...options, bottomUp: true });
        assert.deepEqual(
          bottomUp.threads.map((t) => t.bottomUp),
          both.threads.map((t) => t.bottomUp),
        );
        assert.ok(bottomUp.threads.every((t) => !('topDown' in t)));
        assert.ok(trace.callTree({ ...options, bottomUp: false }).threads.every((t) => !('bottomUp' in t)));
      }

      const stats = runCli(['tracks', path, '--stats', '--format', 'conformance']);
      const diagnostics = trace.diagnostics();
      const warnings = stats.stderr
        .split('\n')
        .filter((l) => l.startsWith('tracekit: warning: '))
        .map((l) => l.replace(`tracekit: warning: ${path}: `, ''));
      const statsLines = stats.stderr.split('\n').filter((l) => l && !l.startsWith('tracekit: '));
      assert.deepEqual(diagnostics.warnings, warnings);
      const [inputLine, ...rest] = statsLines;
      assert.equal(diagnostics.text, [inputLine, ...warnings.map((w) => `warning: ${w}`), ...rest].join('\n') + '\n');
      assert.equal(diagnostics.input, trace.tracks().input);
    } finally {
      trace.free();
    }
  });
}

test('allProcesses: the processes DevTools drops are built too', () => {
  const path = join(root, 'fixtures/traces/kitchen-sink.json.gz');
  const all = tracekit.analyze(read(path), { allProcesses: true });
  const native = runCli(['tracks', path, '--format', 'conformance', '--all-processes', '-q']);
  assert.equal(all.conformance(), native.stdout);
  assert.ok(all.tracks().processes.some((p) => !p.keptByDevTools));
  all.free();
});

/** The flame chart's data in a page of `tracekit chart`: the header, the columns inflated, the images. */
function chartOfPage(html) {
  const header = html.match(/<script id="tracekit-chart-header" type="application\/json">(.*?)<\/script>/s)[1];
  const columns = html.match(/<script id="tracekit-chart-columns"[^>]*>(.*?)<\/script>/s)[1];
  const images = html.match(/<script id="tracekit-chart-images"[^>]*>(.*?)<\/script>/s)[1];
  return {
    header: JSON.parse(header),
    columns: new Uint8Array(inflateRawSync(Buffer.from(columns.trim(), 'base64'))),
    images: images.split('\n').filter((line) => line.trim()).map((line) => Buffer.from(line.trim(), 'base64')),
  };
}

for (const [name, args, options] of [
  ['fixtures/traces/kitchen-sink.json.gz', [], {}],
  ['fixtures/traces/main-thread.json.gz', ['--thread', 'CrRendererMain', '--window', '100..900'], { thread: 'CrRendererMain', window: [100, 900] }],
  ['fixtures/traces/node-work.cpuprofile.gz', [], {}],
]) {
  test(`${name}: chart(${JSON.stringify(options)}) is the data of \`tracekit chart\``, () => {
    const path = join(root, name);
    const native = runCli(['chart', path, '-o', '-', '-q', ...args]);
    assert.equal(native.status, 0, native.stderr);
    const expected = chartOfPage(native.stdout);
    // `tracekit chart` draws the page's tracks, from every handler's data.
    const trace = tracekit.analyze(read(path), { allHandlers: true });
    try {
      const chart = trace.chart({ ...options, title: basename(name) });
      assert.deepEqual(chart.header, expected.header);
      assert.equal(chart.images.length, expected.images.length);
      chart.images.forEach((image, i) => assert.ok(Buffer.from(image).equals(expected.images[i]), `image ${i}`));
      assert.ok(chart.columns instanceof Uint8Array);
      assert.equal(chart.columns.length, chart.header.bytes);
      assert.ok(Buffer.from(chart.columns).equals(Buffer.from(expected.columns)), 'the columns');
      assert.ok(chart.header.lanes.length > 0 && chart.header.lanes.every((l) => l.nodes > 0));
    } finally {
      trace.free();
    }
  });
}

test('chart() checks its options as tracks() does', () => {
  const trace = tracekit.analyze(read(join(root, 'fixtures/traces/main-thread.json.gz')));
  try {
    assert.throws(() => trace.chart({ thread: 'gpu' }), { message: /^no thread matches 'gpu'; threads: / });
    assert.throws(() => trace.chart({ title: 3 }), TypeError);
    assert.throws(() => trace.chart({ window: [5000, 6000] }), { message: /lies outside the trace/ });
  } finally {
    trace.free();
  }
});

const GROUPINGS = ['none', 'category', 'domain', 'subdomain', 'url', 'frame'];

for (const name of ['fixtures/traces/main-thread.json.gz', 'fixtures/handwritten/views/grouping.json', 'fixtures/traces/node-work.cpuprofile.gz']) {
  test(`${name}: callTree({groupBy}) is \`tracekit calltree --group-by\``, () => {
    const path = join(root, name);
    const bytes = read(path);
    const grouped = tracekit.analyze(bytes, { groupArgs: true });
    const plain = tracekit.analyze(bytes);
    try {
      for (const groupBy of GROUPINGS) {
        for (const [args, options] of [
          [[], {}],
          [['--window', '10..900', '--max-depth', '3'], { window: [10, 900], maxDepth: 3 }],
        ]) {
          const native = runCli(['calltree', path, '--format', 'json', '-q', '--group-by', groupBy, ...args]);
          const what = `groupBy ${groupBy} ${JSON.stringify(options)}`;
          if (native.status !== 0) {
            assert.throws(() => grouped.callTree({ ...options, groupBy }), { message: native.stderr.trim().replace(`tracekit: ${path}: `, '') }, what);
            continue;
          }
          const expected = JSON.parse(native.stdout);
          assert.deepEqual(grouped.callTree({ ...options, groupBy }), expected, what);
          const bottomUp = grouped.callTree({ ...options, groupBy, bottomUp: true });
          assert.deepEqual(bottomUp.threads.map((t) => t.bottomUp), expected.threads.map((t) => t.bottomUp), what);
          if (groupBy !== 'none') {
            assert.ok(expected.threads.some((t) => t.topDown.some((row) => row.group)), `${what}: group rows`);
          }
          // Without the events' URLs and frames, the kinds that read them
          // are an error naming the option that keeps them.
          if (['none', 'category'].includes(groupBy) || name.endsWith('.cpuprofile.gz')) {
            assert.deepEqual(plain.callTree({ ...options, groupBy }), expected, `${what}, loaded without groupArgs`);
          } else {
            assert.throws(() => plain.callTree({ ...options, groupBy }), {
              message: `grouping by ${groupBy} needs what the trace's events say of their URLs and frames: load with {groupArgs: true}`,
            });
          }
        }
      }
      assert.throws(() => grouped.callTree({ groupBy: 'third-party' }), { message: /^groupBy: expected one of 'none', 'category', / });
      assert.throws(() => grouped.callTree({ groupBy: 1 }), TypeError);
      assert.throws(() => new tracekit.Loader({ groupArgs: 'yes' }), TypeError);
    } finally {
      grouped.free();
      plain.free();
    }
  });
}

test('data() is `tracekit data`', () => {
  const path = join(root, 'fixtures/traces/worker.json.gz');
  const trace = tracekit.analyze(read(path), { allHandlers: true });
  try {
    for (const format of ['json', 'conformance']) {
      const native = runCli(['data', path, '--format', format]);
      assert.equal(native.status, 0, native.stderr);
      assert.deepEqual(trace.data({ format }), JSON.parse(native.stdout), format);
    }
    const one = runCli(['data', path, '--handler', 'Workers']);
    assert.deepEqual(trace.data({ handlers: ['Workers'] }), JSON.parse(one.stdout));
    assert.throws(() => trace.data({ handlers: ['Nope'] }), { message: /^tracekit: no handler named 'Nope' \(handlers: .*Workers/ });
    assert.throws(() => trace.data({ format: 'xml' }), TypeError);
  } finally {
    trace.free();
  }
  const tracksOnly = tracekit.analyze(read(path));
  try {
    assert.throws(() => tracksOnly.data(), { message: /with_all_handlers/ });
  } finally {
    tracksOnly.free();
  }
  assert.throws(() => new tracekit.Loader({ allHandlers: 1 }), TypeError);
});

test('initiators() and warnings() are those of `tracks --why --format json`; scripts() those of info', () => {
  const path = join(root, 'fixtures/traces/page-load.json.gz');
  const trace = tracekit.analyze(read(path), { allHandlers: true });
  try {
    const native = runCli(['tracks', path, '--why', '--format', 'json']);
    assert.equal(native.status, 0, native.stderr);
    const doc = JSON.parse(native.stdout);
    const nodes = new Map();
    for (const p of doc.processes) {
      for (const t of p.threads) {
        t.nodes.forEach((n, i) => nodes.set(`${p.pid}/${t.tid}/${i}`, n));
      }
    }
    const initiators = trace.initiators();
    assert.ok(initiators.length > 100, `${initiators.length}`);
    let onTracks = 0;
    for (const { event, initiator, kind } of initiators) {
      if (event.node === null) continue;
      onTracks += 1;
      const node = nodes.get(`${event.pid}/${event.tid}/${event.node}`);
      assert.equal(node.ts, event.ts);
      assert.deepEqual(node.initiator, { ...initiator, kind });
    }
    const withInitiator = [...nodes.values()].filter((n) => n.initiator).length;
    assert.equal(onTracks, withInitiator);
    assert.ok(initiators.some((i) => i.kind === 'timer' && i.initiator.name === 'TimerInstall'));
    const warnings = trace.warnings();
    const count = (label) => warnings.filter((w) => w.label === label).length;
    assert.deepEqual(
      [count('long task'), count('idle callback over time'), count('long interaction')],
      [5, 1, 2],
    );
    const marked = [...nodes.values()].filter((n) => n.warnings).flatMap((n) => n.warnings);
    assert.deepEqual(
      marked.sort(),
      warnings.filter((w) => w.entry.node !== null).map((w) => w.warning).sort(),
    );
    const insights = trace.insights();
    const native_insights = runCli(['insights', path, '--format', 'json']);
    assert.equal(native_insights.status, 0, native_insights.stderr);
    assert.deepEqual(insights, JSON.parse(native_insights.stdout));
    const set = insights.insights.find((s) => s.navigation !== null);
    assert.equal(set.model.INPBreakdown.state, 'fail');
    assert.equal(trace.insights({ format: 'text' }), runCli(['insights', path]).stdout);
    assert.throws(() => trace.insights({ format: 'xml' }), /format/);
    const scripts = trace.scripts();
    assert.equal(scripts.length, 13);
    assert.ok(scripts.every((s) => !s.hasSourceMap && typeof s.scriptId === 'string'));
  } finally {
    trace.free();
  }
  const tracksOnly = tracekit.analyze(read(path));
  try {
    for (const method of ['initiators', 'warnings', 'scripts']) {
      assert.throws(() => tracksOnly[method](), { message: /with_all_handlers/ });
    }
  } finally {
    tracksOnly.free();
  }
});

test('network() is `tracekit network --format json`; metrics() the navigations', () => {
  const path = join(root, 'fixtures/traces/page-load.json.gz');
  const trace = tracekit.analyze(read(path), { allHandlers: true });
  try {
    const native = runCli(['network', path, '--format', 'json']);
    assert.equal(native.status, 0, native.stderr);
    const requests = trace.network();
    assert.deepEqual(requests, JSON.parse(native.stdout));
    assert.equal(requests.length, 13);
    const [nav, ...others] = trace.metrics();
    assert.equal(others.length, 0);
    assert.match(nav.url, /^http:\/\/a\.test:\d+\/page-load\.html/);
    assert.ok(nav.fcp.value > 0 && nav.fcp.value <= nav.lcp.value, JSON.stringify(nav));
    assert.equal(nav.lcp.rating, 'good');
    assert.match(nav.lcpImage, /img\.png/);
    assert.ok(nav.cls.value > 0 && nav.cls.shifts > 0 && nav.cls.clusterStart > nav.start);
    assert.ok(['good', 'ok', 'bad'].includes(nav.inp.rating));
    const phases = nav.inp.inputDelay + nav.inp.processing + nav.inp.presentationDelay;
    assert.ok(Math.abs(phases - nav.inp.value) < 0.01, `${phases} vs ${nav.inp.value}`);
    assert.equal(nav.tbt, null);
  } finally {
    trace.free();
  }
  const tracksOnly = tracekit.analyze(read(path));
  try {
    assert.throws(() => tracksOnly.network(), { message: /with_all_handlers/ });
    assert.throws(() => tracksOnly.metrics(), { message: /with_all_handlers/ });
  } finally {
    tracksOnly.free();
  }
});

test('diff() is `tracekit diff --format json`, for a pair and for several runs', () => {
  const load = (rel, options) => tracekit.analyze(read(join(root, rel)), options);
  // A pair of page traces, with the page's keys.
  const [a, b] = ['fixtures/traces/page-load.json.gz', 'fixtures/traces/page-load-mobile.json.gz'];
  const base = load(a, { allHandlers: true });
  const next = load(b, { allHandlers: true });
  try {
    const native = runCli(['diff', join(root, a), join(root, b), '--format', 'json']);
    assert.equal(native.status, 0, native.stderr);
    const report = tracekit.diff(base, next, { failOn: ['LCP>+20ms', 'LCP>+100ms'] });
    const { crossed, ...rest } = report;
    assert.deepEqual(rest, JSON.parse(native.stdout));
    assert.deepEqual(crossed.map((c) => [c.threshold, c.row.key.name]), [['LCP>+20ms', 'LCP']]);
    assert.ok(report.rows.some((r) => r.key.kind === 'third-party' && r.unit === 'ms'));
    assert.ok(report.rows.some((r) => r.key.name === 'Requests' && r.unit === 'count' && r.base === 13));
    const text = runCli(['diff', join(root, a), join(root, b)]);
    assert.equal(tracekit.diff(base, next, { format: 'text' }), text.stdout);
    const md = runCli(['diff', join(root, a), join(root, b), '--format', 'markdown']);
    assert.equal(tracekit.diff(base, next, { format: 'markdown' }), md.stdout);
    assert.throws(() => tracekit.diff(base, next, { failOn: ['LCP>>1'] }), /threshold/);
    assert.throws(() => tracekit.diff(base, next, { format: 'xml' }), /format/);
    assert.throws(() => tracekit.diff(base, 'x'), /Trace/);
  } finally {
    base.free();
    next.free();
  }
  // Several runs per side: the recorded Node profiles, base against slowed.
  const runs = (dir) => [1, 2, 3, 4, 5, 6, 7].map((i) => `fixtures/diff/${dir}/run${i}.cpuprofile.gz`);
  const [baseRuns, slowRuns] = [runs('node-base'), runs('node-slow')];
  const traces = [baseRuns, slowRuns].map((side) => side.map((p) => load(p)));
  try {
    const native = runCli(['diff', '--base', ...baseRuns.map((p) => join(root, p)), '--new', ...slowRuns.map((p) => join(root, p)), '--format', 'json']);
    assert.equal(native.status, 0, native.stderr);
    const { crossed, ...report } = tracekit.diff(traces[0], traces[1], { failOn: ['self:render>+10%'] });
    assert.deepEqual(report, JSON.parse(native.stdout));
    assert.equal(report.base_runs, 7);
    assert.equal(crossed.length, 1);
    assert.match(report.rows[0].key.name, /^render /);
  } finally {
    traces.flat().forEach((t) => t.free());
  }
});
