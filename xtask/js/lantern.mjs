#!/usr/bin/env node
// Lantern's view of a trace, from the DevTools engine itself: for each
// main-frame navigation (with a frame and a navigation id, as DevTools makes
// insight sets), the requests Lantern builds from the NetworkRequests
// handler's (redirect hops split out, initiators linked) and its network
// analysis (RTT and server response time per origin, throughput), or the
// Lantern error DevTools records. Numbers rounded to 0.001; maps written with
// sorted keys; a value JavaScript leaves undefined is left out.
//
// With --graph, also the page dependency graph DevTools builds from them and
// the main thread's tasks (nodes in the order of a walk from the root along
// dependents; a node's dependencies and dependents as node indexes in the
// order DevTools keeps them), the processed navigation, and Lantern's four
// metrics (FCP, LCP, Interactive, TBT) as DevTools computes them for the
// insights: each metric's timing, its optimistic and pessimistic simulations
// (time, and every node's simulated start and end by node index) and the
// nodes of its optimistic and pessimistic graphs, or the error DevTools
// records.
//
// Usage: node xtask/js/lantern.mjs [--engine current] [--graph] FILE > OUT.json
import fs from 'node:fs';
import zlib from 'node:zlib';
import {Trace} from './lib/trace.mjs';

const withGraph = process.argv.includes('--graph');
const file = process.argv.filter(a => a !== '--graph')[2];
let buf = fs.readFileSync(file);
if (buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const json = JSON.parse(buf.toString('utf8'));
const events = Array.isArray(json) ? json : json.traceEvents;
if (!events) {
  console.error(`lantern: ${file}: not a trace with events`);
  process.exit(3);
}
const index = new Map();
events.forEach((e, i) => index.set(e, i));
const model = Trace.TraceModel.Model.createWithAllHandlers();
try {
  await model.parse(events, {metadata: json.metadata ?? {}});
} catch (e) {
  console.error(`lantern: the DevTools engine throws on ${file}: ${String(e.message).split('\n')[0]}`);
  process.exit(3);
}
const data = model.parsedTrace().data;
const r3 = x => typeof x === 'number' ? Math.round(x * 1000) / 1000 : x;
const sorted = m => Object.fromEntries([...m.entries()].sort().map(([k, v]) => [k, r3(v)]));
const TIMING = ['requestTime', 'proxyStart', 'proxyEnd', 'dnsStart', 'dnsEnd', 'connectStart', 'connectEnd', 'sslStart',
  'sslEnd', 'sendStart', 'sendEnd', 'receiveHeadersStart', 'receiveHeadersEnd'];
const out = [];
for (const nav of data.Meta.mainFrameNavigations.filter(n => n.args.frame && n.args.data?.navigationId)) {
  const entry = {navigation: index.get(nav)};
  try {
    if (!data.NetworkRequests.byTime.length) {
      throw new Trace.Lantern.Core.LanternError('No network requests found in trace');
    }
    const starts = data.Meta.navigationsByFrameId.get(nav.args.frame);
    const k = starts.indexOf(nav);
    const start = nav.ts, end = k + 1 < starts.length ? starts[k + 1].ts : Infinity;
    const trace = {traceEvents: events.filter(e => e.ts >= start && e.ts < end)};
    const requests = Trace.LanternComputationData.createNetworkRequests(trace, data, start, end);
    const id = r => r ? r.requestId : null;
    entry.requests = requests.map(r => ({
      requestId: r.requestId, url: r.url, protocol: r.protocol, connectionId: r.connectionId,
      connectionReused: r.connectionReused, origin: r.parsedURL.securityOrigin, scheme: r.parsedURL.scheme,
      host: r.parsedURL.host, rendererStartTime: r3(r.rendererStartTime), networkRequestTime: r3(r.networkRequestTime),
      responseHeadersEndTime: r3(r.responseHeadersEndTime), networkEndTime: r3(r.networkEndTime),
      transferSize: r3(r.transferSize), resourceSize: r3(r.resourceSize), fromDiskCache: r.fromDiskCache,
      fromMemoryCache: r.fromMemoryCache, isLinkPreload: Boolean(r.isLinkPreload), finished: r.finished,
      failed: Boolean(r.failed), statusCode: r3(r.statusCode), resourceType: r.resourceType ?? null, mimeType: r.mimeType,
      priority: r.priority, frameId: r.frameId ?? null, fromWorker: r.fromWorker, initiatorType: r.initiator?.type ?? null,
      initiatorRequest: id(r.initiatorRequest), redirectSource: id(r.redirectSource),
      timing: r.timing ? Object.fromEntries(TIMING.map(k => [k, r3(r.timing[k])])) : null,
    }));
    const a = Trace.Lantern.Core.NetworkAnalyzer.analyze(requests);
    entry.analysis = a ? {throughput: r3(a.throughput), rtt: r3(a.rtt), additionalRttByOrigin: sorted(a.additionalRttByOrigin),
      serverResponseTimeByOrigin: sorted(a.serverResponseTimeByOrigin)} : null;
    if (withGraph && entry.analysis) {
      Object.assign(entry, graphAndMetrics(trace, requests, nav, a));
    }
  } catch (e) {
    entry.error = String(e.message ?? e);
  }
  out.push(entry);
}
process.stdout.write(JSON.stringify(out) + '\n');

// The graph, the processed navigation and the metrics of one navigation, as
// the insights' Lantern context has them (Processor.#createLanternContext).
function graphAndMetrics(trace, requests, nav, analysis) {
  const part = {};
  const requestIndex = new Map(requests.map((r, i) => [r, i]));
  const graph = Trace.LanternComputationData.createGraph(requests, trace, data);
  const nodes = [];
  graph.traverse(node => nodes.push(node), node => node.getDependents());
  const nodeIndex = new Map(nodes.map((n, i) => [n, i]));
  const byId = new Map(nodes.map((n, i) => [n.id, i]));
  part.graph = nodes.map(n => {
    const o = {id: n.id, type: n.type, start: r3(n.startTime), end: r3(n.endTime), isMainDocument: n.isMainDocument(),
      dependencies: n.getDependencies().map(d => nodeIndex.get(d)), dependents: n.getDependents().map(d => nodeIndex.get(d))};
    if (n.type === 'network') {
      o.request = requestIndex.get(n.request);
    } else {
      o.tid = n.event.tid;
      o.childEvents = n.childEvents.length;
      o.didPerformLayout = n.didPerformLayout();
      o.didPaint = n.childEvents.some(e => e.name === 'Paint');
      o.didParseHTML = n.childEvents.some(e => e.name === 'ParseHTML');
      o.evaluateScriptUrls = [...n.getEvaluateScriptURLs()];
    }
    return o;
  });
  let processedNavigation;
  try {
    processedNavigation = Trace.LanternComputationData.createProcessedNavigation(data, nav.args.frame, nav);
    part.processedNavigation = Object.fromEntries(Object.entries(processedNavigation.timestamps).map(([k, v]) => [k, r3(v)]));
  } catch (e) {
    part.metricsError = String(e.message ?? e);
    return part;
  }
  const simulator = Trace.Lantern.Simulation.Simulator.createSimulator({networkAnalysis: analysis, throttlingMethod: 'provided'});
  const computeData = {graph, simulator, processedNavigation};
  const M = Trace.Lantern.Metrics;
  const estimate = e => ({timeInMs: r3(e.timeInMs), nodeTimings: [...e.nodeTimings.entries()]
      .map(([n, t]) => [byId.get(n.id), r3(t.startTime), r3(t.endTime)]).sort((a, b) => a[0] - b[0])});
  const graphNodes = g => { const ids = []; g.traverse(n => ids.push(byId.get(n.id))); return ids.sort((a, b) => a - b); };
  const result = r => ({timing: r3(r.timing), optimistic: estimate(r.optimisticEstimate), pessimistic: estimate(r.pessimisticEstimate),
      optimisticGraph: graphNodes(r.optimisticGraph), pessimisticGraph: graphNodes(r.pessimisticGraph)});
  part.metrics = {};
  try {
    const fcpResult = M.FirstContentfulPaint.compute(computeData);
    part.metrics.firstContentfulPaint = result(fcpResult);
    const lcpResult = M.LargestContentfulPaint.compute(computeData, {fcpResult});
    part.metrics.largestContentfulPaint = result(lcpResult);
    const interactiveResult = M.Interactive.compute(computeData, {lcpResult});
    part.metrics.interactive = result(interactiveResult);
    const tbtResult = M.TotalBlockingTime.compute(computeData, {fcpResult, interactiveResult});
    part.metrics.totalBlockingTime = result(tbtResult);
  } catch (e) {
    part.metricsError = String(e.message ?? e);
  }
  return part;
}
