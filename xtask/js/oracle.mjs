#!/usr/bin/env node
// Conformance oracle: runs the real DevTools trace engine
// (@paulirish/trace_engine 0.0.65, the compiled front_end/models/trace) on a
// trace and prints its sync tracks in tracekit's "conformance dump" format.
//
// Usage:
//   node xtask/js/oracle.mjs FILE                      dump of FILE on stdout
//   node xtask/js/oracle.mjs --out-dir DIR FILE...     one DIR/<name>.json per FILE
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
// Which handlers run, and why
// ---------------------------------------------------------------------------
// The model is built with Model.createWithSubsetOfHandlers (ModelImpl.js:34)
// from {Samples, AuctionWorklets, NetworkRequests, Renderer}; TraceProcessor
// always prepends Meta (Processor.js:46-49) and checks that every handler's
// deps() are present (Processor.js:71-98). The deps:
//   Renderer        -> Meta, Samples, AuctionWorklets, NetworkRequests (RendererHandler.js:344-346)
//   NetworkRequests -> Meta                                             (NetworkRequestsHandler.js:524-526)
//   Samples, AuctionWorklets, Meta -> none
// AuctionWorklets and NetworkRequests are thus only there because Renderer
// needs them: AuctionWorklets' worklets keep url-less worklet processes alive
// (RendererHandler.js:227-231), NetworkRequests provides the entity mappings
// (RendererHandler.js:105, 311) which do not affect the trees.
// sortHandlers (Processor.js:523-555) gives the run order
//   Meta, Samples, AuctionWorklets, NetworkRequests, Renderer
// (asserted below). Every event goes through handleEvent of all five in that
// order (Processor.js:159-173), then each handler's finalize runs in that order
// (Processor.js:179-191).
//
// Insights: TraceProcessor.parse computes insights after the handlers unless
// isCPUProfile (Processor.js:124-127). They only read handler data, but many
// need absent handlers; each insight is in a try/catch (Processor.js:370-391).
// To keep the run to the handlers above, the insight runner list is stubbed to
// empty through TraceProcessor.getInsightRunners, the hook the engine keeps
// for that purpose (Processor.js:37-42); Lantern is skipped anyway since the
// Workers and PageLoadMetrics handlers are absent (Processor.js:217-219).
//
// Loading mirrors the DevTools Performance panel (panels/timeline
// TimelineLoader + TimelinePanel#executeNewTrace, not in the package): events
// are passed to Model.parse in file order, unsorted, with
// {metadata, isCPUProfile: metadata?.dataOrigin === 'CPUProfile'}; a
// .cpuprofile becomes the one-event fake trace of
// SamplesIntegrator.createFakeTraceFromCpuProfile(profile, tid 1)
// (SamplesIntegrator.js:452-478) with metadata {dataOrigin: 'CPUProfile'}.
//
// Which threads are dumped: for a trace, Renderer.processes (every process
// the Renderer handler keeps). For a CPU profile (whose pid-1 process has no
// url and is dropped by the Renderer handler), like Handlers.Threads.
// threadsInTrace (Threads.js:71-111), the dump falls back to
// Samples.profilesInProcess, each thread's `profileTree`, with url null,
// isOnMainFrame false and thread name null (as Threads.js:94-105).
// In both cases threads whose tree has no root are left out.

import fs from 'node:fs';
import path from 'node:path';

import {polyfillDOMRect} from '@paulirish/trace_engine/analyze-trace.mjs';
import * as Trace from '@paulirish/trace_engine/models/trace/trace.js';

import {legacyCpuProfileToCurrent, loadInput, selfProfileToCpuProfile} from './lib/load.mjs';

polyfillDOMRect();

// stdout carries only dumps: send any console.log/info/debug of the engine to stderr.
console.log = console.info = console.debug = (...args) => console.error(...args);

const CPU_PROFILE_ORIGIN = Trace.Types.File.DataOrigin.CPU_PROFILE;  // 'CPUProfile'

const HANDLERS = {
  Samples: Trace.Handlers.ModelHandlers.Samples,
  AuctionWorklets: Trace.Handlers.ModelHandlers.AuctionWorklets,
  NetworkRequests: Trace.Handlers.ModelHandlers.NetworkRequests,
  Renderer: Trace.Handlers.ModelHandlers.Renderer,
};
const EXPECTED_ORDER = ['Meta', 'Samples', 'AuctionWorklets', 'NetworkRequests', 'Renderer'];
{
  const order = [...Trace.Processor.sortHandlers({Meta: Trace.Handlers.ModelHandlers.Meta, ...HANDLERS}).keys()];
  if (order.join() !== EXPECTED_ORDER.join()) {
    throw new Error(`unexpected handler order ${order.join()}`);
  }
}
Trace.Processor.TraceProcessor.getInsightRunners = () => ({});

/**
 * Runs the engine on one input file and returns the dump as an array of
 * string chunks (joined, they are one line of JSON without a newline).
 */
async function dumpFile(file, warn) {
  const input = loadInput(file, warn);
  let events;
  let metadata;
  if (input.kind === 'trace') {
    events = input.events;
    metadata = input.metadata;
  } else {
    let profile = input.profile;
    if (input.kind === 'selfprofile') {
      profile = selfProfileToCpuProfile(profile);
    } else if (input.legacy) {
      // The Samples handler of 0.0.65 reads `nodes` before the profile model
      // converts a legacy `head` tree, and crashes. Give it the flattened
      // nodes (see legacyCpuProfileToCurrent in lib/load.mjs) but keep `head`,
      // so that the model's own legacy path (raw timestamps, seconds) runs.
      profile = {...profile, nodes: legacyCpuProfileToCurrent(profile).nodes};
      warn('legacy (head) CPU profile format: nodes flattened before loading');
    }
    const fake = Trace.Helpers.SamplesIntegrator.SamplesIntegrator.createFakeTraceFromCpuProfile(
        profile, Trace.Types.Events.ThreadID(1));
    if (input.legacy) {
      // Legacy start and end times are whole seconds: span the profile's
      // event over its first and last raw timestamps instead.
      const ts = profile.timestamps;
      const [start, end] = ts?.length ? [ts[0], ts.at(-1)] : [profile.startTime * 1e6, profile.endTime * 1e6];
      fake.traceEvents[0].ts = start;
      fake.traceEvents[0].dur = end - start;
    }
    events = fake.traceEvents;
    metadata = fake.metadata;  // {dataOrigin: 'CPUProfile'}
  }
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e === null || typeof e !== 'object' || Array.isArray(e)) {
      throw new Error(`event ${i} is not an object`);
    }
  }

  const model = Trace.TraceModel.Model.createWithSubsetOfHandlers(HANDLERS);
  const isCPUProfile = metadata?.dataOrigin === CPU_PROFILE_ORIGIN;
  await model.parse(events, {
    metadata: metadata ?? undefined,
    isCPUProfile,
  });
  const parsed = model.parsedTrace();
  if (!parsed) {
    throw new Error('the engine produced no parsed trace');
  }
  return serialize(parsed.data, warn, isCPUProfile);
}

const r3 = x => Math.round(x * 1000) / 1000;
const num = x => JSON.stringify(r3(x));  // NaN / ±Infinity come out as null

function label(e) {
  if (Trace.Types.Events.isProfileCall(e)) {
    const cf = e.callFrame;
    return `js:${cf.functionName}@${cf.url}:${cf.lineNumber}:${cf.columnNumber}`;
  }
  return e.name;
}

/** Collects the processes/threads to dump; see "Which threads are dumped". */
function selectProcesses(data, isCPUProfile) {
  const fromRenderer = Trace.Handlers.Threads.threadsInRenderer(data.Renderer, data.AuctionWorklets);
  const out = [];
  // The Samples handler's trees are what DevTools draws for a CPU profile
  // (Threads.threadsInTrace falls back to them when the Renderer handler has
  // no thread). For traces, the dump is the Renderer handler's processes only.
  if (fromRenderer.length || !isCPUProfile) {
    for (const [pid, process] of data.Renderer.processes) {
      const threads = [];
      for (const [tid, thread] of process.threads) {
        threads.push({tid, name: thread.name ?? null, tree: thread.tree});
      }
      out.push({pid, url: process.url ?? null, isOnMainFrame: Boolean(process.isOnMainFrame), threads});
    }
  } else {
    for (const [pid, byThread] of data.Samples.profilesInProcess) {
      const threads = [];
      for (const [tid, profile] of byThread) {
        threads.push({tid, name: null, tree: profile.profileTree});
      }
      out.push({pid, url: null, isOnMainFrame: false, threads});
    }
  }
  return out;
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

function outputName(file) {
  let name = path.basename(file);
  name = name.replace(/\.gz$/, '');
  name = name.replace(/\.(json|cpuprofile)$/, '');
  return `${name}.json`;
}

function usage() {
  process.stderr.write('usage: node oracle.mjs FILE\n       node oracle.mjs --out-dir DIR FILE...\n');
  process.exit(2);
}

function writeAll(stream, chunks) {
  return new Promise((resolve, reject) => {
    let i = 0;
    const onError = err => reject(err);
    stream.on('error', onError);
    const next = () => {
      while (i < chunks.length) {
        if (!stream.write(chunks[i++])) {
          stream.once('drain', next);
          return;
        }
      }
      stream.off('error', onError);
      resolve();
    };
    next();
  });
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
    } else {
      files.push(args[i]);
    }
  }
  if (files.length === 0 || (outDir === null && files.length !== 1)) {
    usage();
  }
  if (outDir !== null) {
    fs.mkdirSync(outDir, {recursive: true});
  }

  let failed = false;
  const claimed = new Map();  // output name -> input file
  for (const file of files) {
    const warn = msg => process.stderr.write(`oracle: ${file}: warning: ${msg}\n`);
    try {
      let target = null;
      if (outDir !== null) {
        const name = outputName(file);
        if (claimed.has(name)) {
          throw new Error(`output name ${name} is already used by ${claimed.get(name)}`);
        }
        claimed.set(name, file);
        target = path.join(outDir, name);
      }
      const chunks = await dumpFile(file, warn);
      if (target === null) {
        chunks.push('\n');
        await writeAll(process.stdout, chunks);
      } else {
        const tmp = `${target}.tmp-${process.pid}`;
        const fd = fs.openSync(tmp, 'w');
        try {
          for (const chunk of chunks) {
            fs.writeSync(fd, chunk);
          }
          fs.writeSync(fd, '\n');
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, target);
      }
    } catch (e) {
      failed = true;
      const message = e instanceof Error ? e.message : String(e);
      process.stderr.write(`oracle: ${file}: ${message}\n`);
      if (process.env.ORACLE_DEBUG && e instanceof Error) {
        process.stderr.write(`${e.stack}\n`);
      }
    }
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
