// Throughput of the package in Node against the native CLI on one trace
// (not a test: a measurement, for docs/wasm.md's figures):
//
//   node crates/wasm/tests/js/throughput.mjs PKG_DIR TRACEKIT_CLI TRACE [RUNS]
//
// The package: the file read into memory first, then pushed in 1 MiB
// chunks, finished, and its conformance dump made (as a string). The CLI:
// `tracekit tracks TRACE --format conformance --threads 1 -o /dev/null`.
// Median wall time of RUNS runs of each (default 3), alternating.

import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [packageDir, cli, trace, runsText] = process.argv.slice(2);
if (!trace) {
  console.error('usage: node throughput.mjs PKG_DIR TRACEKIT_CLI TRACE [RUNS]');
  process.exit(2);
}
const runs = Number(runsText ?? 3);
const tracekit = await import(pathToFileURL(join(packageDir, 'tracekit.js')).href);
await tracekit.init();

const bytes = new Uint8Array(readFileSync(trace));
const size = statSync(trace).size;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const ours = [];
const native = [];
let dumpLength = 0;
for (let run = 0; run < runs; run++) {
  const started = performance.now();
  const loader = new tracekit.Loader();
  for (let at = 0; at < bytes.length; at += 1 << 20) {
    loader.push(bytes.subarray(at, at + (1 << 20)));
  }
  const loaded = loader.finish();
  dumpLength = loaded.conformance().length;
  loaded.free();
  ours.push((performance.now() - started) / 1000);

  const nativeStarted = performance.now();
  const result = spawnSync(cli, ['tracks', trace, '--format', 'conformance', '--threads', '1', '-q', '-o', '/dev/null']);
  if (result.status !== 0) throw new Error(`the CLI failed: ${result.stderr}`);
  native.push((performance.now() - nativeStarted) / 1000);
}
const mb = size / 1e6;
const [w, n] = [median(ours), median(native)];
console.log(`${trace}: ${mb.toFixed(1)} MB (as read), dump ${(dumpLength / 1e6).toFixed(1)} MB`);
console.log(`package in Node: ${w.toFixed(2)} s, ${(mb / w).toFixed(1)} MB/s`);
console.log(`CLI --threads 1: ${n.toFixed(2)} s, ${(mb / n).toFixed(1)} MB/s`);
console.log(`package / CLI speed: ${(n / w).toFixed(2)}; module memory ${(tracekit.memoryBytes() / 2 ** 20).toFixed(0)} MiB`);
