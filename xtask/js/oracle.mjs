#!/usr/bin/env node
// Conformance oracle: runs the real DevTools trace engine
// (the compiled front_end/models/trace of the engine chosen with --engine) on a
// trace and prints its sync tracks in tracekit's "conformance dump" format.
//
// Usage:
//   node xtask/js/oracle.mjs FILE                      dump of FILE on stdout
//   node xtask/js/oracle.mjs --out-dir DIR FILE...     one DIR/<name>.json per FILE
//   node xtask/js/oracle.mjs --describe-engine         what the engine is, one line
// Every script of xtask/js takes `--engine current|0.0.65` (lib/trace.mjs).
//
// Output naming (--out-dir): <name> is the file's basename minus one trailing
// `.gz`, then minus one trailing `.json` or `.cpuprofile`:
//   trace.json.gz -> trace.json, profile.cpuprofile -> profile.json, x.json -> x.json,
//   x.gz -> x.json, x.trace -> x.trace.json. Two inputs mapping to the same name
// in one run is an error for the later one. DIR is created if missing. A file
// is written only when the whole dump was produced (nothing is written for a
// failed input).
//
// Exit status: 0 if every input succeeded; 1 if any failed (each failure is
// reported as `oracle: <file>: <message>` on stderr and the others still run);
// 2 for usage errors. Warnings (e.g. a repaired truncated file) go to stderr
// as `oracle: <file>: warning: ...`. The engine's own console output
// (console.error on mismatched B/E events, etc.) also goes to stderr.
//
// Memory: the engine keeps every event object alive; for traces bigger than a
// few hundred MB run `node --max-old-space-size=8192 xtask/js/oracle.mjs ...`
// (decompressed JSON text above ~512 MiB cannot be loaded at all: V8's string
// length limit).
//
// Inputs (see lib/load.mjs): Chrome traces (event array or {traceEvents,
// metadata}; gzip detected by the 1f 8b magic; a truncated event array is
// repaired with a warning), V8 .cpuprofile (current `nodes` format, and the
// legacy `head` format converted to the current one) and JS Self-Profiling API
// traces (converted to a current-format .cpuprofile).
//
// ---------------------------------------------------------------------------
// Which handlers run, how inputs are loaded, which threads are dumped
// ---------------------------------------------------------------------------
// See lib/engine.mjs (shared with calltree.mjs).


import {ENGINE, Trace} from './lib/trace.mjs';

import {num, parseFile, runFiles, selectProcesses} from './lib/engine.mjs';

// stdout carries only dumps: send any console.log/info/debug of the engine to stderr.
console.log = console.info = console.debug = (...args) => console.error(...args);

/**
 * Runs the engine on one input file and returns the dump as an array of
 * string chunks (joined, they are one line of JSON without a newline).
 */
async function dumpFile(file, warn) {
  const {data, isCPUProfile} = await parseFile(file, warn);
  return serialize(data, warn, isCPUProfile);
}

function label(e) {
  if (Trace.Types.Events.isProfileCall(e)) {
    const cf = e.callFrame;
    return `js:${cf.functionName}@${cf.url}:${cf.lineNumber}:${cf.columnNumber}`;
  }
  return e.name;
}

function serialize(data, warn, isCPUProfile) {
  const chunks = [];
  let buf = '{"processes":[';
  const flush = () => {
    if (buf.length > (1 << 20)) {
      chunks.push(buf);
      buf = '';
    }
  };
  let firstProcess = true;
  for (const p of selectProcesses(data, isCPUProfile)) {
    buf += `${firstProcess ? '' : ','}{"pid":${JSON.stringify(p.pid)},"url":${JSON.stringify(p.url)},` +
        `"isOnMainFrame":${p.isOnMainFrame},"threads":[`;
    firstProcess = false;
    let firstThread = true;
    for (const t of p.threads) {
      if (!t.tree || t.tree.roots.size === 0) {
        continue;
      }
      buf += `${firstThread ? '' : ','}{"tid":${JSON.stringify(t.tid)},"name":${JSON.stringify(t.name)},"entries":[`;
      firstThread = false;
      let firstEntry = true;
      let depthMismatches = 0;
      // Iterative depth-first pre-order walk: roots in order, children in order.
      const stack = [];
      const roots = [...t.tree.roots];
      for (let r = roots.length - 1; r >= 0; r--) {
        stack.push([roots[r], 0]);
      }
      while (stack.length) {
        const [node, depth] = stack.pop();
        if (typeof node.depth === 'number' && node.depth !== depth) {
          depthMismatches++;
        }
        const e = node.entry;
        const self = node.selfTime === undefined ? 'null' : num(node.selfTime);
        buf += `${firstEntry ? '' : ','}[${depth},${JSON.stringify(label(e))},${num(e.ts)},${num(e.dur ?? 0)},${self}]`;
        firstEntry = false;
        flush();
        const children = node.children;
        for (let c = children.length - 1; c >= 0; c--) {
          stack.push([children[c], depth + 1]);
        }
      }
      if (depthMismatches) {
        warn(`pid ${p.pid} tid ${t.tid}: ${depthMismatches} nodes whose own depth field differs from their depth in the tree walk (the dump uses the walk's)`);
      }
      buf += ']}';
    }
    buf += ']}';
  }
  const bounds = data.Meta.traceBounds;
  buf += `],"bounds":{"min":${num(bounds.min)},"max":${num(bounds.max)}}}`;
  chunks.push(buf);
  return chunks;
}


function usage() {
  process.stderr.write(
      'usage: node oracle.mjs [--engine E] FILE\n       node oracle.mjs [--engine E] --out-dir DIR FILE...\n' +
      '       node oracle.mjs [--engine E] --describe-engine\n');
  process.exit(2);
}


async function main() {
  const args = process.argv.slice(2);
  let outDir = null;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out-dir') {
      if (i + 1 >= args.length) {
        usage();
      }
      outDir = args[++i];
    } else if (args[i] === '--help' || args[i] === '-h') {
      usage();
    } else if (args[i] === '--describe-engine') {
      process.stdout.write(`${ENGINE}\n`);
      return;
    } else {
      files.push(args[i]);
    }
  }
  if (files.length === 0 || (outDir === null && files.length !== 1)) {
    usage();
  }
  await runFiles('oracle', files, outDir, dumpFile);
}

await main();
