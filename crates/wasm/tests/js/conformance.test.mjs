// Every fixture through the package, streamed in 64 KiB chunks: its
// `trace.conformance()` is the DevTools golden where tracekit meets no
// documented divergence, and always the native CLI's dump, byte for byte;
// a fixture the CLI refuses throws the CLI's message.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { fixtures, loadPackage, loadInChunks, read, runCli } from './support.mjs';

const tracekit = await loadPackage();
let comparedWithGolden = 0;

for (const fixture of fixtures()) {
  test(fixture.name, () => {
    const native = runCli(['tracks', fixture.path, '--format', 'conformance', '-q']);
    let trace;
    try {
      trace = loadInChunks(tracekit, read(fixture.path), 64 << 10);
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

test('the goldens were compared, not only the CLI', () => {
  const withGolden = fixtures().filter((f) => f.golden).length;
  assert.ok(comparedWithGolden >= withGolden / 2, `${comparedWithGolden} of ${withGolden} fixtures with a golden`);
});
