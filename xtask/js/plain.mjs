#!/usr/bin/env node
// The DevTools engine as a user runs it, for the benchmark's timed side:
// read the file into one string, JSON.parse it, and parse the events with
// the handlers the tracks need (Meta, Samples, AuctionWorklets,
// NetworkRequests, Renderer: lib/engine.mjs's set). None of what the
// conformance oracle adds (input repair and classification, the dump).
//
// Usage: node xtask/js/plain.mjs [--all-handlers] FILE.json
// Prints one line: the threads and track entries built, so that the work
// shows in the output. `--all-handlers`: every handler, as the Performance
// panel loads a trace (`createWithAllHandlers`; the engine then computes
// its insights too, as it always does after its handlers).

import fs from 'node:fs';

import {Trace} from './lib/trace.mjs';

import {HANDLERS} from './lib/engine.mjs';

const args = process.argv.slice(2);
const allHandlers = args[0] === '--all-handlers';
if (allHandlers) args.shift();
const file = args[0];
if (!file || args.length > 1) {
  console.error('usage: node xtask/js/plain.mjs [--all-handlers] FILE.json');
  process.exit(2);
}
const json = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = Array.isArray(json) ? json : json.traceEvents;
const model = allHandlers ? Trace.TraceModel.Model.createWithAllHandlers()
                          : Trace.TraceModel.Model.createWithSubsetOfHandlers(HANDLERS);
await model.parse(events, {metadata: Array.isArray(json) ? {} : json.metadata ?? {}});
const data = model.parsedTrace().data;
let threads = 0;
let nodes = 0;
for (const process of data.Renderer.processes.values()) {
  for (const thread of process.threads.values()) {
    threads++;
    nodes += thread.entries?.length ?? 0;
  }
}
const requests = allHandlers ? `, ${data.NetworkRequests.byTime.length} requests` : '';
console.log(`plain: ${file}: ${threads} threads, ${nodes} track entries${requests}`);
