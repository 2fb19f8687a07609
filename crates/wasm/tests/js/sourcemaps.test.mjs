// Source maps in the package (docs/sourcemaps.md): maps pushed as bytes,
// text or objects (the `sourceMaps` option of analyze(), a Loader and
// load(); trace.applySourceMaps()) and fetched by a `resolveSourceMap`
// callback, as DevTools' option: on the esbuild fixture
// (fixtures/sourcemaps/), the Bottom-Up's top functions are the names the
// source declares, and the call tree is the CLI's with --source-maps.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { loadPackage, read, root, runCli } from './support.mjs';

const tracekit = await loadPackage();
const dir = join(root, 'fixtures/sourcemaps');

/** The function names fixtures/sourcemaps/src declares. */
function declared() {
  const names = new Set();
  for (const file of readdirSync(join(dir, 'src'))) {
    for (const piece of readFileSync(join(dir, 'src', file), 'utf8').split('function ').slice(1)) {
      names.add(piece.split('(')[0].trim());
    }
  }
  return names;
}

/** The JS functions of the Bottom-Up's roots with the most self time. */
function topFunctions(view, n = 5) {
  return view.threads[0].bottomUp
    .filter((row) => row.depth === 0 && row.url !== '' && !row.name.startsWith('('))
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, n)
    .map((row) => row.name);
}

const source = declared();

for (const bundle of ['bundle', 'bundle-nocontent']) {
  const profilePath = join(dir, `${bundle}.cpuprofile`);
  const profile = read(profilePath);
  const mapPath = join(dir, `${bundle}.js.map`);
  const mapBytes = read(mapPath);
  const native = JSON.parse(
    runCli(['calltree', profilePath, '--format', 'json', '-q', '--source-maps', mapPath]).stdout,
  );

  test(`${bundle}: the Bottom-Up's top functions are the source's names`, async () => {
    assert.ok(source.has('runPrimes') && source.has('sieveOfEratosthenes'), [...source].join());
    const minified = topFunctions(tracekit.analyze(profile).callTree());
    assert.ok(minified.length >= 4 && minified.every((name) => name.length === 1), minified.join());

    const text = new TextDecoder().decode(mapBytes);
    const given = [
      ['analyze(), bytes by file name', () => tracekit.analyze(profile, { sourceMaps: { [`${bundle}.js.map`]: mapBytes } })],
      ['analyze(), text by URL', () => tracekit.analyze(profile, { sourceMaps: new Map([[`https://cdn.test/${bundle}.js.map`, text]]) })],
      ['a Loader, the object', () => {
        const loader = new tracekit.Loader({ sourceMaps: [[`${bundle}.js.map`, JSON.parse(text)]] });
        loader.push(profile);
        return loader.finish();
      }],
      ['applySourceMaps()', () => {
        const trace = tracekit.analyze(profile);
        trace.applySourceMaps({ [`${bundle}.js.map`]: mapBytes.buffer });
        return trace;
      }],
      ['load()', () => tracekit.load(profile, { sourceMaps: { [`${bundle}.js.map`]: mapBytes } })],
    ];
    for (const [how, make] of given) {
      const trace = await make();
      const names = topFunctions(trace.callTree());
      assert.ok(names.length >= 4 && names.every((name) => source.has(name)), `${how}: ${names.join()}`);
      assert.deepEqual(trace.callTree(), native, how);
      assert.equal(trace.sourceMapReport.problems.length, 0, `${how}: ${trace.sourceMapReport.problems}`);
      assert.ok(trace.sourceMapReport.framesRenamed >= 4, how);
    }
  });

  test(`${bundle}: resolveSourceMap is asked for each script URL and its answer applied`, async () => {
    const asked = [];
    const trace = await tracekit.load(profile, {
      resolveSourceMap: async ({ scriptId, scriptUrl, sourceMapUrl }) => {
        asked.push(scriptUrl);
        assert.equal(typeof scriptId, 'string');
        assert.equal(sourceMapUrl, null, 'a .cpuprofile declares no source map URL');
        return scriptUrl.endsWith(`/${bundle}.js`) ? mapBytes : null;
      },
    });
    assert.ok(asked.some((url) => url.endsWith(`/${bundle}.js`)), asked.join());
    assert.equal(new Set(asked).size, asked.length, 'each script URL once');
    assert.deepEqual(trace.callTree(), native);
    assert.deepEqual(trace.sourceMapReport.mapsUsed, [asked.find((url) => url.endsWith(`/${bundle}.js`)) + '.map']);

    // What the callback throws is a problem of the report, not an error.
    const failing = tracekit.analyze(profile);
    const report = await failing.resolveSourceMaps((request) => {
      if (request.scriptUrl.endsWith(`/${bundle}.js`)) throw new Error('offline');
      return undefined;
    });
    assert.equal(report.framesResolved, 0);
    assert.match(report.problems.join('\n'), new RegExp(`${bundle}\\.js: resolveSourceMap threw: offline`));
  });
}

test('an enhanced trace: its own maps, alone or left out', async () => {
  const enhanced = read(join(dir, 'enhanced-trace.json'));
  const names = (trace) => trace.tracks().processes.flatMap((p) => p.threads.flatMap((t) => t.nodes.map((n) => n.functionName ?? n.name)));
  assert.ok(names(tracekit.analyze(enhanced)).includes('a'));
  const trace = tracekit.analyze(enhanced, { allHandlers: true });
  trace.applySourceMaps();
  assert.ok(names(trace).includes('render') && !names(trace).includes('a'), names(trace).join());
  const unapplied = tracekit.analyze(enhanced);
  unapplied.applySourceMaps({}, { embedded: false });
  assert.ok(names(unapplied).includes('a'));
});

test('bad maps and bad arguments', () => {
  const profile = read(join(dir, 'bundle.cpuprofile'));
  const trace = tracekit.analyze(profile, { sourceMaps: { 'bundle.js.map': read(join(dir, 'broken/bundle.js.map')) } });
  assert.equal(trace.sourceMapReport.problems.length, 1, trace.sourceMapReport.problems.join());
  assert.ok(topFunctions(trace.callTree()).every((name) => name.length === 1));
  assert.throws(() => trace.applySourceMaps({}), /already applied/);
  assert.throws(() => tracekit.analyze(profile, { sourceMaps: { 'bundle.js.map': 42 } }), TypeError);
  assert.throws(() => tracekit.analyze(profile, { sourceMaps: 'bundle.js.map' }), TypeError);
  assert.throws(() => tracekit.analyze(profile, { resolveSourceMap: () => null }), /load\(\)/);
});
