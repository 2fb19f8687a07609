#!/usr/bin/env node
// What DevTools' insights would save by sending fewer bytes
// (Insights.Common.metricSavingsForWastedBytes), from DevTools' own Lantern
// context, for a fixed made-up waste: 90% (rounded) of the transfer size of
// every Lantern request not redirected, keyed by its backend request id. One entry per main-frame
// navigation: {navigation, wasted: [[request index, bytes]...], FCP, LCP},
// or the error.
//
// Usage: node xtask/js/lantern-savings.mjs FILE > OUT.json
import fs from 'node:fs';
import zlib from 'node:zlib';
import {Trace} from './lib/trace.mjs';

const file = process.argv[2];
let buf = fs.readFileSync(file);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const json = JSON.parse(buf.toString('utf8'));
const events = Array.isArray(json) ? json : json.traceEvents;
const index = new Map();
events.forEach((e, i) => index.set(e, i));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events, {metadata: json.metadata ?? {}});
const data = model.parsedTrace().data;
const out = [];
for (const nav of data.Meta.mainFrameNavigations.filter(n => n.args.frame && n.args.data?.navigationId)) {
  const entry = {navigation: index.get(nav)};
  try {
    const starts = data.Meta.navigationsByFrameId.get(nav.args.frame);
    const k = starts.indexOf(nav);
    const start = nav.ts, end = k + 1 < starts.length ? starts[k + 1].ts : Infinity;
    const trace = {traceEvents: events.filter(e => e.ts >= start && e.ts < end)};
    const requests = Trace.LanternComputationData.createNetworkRequests(trace, data, start, end);
    const analysis = Trace.Lantern.Core.NetworkAnalyzer.analyze(requests);
    const graph = Trace.LanternComputationData.createGraph(requests, trace, data);
    const processedNavigation = Trace.LanternComputationData.createProcessedNavigation(data, nav.args.frame, nav);
    const simulator = Trace.Lantern.Simulation.Simulator.createSimulator({networkAnalysis: analysis, throttlingMethod: 'provided'});
    const M = Trace.Lantern.Metrics;
    const computeData = {graph, simulator, processedNavigation};
    const fcpResult = M.FirstContentfulPaint.compute(computeData);
    const lcpResult = M.LargestContentfulPaint.compute(computeData, {fcpResult});
    const wasted = new Map();
    entry.wasted = [];
    requests.forEach((r, i) => {
      if (!r.redirectDestination) {
        const bytes = Math.round(r.transferSize * 0.9);
        wasted.set(r.rawRequest?.args.data.requestId ?? r.requestId, bytes);
        entry.wasted.push([i, bytes]);
      }
    });
    const context = {navigation: nav, lantern: {simulator, metrics: {firstContentfulPaint: fcpResult, largestContentfulPaint: lcpResult}}};
    const savings = Trace.Insights.Common.metricSavingsForWastedBytes(wasted, context);
    entry.FCP = savings.FCP;
    entry.LCP = savings.LCP;
  } catch (e) {
    entry.error = String(e.message ?? e);
  }
  out.push(entry);
}
process.stdout.write(JSON.stringify(out) + '\n');
