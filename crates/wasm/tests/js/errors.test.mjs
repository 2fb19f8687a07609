// Bad input throws an Error whose message is the CLI's one-line message
// (what `tracekit` prints after `tracekit: <stdin>: `), from finish() or
// from the push() that found it, whatever the chunks; a query that does
// not fit the trace throws the CLI's message too; nothing traps.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { cliMessage, loadPackage, read, root, runCli } from './support.mjs';

const tracekit = await loadPackage();
const text = (s) => new TextEncoder().encode(s);

/** The bad inputs, each refused by the CLI. */
const bad = {
  empty: new Uint8Array(0),
  whitespace: text(' \n\t \n'),
  'not JSON': text('hello, world'),
  'a JSON number': text('42'),
  'an object of another shape': text('{"foo": 1, "bar": [2]}'),
  'an unclosed object': text('{"traceEvents": [{"name": "a"'),
  'traceEvents not an array': text('{"traceEvents": 5}'),
  'binary garbage': new Uint8Array([0, 1, 2, 3, 0xff, 0xfe, 0, 0]),
  'a PNG': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 0x1a, 10, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
  'corrupt gzip': new Uint8Array([0x1f, 0x8b, 8, 0, ...text('garbagegarbagegarbage')]),
  'gzip of hello': new Uint8Array(gzipSync('hello')),
  'gzip of nothing': new Uint8Array(gzipSync('')),
  'a deep unclosed array': text('['.repeat(100000)),
  'a profile with nodes of the wrong type': text('{"nodes": 5, "startTime": 0, "endTime": 1}'),
};

/** Loads `bytes` in chunks of `size`; the message thrown, or null. */
function failure(bytes, size) {
  const loader = new tracekit.Loader();
  try {
    for (let at = 0; at < bytes.length; at += size) {
      loader.push(bytes.subarray(at, at + size));
    }
    loader.finish().free();
    return null;
  } catch (e) {
    assert.ok(e instanceof Error, `threw ${e}, not an Error`);
    return e.message;
  }
}

for (const [name, bytes] of Object.entries(bad)) {
  test(`${name}: the CLI's message`, () => {
    const native = runCli(['tracks', '-'], bytes);
    assert.equal(native.status, 1, `the CLI's status (${native.stderr})`);
    const expected = cliMessage(native.stderr);
    assert.equal(failure(bytes, 1 << 20), expected);
    assert.equal(failure(bytes, 3), expected, 'in chunks of 3 bytes');
    assert.throws(() => tracekit.analyze(bytes), { message: expected });
  });
}

test('a loader that failed keeps failing with the same message; a finished one says so', () => {
  const loader = new tracekit.Loader();
  const message = (() => {
    try {
      loader.push(bad['corrupt gzip']);
      loader.push(bad['corrupt gzip']);
      return loader.finish() && null;
    } catch (e) {
      return e.message;
    }
  })();
  assert.ok(message);
  assert.throws(() => loader.finish(), { message });
  const ok = new tracekit.Loader();
  ok.push(text('[{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":1,"dur":2}]'));
  ok.finish().free();
  assert.throws(() => ok.push(text('[')), /finished/);
});

test('a query that does not fit the trace: the CLI message', () => {
  const path = join(root, 'fixtures/traces/main-thread.json.gz');
  const trace = tracekit.analyze(read(path));
  try {
    for (const [args, options] of [
      [['--thread', 'no-such-thread'], { thread: 'no-such-thread' }],
      [['--thread', 'r'], { thread: 'r' }],
      [['--window', '100000000..'], { window: [100000000, null] }],
    ]) {
      const native = runCli(['tracks', path, '-q', ...args]);
      assert.equal(native.status, 1, native.stderr);
      const expected = native.stderr.trim().replace(`tracekit: ${path}: `, '');
      assert.throws(() => trace.tracks(options), { message: expected });
      assert.throws(() => trace.tracksPacked(options), { message: expected });
    }
    const empty = runCli(['calltree', path, '--window', '5..5']);
    assert.throws(() => trace.callTree({ window: [5, 5] }), {
      message: empty.stderr.trim().replace(`tracekit: ${path}: `, ''),
    });
    assert.throws(() => trace.tracks({ maxDepth: 0 }), /1 shows the roots only/);
    assert.throws(() => trace.tracks({ window: [3, 2] }), /before the start/);
    assert.throws(() => trace.tracks({ window: 'all' }), TypeError);
    assert.throws(() => trace.callTree({ groupBy: 'url' }), /^Error: grouping by url needs .*load with \{groupArgs: true\}$/);
    assert.throws(() => trace.callTree({ groupBy: 'third-party' }), /^Error: groupBy: expected one of /);
    assert.throws(() => new tracekit.Loader({ maxNodes: 0 }), /maxNodes/);
    assert.throws(() => new tracekit.Loader().push('text'), TypeError);
  } finally {
    trace.free();
  }
  assert.throws(() => trace.conformance(), /freed/);
});
