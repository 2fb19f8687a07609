// However the input is cut, and gzipped or not, the answer is the same:
// chunks of 1 byte to 1 MiB, the whole input through `analyze()`, gzip
// streams made here and the committed ones, a ReadableStream and a Node
// stream through `pushStream()`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, gunzipSync } from 'node:zlib';

import { loadPackage, loadInChunks, read, root } from './support.mjs';

const tracekit = await loadPackage();

function dumpOf(trace) {
  try {
    return trace.conformance();
  } finally {
    trace.free();
  }
}

const cases = [
  // [fixture, chunk sizes]: 1-byte chunks on the smaller inputs only (a
  // call per byte).
  ['fixtures/traces/main-thread.json.gz', [1, 3, 1000, 64 << 10, 1 << 20]],
  ['fixtures/traces/kitchen-sink.json.gz', [4096, 64 << 10, 1 << 20]],
  ['fixtures/traces/node-work.cpuprofile.gz', [1, 17, 64 << 10]],
  ['fixtures/handwritten/self-profile.json', [1, 5, 64 << 10]],
  ['fixtures/handwritten/legacy.cpuprofile', [1, 64 << 10]],
];

for (const [name, sizes] of cases) {
  test(`${name}: chunk sizes, gzip or plain`, () => {
    const gz = read(join(root, name));
    const plain = name.endsWith('.gz') ? new Uint8Array(gunzipSync(gz)) : gz;
    const zipped = name.endsWith('.gz') ? gz : new Uint8Array(gzipSync(plain));
    const expected = dumpOf(tracekit.analyze(plain));
    assert.ok(expected.length > 20);
    assert.equal(dumpOf(tracekit.analyze(zipped)), expected, 'analyze() of the gzip');
    assert.equal(dumpOf(tracekit.analyze(plain.buffer.slice(plain.byteOffset, plain.byteOffset + plain.length))), expected, 'an ArrayBuffer');
    for (const size of sizes) {
      if (size > 1 || plain.length < 4 << 20) {
        assert.equal(dumpOf(loadInChunks(tracekit, plain, size)), expected, `plain, chunks of ${size}`);
      }
      assert.equal(dumpOf(loadInChunks(tracekit, zipped, size)), expected, `gzip, chunks of ${size}`);
    }
  });
}

test('UTF-16 input (with a byte order mark) gives the UTF-8 answer', () => {
  const plain = read(join(root, 'fixtures/handwritten/begin-end.json'));
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(Buffer.from(plain).toString('utf8'), 'utf16le')]);
  assert.equal(dumpOf(loadInChunks(tracekit, new Uint8Array(utf16), 7)), dumpOf(tracekit.analyze(plain)));
});

test('pushStream() reads a ReadableStream, an async iterable and a Node stream', async () => {
  const path = join(root, 'fixtures/traces/worker.json.gz');
  const bytes = read(path);
  const expected = dumpOf(tracekit.analyze(bytes));

  const web = new tracekit.Loader();
  const progress = [];
  await web.pushStream(new Blob([bytes]).stream(), (n) => progress.push(n));
  assert.equal(web.bytesPushed, bytes.length);
  assert.equal(progress.at(-1), bytes.length);
  assert.equal(dumpOf(web.finish()), expected);

  const node = new tracekit.Loader();
  await node.pushStream(createReadStream(path, { highWaterMark: 65536 }));
  assert.equal(dumpOf(node.finish()), expected);
});
