#!/usr/bin/env node
// Lantern's view of a trace, from the DevTools engine itself: for each
// main-frame navigation (with a frame and a navigation id, as DevTools makes
// insight sets), the requests Lantern builds from the NetworkRequests
// handler's (redirect hops split out, initiators linked) and its network
// analysis (RTT and server response time per origin, throughput), or the
// Lantern error DevTools records. Numbers rounded to 0.001; maps written with
// sorted keys; a value JavaScript leaves undefined is left out.
//
// Usage: node xtask/js/lantern.mjs [--engine current] FILE > OUT.json
import fs from 'node:fs';
import zlib from 'node:zlib';
import {Trace} from './lib/trace.mjs';

const file = process.argv[2];
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
  } catch (e) {
    entry.error = String(e.message ?? e);
  }
  out.push(entry);
}
process.stdout.write(JSON.stringify(out) + '\n');
