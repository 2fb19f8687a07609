// Every fixture through the package, streamed in 64 KiB chunks, under
// each DevTools engine the `devtools` option names: its
// `trace.conformance()` is that engine's golden where tracekit meets no
// documented divergence, and always the native CLI's dump with the same
// `--devtools`, byte for byte; a fixture the CLI refuses throws the CLI's
// message. Then the option itself: left out, it is today's engine; the
// engines' answers differ on main-thread; a name it does not know is a
// one-line Error listing the names.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DEFAULT_DEVTOOLS, fixtures, loadPackage, loadInChunks, read, root, runCli } from './support.mjs';

const tracekit = await loadPackage();
const { versions } = tracekit.devtools();

for (const devtools of versions) {
  let comparedWithGolden = 0;

  for (const fixture of fixtures(devtools)) {
    test(`${fixture.name} (DevTools ${devtools})`, () => {
      const native = runCli(['tracks', fixture.path, '--format', 'conformance', '-q', '--devtools', devtools]);
      let trace;
      try {
        trace = loadInChunks(tracekit, read(fixture.path), 64 << 10, { devtools });
      } catch (e) {
        assert.notEqual(native.status, 0, `the package failed (${e.message}) where the CLI loads the trace`);
        assert.equal(`tracekit: ${fixture.path}: ${e.message}\n`, native.stderr);
        return;
      }
      try {
        assert.equal(native.status, 0, `the CLI failed where the package loads the trace: ${native.stderr}`);
        const dump = trace.conformance();
        assert.ok(dump === native.stdout, 'the dump differs from the CLI');
        const { divergences } = trace.diagnostics();
        if (fixture.golden && divergences.length === 0) {
          const golden = readFileSync(fixture.golden, 'utf8');
          assert.ok(dump.trim() === golden.trim(), `the dump differs from the golden ${fixture.golden}`);
          comparedWithGolden += 1;
        }
      } finally {
        trace.free();
      }
    });
  }

  test(`the goldens of DevTools ${devtools} were compared, not only the CLI`, () => {
    const withGolden = fixtures(devtools).filter((f) => f.golden).length;
    assert.ok(withGolden > 0, `no golden in fixtures/expected/${devtools}`);
    assert.ok(comparedWithGolden >= withGolden / 2, `${comparedWithGolden} of ${withGolden} fixtures with a golden`);
  });
}

test("devtools(): the engines, today's the default, as the CLI's --version says", () => {
  const engines = tracekit.devtools();
  assert.equal(engines.default, DEFAULT_DEVTOOLS);
  assert.deepEqual(engines.versions, ['2026-06', '2026-10']);
  assert.deepEqual(Object.keys(engines.engines), engines.versions);
  const version = runCli(['--version']);
  assert.equal(version.status, 0, version.stderr);
  assert.ok(
    version.stdout.includes(`answers as DevTools ${engines.default}:`),
    `the CLI's --version (${version.stdout.trim()}) names another default`,
  );
});

test('main-thread: left out, devtools is 2026-10; 2026-06 gives its own golden; the goldens differ', () => {
  const bytes = read(join(root, 'fixtures/traces/main-thread.json.gz'));
  const golden = (devtools) => readFileSync(join(root, 'fixtures/expected', devtools, 'main-thread.json'), 'utf8').trim();
  const today = golden('2026-10');
  const june = golden('2026-06');
  assert.notEqual(today, june, 'the two engines agree on main-thread: the test shows nothing');

  for (const [options, expected, what] of [
    [undefined, today, 'analyze() without options'],
    [{}, today, 'analyze({})'],
    [{ devtools: '2026-10' }, today, "devtools: '2026-10'"],
    [{ devtools: '2026-06' }, june, "devtools: '2026-06'"],
  ]) {
    for (const [trace, how] of [
      [tracekit.analyze(bytes, options), 'analyze'],
      [loadInChunks(tracekit, bytes, 64 << 10, options), 'Loader'],
    ]) {
      try {
        assert.equal(trace.diagnostics().divergences.length, 0, `${what}, ${how}: a divergence`);
        assert.ok(trace.conformance().trim() === expected, `${what}, ${how}: not the golden`);
      } finally {
        trace.free();
      }
    }
  }
});

test('devtools: an unknown name is a one-line Error listing the names; a wrong type a TypeError', () => {
  const bytes = read(join(root, 'fixtures/traces/main-thread.json.gz'));
  const message = "devtools: expected one of '2026-06', '2026-10', not '2026-11'";
  assert.throws(() => tracekit.analyze(bytes, { devtools: '2026-11' }), (e) => e instanceof Error && e.message === message);
  assert.throws(() => new tracekit.Loader({ devtools: '2026-11' }), (e) => e instanceof Error && e.message === message);
  assert.throws(() => new tracekit.Loader({ devtools: '' }), { message: "devtools: expected one of '2026-06', '2026-10', not ''" });
  assert.ok(!message.includes('\n'));
  assert.throws(() => new tracekit.Loader({ devtools: 2026 }), TypeError);
  assert.throws(() => tracekit.analyze(bytes, { devtools: null }), TypeError);
  // The module is still usable after the refusals.
  tracekit.analyze(bytes, { devtools: '2026-06' }).free();
});
