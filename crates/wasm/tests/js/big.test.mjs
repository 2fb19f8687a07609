// A 700 MB trace streamed through the package in 64 KiB chunks gives the
// native CLI's answer (compared by hash) within wasm32's 4 GB: the Loader
// keeps what the tracks need, not the input. The trace is generated here,
// never written to disk: copies of a fixture one after the other, each
// later in time and in other processes and threads (as `cargo xtask bench
// --scaling` replicates its trace, xtask/src/bench/replicate.rs), fed to
// the package and to the CLI's standard input at once.
//
// TRACEKIT_BIG_MB sets the size (default 700).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

import { loadPackage, read, root, startCli } from './support.mjs';

const tracekit = await loadPackage();
const SIZE = Number(process.env.TRACEKIT_BIG_MB ?? 700) * 1e6;
const CHUNK = 64 << 10;

/** Keys of `args` (at any depth) whose integer values are process or thread ids. */
const ID_KEYS = new Set(['pid', 'tid', 'processId', 'process_id', 'child_process_id', 'process id', 'threadId', 'workerThreadId']);
/** Events whose `args` hold absolute times under `startTime` / `endTime`. */
const PROFILE_EVENTS = new Set(['Profile', 'ProfileChunk', 'CpuProfile']);

/** Copies of a trace's events, copy `k` moved by `k` spans in time and `k` offsets in ids. */
function replicator(trace) {
  const events = trace.traceEvents;
  let min = Infinity;
  let max = -Infinity;
  let maxId = 0;
  for (const e of events) {
    if (typeof e.ts === 'number' && e.ts !== 0) {
      min = Math.min(min, e.ts);
      max = Math.max(max, e.ts + Math.max(typeof e.dur === 'number' ? e.dur : 0, 0));
    }
    for (const id of [e.pid, e.tid]) if (Number.isInteger(id)) maxId = Math.max(maxId, id);
  }
  const shift = Math.ceil((max - min + 1e6) / 1e6) * 1e6;
  let offset = 10;
  while (offset <= maxId) offset *= 10;

  function moveArgs(value, k, isProfile) {
    if (Array.isArray(value)) return value.map((v) => moveArgs(v, k, isProfile));
    if (value === null || typeof value !== 'object') return value;
    const out = {};
    for (const [key, v] of Object.entries(value)) {
      if (ID_KEYS.has(key) && Number.isInteger(v)) out[key] = v + k * offset;
      else if (isProfile && (key === 'startTime' || key === 'endTime') && typeof v === 'number') out[key] = v + k * shift;
      else out[key] = moveArgs(v, k, isProfile);
    }
    return out;
  }

  /** The text of copy `k`'s events, each followed by a comma and a newline. */
  return function copy(k) {
    const parts = [];
    for (const e of events) {
      if (k === 0) {
        parts.push(JSON.stringify(e));
        continue;
      }
      const moved = { ...e };
      if (typeof e.ts === 'number' && e.ts !== 0) moved.ts = e.ts + k * shift;
      if (Number.isInteger(e.pid)) moved.pid = e.pid + k * offset;
      if (Number.isInteger(e.tid)) moved.tid = e.tid + k * offset;
      if (e.args !== undefined) moved.args = moveArgs(e.args, k, PROFILE_EVENTS.has(e.name));
      parts.push(JSON.stringify(moved));
    }
    return parts.join(',\n') + ',\n';
  };
}

test(`a ${SIZE / 1e6} MB trace in 64 KiB chunks gives the CLI's answer`, { timeout: 30 * 60 * 1000 }, async (t) => {
  const source = JSON.parse(new TextDecoder().decode(gunzipSync(read(join(root, 'fixtures/traces/kitchen-sink.json.gz')))));
  const copy = replicator(source);
  const native = startCli(['tracks', '-', '--format', 'conformance', '-q', '--max-nodes', '100000000']);
  const nativeHash = createHash('sha256');
  let nativeBytes = 0;
  native.child.stdout.on('data', (d) => {
    nativeHash.update(d);
    nativeBytes += d.length;
  });
  const loader = new tracekit.Loader({ maxNodes: 100000000 });
  const encoder = new TextEncoder();
  let pushTime = 0;
  let sent = 0;
  const send = async (text) => {
    const bytes = encoder.encode(text);
    const started = performance.now();
    for (let at = 0; at < bytes.length; at += CHUNK) {
      loader.push(bytes.subarray(at, at + CHUNK));
    }
    pushTime += performance.now() - started;
    sent += bytes.length;
    if (!native.child.stdin.write(bytes)) {
      await new Promise((resolve) => native.child.stdin.once('drain', resolve));
    }
  };

  await send('{"traceEvents":[\n');
  let k = 0;
  while (sent < SIZE) {
    await send(copy(k++));
  }
  // The last event, without a comma after it, and the trace's metadata.
  await send(`{"name":"end","ph":"M","pid":1,"tid":1,"ts":0}],"metadata":${JSON.stringify(source.metadata ?? {})}}\n`);
  native.child.stdin.end();

  const started = performance.now();
  const trace = loader.finish();
  const finishTime = performance.now() - started;
  const dump = trace.conformance();
  trace.free();
  const ours = createHash('sha256').update(dump).digest('hex');
  const memory = tracekit.memoryBytes();
  const { status, stderr } = await native.done;
  assert.equal(status, 0, stderr);
  t.diagnostic(
    `${(sent / 1e6).toFixed(0)} MB in ${k} copies: push ${(pushTime / 1000).toFixed(1)} s, finish ${(finishTime / 1000).toFixed(1)} s, ` +
      `${((sent / 1e6) / ((pushTime + finishTime) / 1000)).toFixed(0)} MB/s; dump ${(dump.length / 1e6).toFixed(0)} MB; ` +
      `WebAssembly memory ${(memory / 2 ** 20).toFixed(0)} MiB`,
  );
  assert.equal(Buffer.byteLength(dump), nativeBytes, 'the dump has the CLI\'s length');
  assert.equal(ours, nativeHash.digest('hex'), 'the dump has the CLI\'s hash');
  assert.ok(memory < sent, 'the module holds less than the input');
});
