// Shared by the conformance oracles (oracle.mjs: tracks, calltree.mjs: the
// Call Tree / Bottom-Up views, summary.mjs): loads an input file and runs the
// DevTools trace engine chosen with --engine (lib/trace.mjs) on it with the
// handlers the tracks need, and selects the threads the dumps list.
//
// ---------------------------------------------------------------------------
// Which handlers run, and why
// ---------------------------------------------------------------------------
// The model is built with Model.createWithSubsetOfHandlers from the Renderer
// handler and the handlers it declares as deps(), transitively (HANDLERS
// below); TraceProcessor always prepends Meta and checks that every
// handler's deps() are present. June 2026's engine (0.0.65):
//   Renderer        -> Meta, Samples, AuctionWorklets, NetworkRequests
//   NetworkRequests -> Meta
// AuctionWorklets' worklets keep url-less worklet processes alive there.
// Today's engine has no AuctionWorklets handler:
//   Renderer        -> Meta, Samples, NetworkRequests
// NetworkRequests provides the entity mappings, which do not affect the
// trees. Every event goes through handleEvent of every handler in the
// engine's sorted order, then each handler's finalize runs in that order.
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
//
// With {imagePainting: true} (calltree.mjs --group-by url, domain or
// subdomain), the ImagePainting handler runs too: the panel's URL of a
// `Decode Image` event (Handlers.Helpers.getNonResolvedURL with the handlers'
// data) is that of the PaintImage event this handler ties it to. It has no
// deps and only reads handler data, so the trees are the same with it.

import fs from 'node:fs';
import path from 'node:path';

import {Trace} from './trace.mjs';

import {legacyCpuProfileToCurrent, loadInput, selfProfileToCpuProfile} from './load.mjs';


const CPU_PROFILE_ORIGIN = Trace.Types.File.DataOrigin.CPU_PROFILE;  // 'CPUProfile'

// The Renderer handler and the handlers it depends on, as the engine declares
// them (June's Renderer also needs AuctionWorklets; today's does not).
export const HANDLERS = (() => {
  const all = Trace.Handlers.ModelHandlers;
  const out = {};
  const add = name => {
    if (name === 'Meta' || name in out) return;
    for (const dep of all[name].deps?.() ?? []) add(dep);
    out[name] = all[name];
  };
  add('Renderer');
  return out;
})();
Trace.Processor.TraceProcessor.getInsightRunners = () => ({});

/**
 * Loads one input file (see lib/load.mjs) and runs the engine on it.
 * Returns the handlers' data (Meta, Samples, AuctionWorklets,
 * NetworkRequests, Renderer, and ImagePainting if asked for) and whether the
 * input was a CPU profile.
 */
export async function parseFile(file, warn, {imagePainting = false} = {}) {
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
      // The Samples handler (of both engines) reads `nodes` before the profile model
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

  const handlers = imagePainting ? {...HANDLERS, ImagePainting: Trace.Handlers.ModelHandlers.ImagePainting} : HANDLERS;
  const model = Trace.TraceModel.Model.createWithSubsetOfHandlers(handlers);
  const isCPUProfile = metadata?.dataOrigin === CPU_PROFILE_ORIGIN;
  await model.parse(events, {
    metadata: metadata ?? undefined,
    isCPUProfile,
  });
  const parsed = model.parsedTrace();
  if (!parsed) {
    throw new Error('the engine produced no parsed trace');
  }
  return {data: parsed.data, isCPUProfile};
}

/**
 * The processes and threads of the tracks conformance dump, in dump order:
 * [{pid, url, isOnMainFrame, threads: [{tid, name, tree}]}]. See "Which
 * threads are dumped" above. Threads whose tree has no root are still listed
 * here; the dumps skip them.
 */
export function selectProcesses(data, isCPUProfile) {
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

/** Rounds to 3 decimals, as the dumps print every number of milliseconds. */
export const r3 = x => Math.round(x * 1000) / 1000;
/** A rounded number as JSON (NaN and \u00b1Infinity come out as null). */
export const num = x => JSON.stringify(r3(x));

/** `NAME.json` for an input file: its base name less `.gz` and `.json`/`.cpuprofile`. */
export function outputName(file) {
  let name = path.basename(file);
  name = name.replace(/\.gz$/, '');
  name = name.replace(/\.(json|cpuprofile)$/, '');
  return `${name}.json`;
}

/** Writes the chunks to a stream, waiting for it to drain. */
export function writeAll(stream, chunks) {
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

/**
 * Runs `dump(file, warn)` (which returns the chunks of one line of JSON) on
 * every file: to stdout for one file, else to `outDir/NAME.json` each
 * (written to a temporary file, then renamed). A file that fails gets one
 * line on stderr, `TOOL: FILE: message`, and the exit code becomes 1.
 */
export async function runFiles(tool, files, outDir, dump) {
  if (outDir !== null) {
    fs.mkdirSync(outDir, {recursive: true});
  }
  let failed = false;
  const claimed = new Map();  // output name -> input file
  for (const file of files) {
    const warn = msg => process.stderr.write(`${tool}: ${file}: warning: ${msg}\n`);
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
      const chunks = await dump(file, warn);
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
      process.stderr.write(`${tool}: ${file}: ${message}\n`);
      if (process.env.ORACLE_DEBUG && e instanceof Error) {
        process.stderr.write(`${e.stack}\n`);
      }
    }
  }
  process.exitCode = failed ? 1 : 0;
}
