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
//                RenderBlocking picks its requests (the context as is).
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
 * Runs an insight twice: without Lantern for its inputs (what it picks does not depend on Lantern), then with
 * the context for its savings, or the error it throws.
 */
function run(insight, context, inputs, savings) {
  const out = inputs(Models[insight].generateInsight(data, {...context, lantern: undefined}));
  try {
    return {...out, ...savings(Models[insight].generateInsight(data, context))};
  } catch (e) {
    return {...out, error: String(e.message ?? e)};
  }
}
function modernHttp(context) {
  return run('ModernHTTP', context, m => ({urls: m.http1Requests.map(r => r.args.data.url)}),
      m => ({metricSavings: m.metricSavings ?? null}));
}
function renderBlocking(context) {
  // The list is sorted by duration; the savings saw it in time order.
  const byTime = data.NetworkRequests.byTime;
  const inputs = m => ({
    requestIds: [...m.renderBlockingRequests].sort((a, b) => byTime.indexOf(a) - byTime.indexOf(b))
        .map(r => r.args.data.requestId),
  });
  return run('RenderBlocking', context, inputs, m => ({
    metricSavings: m.metricSavings ?? null,
    requestIdToWastedMs: m.requestIdToWastedMs ? [...m.requestIdToWastedMs.entries()] : null,
  }));
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
  const variant = (change, run) => {
    try {
      let lantern;
      try {
        lantern = lanternContext(nav, change);
      } catch (e) {
        return {lanternError: String(e.message ?? e), ...run({...base})};
      }
      return run({...base, lantern});
    } catch (e) {
      return {error: String(e.message ?? e)};
    }
  };
  const keep = () => {};
  const downgrade = r => { if (isModern(r.protocol)) r.protocol = 'http/1.1'; };
  out.push({
    navigation: index.get(nav),
    variants: {
      asIs: variant(keep, cx => ({modernHttp: modernHttp(cx), renderBlocking: renderBlocking(cx)})),
      http1: variant(downgrade, cx => ({
        modernHttp: withRequests('protocol', p => isModern(p) ? 'http/1.1' : p, () => modernHttp(cx)),
        renderBlocking: renderBlocking(cx),
      })),
      allBlocking: variant(keep, cx => ({
        renderBlocking: withRequests('renderBlocking', () => 'blocking', () => renderBlocking(cx)),
      })),
    },
  });
});
process.stdout.write(JSON.stringify(out) + '\n');
