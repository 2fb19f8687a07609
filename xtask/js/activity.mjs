#!/usr/bin/env node
// Oracle of `tracekit agent activity`: the main thread activity texts of a trace as
// chrome-devtools-mcp 1.11.0's own PerformanceTraceFormatter writes them (its longest
// tasks, main-thread bottom-up summary and 3rd party summary, one per insight set), with
// the section tracekit adds in the same format: the first 3 lines of the bottom-up
// summary of each longest task's own time. With --window MIN,MAX (the trace's µs) the
// formatter is handed one insight set of those bounds (with the navigation of the set
// that holds the window), so that each section speaks of that window alone.
//
// Usage: node xtask/js/activity.mjs TRACE [--window MIN,MAX]
// Prints the text (the whole trace's without --window). Exit 1 where the trace does not parse.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {createRequire} from 'node:module';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pkgRoot = path.dirname(require.resolve('chrome-devtools-mcp/package.json', {paths: [here]}));
const mod = rel => import(pathToFileURL(path.join(pkgRoot, 'build/src', rel)).href);
// The server's own global setup (a locale for the insights' strings).
await mod('utils/polyfill.js');
const {overrideDevToolsGlobals} = await mod('devtools/DevtoolsUtils.js');
overrideDevToolsGlobals({loadResource: async url => { throw new Error(`offline: refusing to load ${url}`); }});
const PT = await mod('processors/PerformanceTrace.js');
const {DevTools} = await mod('third_party/index.js');

const argv = process.argv.slice(2);
let file;
let window;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--window') window = argv[++i].split(',').map(Number);
  else file = argv[i];
}
if (!file) {
  process.stderr.write('usage: node activity.mjs TRACE [--window MIN,MAX]\n');
  process.exit(2);
}
let buf = fs.readFileSync(file);
if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) buf = zlib.gunzipSync(buf);
const result = await PT.parseRawTraceBuffer(buf, {cpuThrottling: 1, networkThrottling: undefined});
if (!PT.traceResultIsSuccess(result)) {
  process.stderr.write(`error: ${result.error}\n`);
  process.exit(1);
}
const parsed = result.parsedTrace;
const base = DevTools.AgentFocus.fromParsedTrace(parsed);
const bounds = (min, max) => ({min, max, range: max - min});

// A formatter that sees only `sets` as the trace's insight sets.
function formatterOf(sets) {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(parsed)), parsed, {insights: sets});
  return new DevTools.PerformanceTraceFormatter(DevTools.AgentFocus.fromParsedTrace(copy), 'DESKTOP');
}

// The longest tasks as DevTools picks them (the set's main thread, its
// `RunTask`s over the set's bounds, longest first, those with a call tree),
// for their own windows: the formatter's text names each by the root of its
// call tree, which may be an entry around the task.
function longestTasks(set) {
  const {Handlers, Helpers} = DevTools.TraceEngine;
  const navigationId = set.navigation?.args?.data?.navigationId;
  const navigation = navigationId && parsed.data.Meta.navigationsByNavigationId.get(navigationId);
  const ids = navigation?.args?.data?.isOutermostMainFrame ? [navigation.pid, navigation.tid] : null;
  const thread = Handlers.Threads.threadsInTrace(parsed.data).find(t => t.processIsOnMainFrame &&
      (ids ? t.pid === ids[0] && t.tid === ids[1] : t.type === Handlers.Threads.ThreadType.MAIN_THREAD));
  if (!thread) return [];
  return thread.entries.filter(e => e.name === 'RunTask' && e.ph === 'X')
      .filter(e => Helpers.Timing.eventIsInBounds(e, set.bounds))
      .sort((a, b) => b.dur - a.dur)
      .slice(0, 3)
      .filter(e => thread.type === Handlers.Threads.ThreadType.MAIN_THREAD && parsed.data.Renderer.entryToNode.has(e));
}

async function taskFunctions(sets) {
  const lines = [
    '# Top functions of the longest tasks\n',
    'For each of the longest tasks, the top 3 activities of the bottom-up summary of its time (sorted by self time).\n',
  ];
  if (!sets.size) lines.push('none\n');
  for (const set of sets.values()) {
    if (sets.size > 1) lines.push(`## insight set id: ${set.id}\n`);
    const tasks = await formatterOf(new Map([[set.id, set]])).formatLongestTasks();
    const blocks = [];
    const named = [...tasks.matchAll(/eventKey: ([^,]+), ts: (\d+)/g)];
    const found = longestTasks(set);
    if (found.length !== named.length) throw new Error(`${named.length} tasks listed, ${found.length} found`);
    for (const [i, [, key, ts]] of named.entries()) {
      const task = found[i];
      const own = {...set, bounds: bounds(task.ts, task.ts + task.dur)};
      const bottomUp = await formatterOf(new Map([[set.id, own]])).formatMainThreadBottomUpSummary();
      const top = bottomUp.split('\n').filter(l => l.startsWith('- self: ')).slice(0, 3);
      blocks.push([`- event: (eventKey: ${key}, ts: ${ts})`, ...top.map(l => `  ${l}`)].join('\n'));
    }
    lines.push((blocks.length ? blocks.join('\n') : 'none') + '\n');
  }
  return lines.join('\n');
}

let sets = parsed.insights ?? new Map();
if (window) {
  const [min, max] = window;
  const home = [...sets.values()].find(s => s.bounds.min <= min && max <= s.bounds.max);
  const set = home ? {...home, bounds: bounds(min, max)} :
                     {id: 'window', navigation: undefined, model: {}, bounds: bounds(min, max)};
  sets = new Map([[set.id, set]]);
}
const formatter = formatterOf(sets);
const text = [
  await formatter.formatLongestTasks(),
  await taskFunctions(sets),
  await formatter.formatMainThreadBottomUpSummary(),
  await formatter.formatThirdPartySummary(),
].join('\n');
process.stdout.write(text);
