#!/usr/bin/env node
// The Lantern savings of DevTools' ModernHTTP and RenderBlocking insights,
// from DevTools' own Lantern context of each main-frame navigation, on the
// trace as it is and on two made-up variants that give the estimates more
// to do:
//   asIs         the insights as DevTools runs them;
//   http1        every request served over HTTP/2 or 3 taken as HTTP/1.1
//                (the Lantern requests' protocol before the graph is built,
//                and the trace's requests' when ModernHTTP picks its URLs);
//   allBlocking  every request of the trace taken as render-blocking when
//                RenderBlocking picks its requests (the context as is);
//   allUrls, http1AllUrls  ModernHTTP run on made-up requests that make it
//                flag every URL of the context's requests (but localhost's),
//                on the context as is and on http1's;
//   allButDocument, http1AllButDocument  RenderBlocking run on made-up
//                requests that make it find every request of the context
//                but the main document render-blocking.
// Each variant records the insights' inputs (ModernHTTP's URLs,
// RenderBlocking's request ids in the order found) and outputs
// (metricSavings, requestIdToWastedMs) or the error the insight throws, and
// the error of the Lantern context if there is one. One entry per
// navigation: {navigation, variants: {asIs, http1, allBlocking}}.
//
// Usage: node xtask/js/lantern-insight-savings.mjs FILE > OUT.json
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

/** Whether a protocol is HTTP/2 or 3 (what the http1 variant downgrades). */
const isModern = protocol => protocol === 'h2' || String(protocol ?? '').startsWith('h3');

/** The Lantern context of a navigation as the insights get it, `change` applied to its requests first. */
function lanternContext(nav, change) {
  const starts = data.Meta.navigationsByFrameId.get(nav.args.frame);
  const k = starts.indexOf(nav);
  const start = nav.ts, end = k + 1 < starts.length ? starts[k + 1].ts : Infinity;
  const trace = {traceEvents: events.filter(e => e.ts >= start && e.ts < end)};
  const requests = Trace.LanternComputationData.createNetworkRequests(trace, data, start, end);
  requests.forEach(change);
  const graph = Trace.LanternComputationData.createGraph(requests, trace, data);
  const processedNavigation = Trace.LanternComputationData.createProcessedNavigation(data, nav.args.frame, nav);
  const networkAnalysis = Trace.Lantern.Core.NetworkAnalyzer.analyze(requests);
  if (!networkAnalysis) return undefined;
  const simulator = Trace.Lantern.Simulation.Simulator.createSimulator({networkAnalysis, throttlingMethod: 'provided'});
  const M = Trace.Lantern.Metrics;
  const computeData = {graph, simulator, processedNavigation};
  const firstContentfulPaint = M.FirstContentfulPaint.compute(computeData);
  const largestContentfulPaint = M.LargestContentfulPaint.compute(computeData, {fcpResult: firstContentfulPaint});
  const interactive = M.Interactive.compute(computeData, {lcpResult: largestContentfulPaint});
  const totalBlockingTime = M.TotalBlockingTime.compute(computeData, {fcpResult: firstContentfulPaint, interactiveResult: interactive});
  return {requests, graph, simulator, metrics: {firstContentfulPaint, largestContentfulPaint, interactive, totalBlockingTime}};
}

/** Runs `fn` with `key` of every trace request's data set by `value(old)`, then puts the old values back. */
function withRequests(key, value, fn) {
  const old = data.NetworkRequests.byTime.map(r => r.args.data[key]);
  data.NetworkRequests.byTime.forEach((r, i) => { r.args.data[key] = value(old[i]); });
  try {
    return fn();
  } finally {
    data.NetworkRequests.byTime.forEach((r, i) => { r.args.data[key] = old[i]; });
  }
}

const Models = Trace.Insights.Models;
/**
 * Runs an insight twice on `data` (the trace's, or made up): without Lantern for its inputs (what it picks
 * does not depend on Lantern), then with the context for its savings, or the error it throws.
 */
function run(insight, on, context, inputs, savings) {
  const out = inputs(Models[insight].generateInsight(on, {...context, lantern: undefined}));
  try {
    return {...out, ...savings(Models[insight].generateInsight(on, context))};
  } catch (e) {
    return {...out, error: String(e.message ?? e)};
  }
}
function modernHttp(context, on = data) {
  return run('ModernHTTP', on, context, m => ({urls: m.http1Requests.map(r => r.args.data.url)}),
      m => ({metricSavings: m.metricSavings ?? null}));
}
function renderBlocking(context, on = data) {
  // The list is sorted by duration; the savings saw it in time order.
  const byTime = on.NetworkRequests.byTime;
  const inputs = m => ({
    requestIds: [...m.renderBlockingRequests].sort((a, b) => byTime.indexOf(a) - byTime.indexOf(b))
        .map(r => r.args.data.requestId),
  });
  return run('RenderBlocking', on, context, inputs, m => ({
    metricSavings: m.metricSavings ?? null,
    requestIdToWastedMs: m.requestIdToWastedMs ? [...m.requestIdToWastedMs.entries()] : null,
  }));
}

/** The trace's data with made-up network requests (just what the two insights read of them). */
function withMadeUpRequests(byTime) {
  return {...data, NetworkRequests: {...data.NetworkRequests, byTime}};
}

/**
 * Data on which ModernHTTP flags every URL of the context's requests: each as a static HTTP/1.1 request
 * at the navigation's start, every origin padded to the six requests the insight wants (with URLs no
 * request has). Localhost's are still never flagged.
 */
function everyUrlAsHttp1(context) {
  const made = url => ({
    name: 'SyntheticNetworkRequest', ts: context.navigation.ts + 1, dur: 1,
    args: {data: {url, protocol: 'http/1.1', resourceType: 'Script', decodedBodyLength: 1000, fromServiceWorker: false}},
  });
  const urls = [...new Set(context.lantern.requests.map(r => r.url))].filter(u => URL.canParse(u));
  const byOrigin = new Map();
  for (const u of urls) byOrigin.set(new URL(u).origin, (byOrigin.get(new URL(u).origin) ?? 0) + 1);
  const padding = [];
  for (const [origin, n] of byOrigin) {
    if (origin === 'null') continue;
    for (let i = n; i < 6; i++) padding.push(`${origin}/tracekit-padding-${i}`);
  }
  return withMadeUpRequests([...urls, ...padding].map(made));
}

/**
 * Data on which RenderBlocking finds every request of the context but the main document (and its
 * redirects) render-blocking, in the order of the context's requests.
 */
function everyRequestButTheDocumentBlocking(context) {
  const id = r => r.rawRequest?.args.data.requestId ?? r.requestId;
  const documentId = id(context.lantern.graph.request);
  const ids = [...new Set(context.lantern.requests.map(id))].filter(i => i !== documentId);
  const ts = context.navigation.ts;
  return withMadeUpRequests(ids.map((requestId, i) => ({
    name: 'SyntheticNetworkRequest', ts: ts + 1 + i, dur: 1,
    args: {data: {requestId, url: `made-up:${i}`, frame: context.frameId, renderBlocking: 'blocking', priority: 'VeryHigh',
      resourceType: 'Stylesheet', syntheticData: {finishTime: ts}}},
  })));
}

const navigations = data.Meta.mainFrameNavigations.filter(n => n.args.frame && n.args.data?.navigationId);
const out = [];
navigations.forEach((nav, i) => {
  const max = i + 1 < navigations.length ? navigations[i + 1].ts - 1 : data.Meta.traceBounds.max;
  const base = {
    bounds: Trace.Helpers.Timing.traceWindowFromMicroSeconds(nav.ts, max),
    frameId: nav.args.frame,
    navigation: nav,
    navigationId: nav.args.data.navigationId,
  };
  const contextOf = change => {
    try {
      return {...base, lantern: lanternContext(nav, change)};
    } catch (e) {
      return {...base, lanternError: String(e.message ?? e)};
    }
  };
  const real = contextOf(() => {});
  const http1 = contextOf(r => { if (isModern(r.protocol)) r.protocol = 'http/1.1'; });
  const variant = (cx, parts) => {
    const result = cx.lanternError ? {lanternError: cx.lanternError} : {};
    try {
      for (const [part, fn] of Object.entries(parts)) {
        result[part] = fn(cx);
      }
      return result;
    } catch (e) {
      return {error: String(e.message ?? e)};
    }
  };
  // Without a context there is nothing to make up requests from, and no savings.
  const skip = (f, empty) => cx => cx.lantern ? f(cx) : empty;
  const noUrls = {urls: [], metricSavings: null};
  const noIds = {requestIds: [], metricSavings: null, requestIdToWastedMs: null};
  out.push({
    navigation: index.get(nav),
    variants: {
      asIs: variant(real, {modernHttp: cx => modernHttp(cx), renderBlocking: cx => renderBlocking(cx)}),
      http1: variant(http1, {
        modernHttp: cx => withRequests('protocol', p => isModern(p) ? 'http/1.1' : p, () => modernHttp(cx)),
        renderBlocking: cx => renderBlocking(cx),
      }),
      allBlocking: variant(real, {
        renderBlocking: cx => withRequests('renderBlocking', () => 'blocking', () => renderBlocking(cx)),
      }),
      allUrls: variant(real, {modernHttp: skip(cx => modernHttp(cx, everyUrlAsHttp1(cx)), noUrls)}),
      http1AllUrls: variant(http1, {modernHttp: skip(cx => modernHttp(cx, everyUrlAsHttp1(cx)), noUrls)}),
      allButDocument: variant(real, {
        renderBlocking: skip(cx => renderBlocking(cx, everyRequestButTheDocumentBlocking(cx)), noIds),
      }),
      http1AllButDocument: variant(http1, {
        renderBlocking: skip(cx => renderBlocking(cx, everyRequestButTheDocumentBlocking(cx)), noIds),
      }),
    },
  });
});
process.stdout.write(JSON.stringify(out) + '\n');
