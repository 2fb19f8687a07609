#!/usr/bin/env node
// The DevTools engine as a user runs it, for the benchmark's timed side:
// read the file into one string, JSON.parse it, and parse the events with
// the handlers the tracks need (Meta, Samples, AuctionWorklets,
// NetworkRequests, Renderer: lib/engine.mjs's set). None of what the
// conformance oracle adds (input repair and classification, the dump).
//
// Usage: node xtask/js/plain.mjs FILE.json
// Prints one line: the threads and track entries built, so that the work
// shows in the output.

import fs from 'node:fs';

import {Trace} from './lib/trace.mjs';

import {HANDLERS} from './lib/engine.mjs';

const file = process.argv[2];
if (!file || process.argv.length > 3) {
  console.error('usage: node xtask/js/plain.mjs FILE.json');
  process.exit(2);
}
const json = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = Array.isArray(json) ? json : json.traceEvents;
const model = Trace.TraceModel.Model.createWithSubsetOfHandlers(HANDLERS);
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
console.log(`plain: ${file}: ${threads} threads, ${nodes} track entries`);
