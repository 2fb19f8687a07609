#!/usr/bin/env node
// Conformance oracle for the aggregated views of the Performance panel (issue
// 7): runs the DevTools trace engine (chosen with --engine: lib/trace.mjs) on a
// trace and prints, for every thread of the tracks conformance dump
// (oracle.mjs), its Call Tree (top-down) and Bottom-Up trees as the panel
// builds them, with no grouping or with the panel's "Group by" setting, in
// tracekit's "calltree conformance" format.
//
// Usage:
//   node xtask/js/calltree.mjs [OPTIONS] FILE                    dump of FILE on stdout
//   node xtask/js/calltree.mjs [OPTIONS] --out-dir DIR FILE...   one DIR/<name>.json per FILE
// Options:
//   --window START..END   the selected range, in ms from the trace start (the
//                         Meta handler's traceBounds.min, as `tracks --window`);
//                         default: the whole trace bounds
//   --max-depth N         only rows of depth < N (roots have depth 0); the
//                         engine is not asked for deeper nodes
//   --top-down-max-depth N, --bottom-up-max-depth N
//                         the same for one view only (overrides --max-depth
//                         for it). A depth limit is a pure filter of the full
//                         output, so a comparer can apply it to tracekit's
//                         full rows. Expanding a whole tree costs DevTools
//                         O(nodes x events) (every node re-walks the thread),
//                         the Bottom-Up of deep recursion being the worst.
//   --group-by KIND       the panel's "Group by": none (default), category,
//                         url, domain, subdomain or frame (lib/grouping.mjs)
//   --timings             per input, the time the engine takes (parse, each
//                         view) on stderr
// Output naming, exit status, warnings and memory: as oracle.mjs.
//
// Output, one line of JSON:
//   {"threads":[{"pid":N,"tid":N,"name":STRING_OR_NULL,
//                "topDown":[[DEPTH,ID,SELF_MS,TOTAL_MS],...],
//                "bottomUp":[[DEPTH,ID,SELF_MS,TOTAL_MS],...]},...],
//    "window":{"start":MS,"end":MS}}
// Threads: those of the tracks dump, in its order (threads without a tree
// root are left out there, and here). Rows: a depth-first pre-order walk of
// each tree from depth 0 (the root node itself is not printed); siblings are
// sorted by ID (code-unit order), since the panel's own order depends on the
// sort column. IDs are the engine's node ids (TraceTree generateEventID).
// Times are the nodes' selfTime / totalTime (ms), rounded to 3 decimals;
// `window` is the absolute window in ms, rounded the same way. With grouping,
// the group nodes are the rows of depth 0 (their id is the group id, `''` for
// the empty group) and everything else is one level deeper.
//
// ---------------------------------------------------------------------------
// What the panel does, and what is reproduced here
// ---------------------------------------------------------------------------
// The tree building is the engine's own (Extras.TraceTree TopDownRootNode /
// BottomUpRootNode, filters from Extras.TraceFilter, visible types from
// Styles); the panel-side pieces that choose the events, filters and options
// (panels/timeline: TimelineTreeView, TimelinePanel, CompatibilityTracksAppender,
// ThreadAppender; not in the npm package) are redone here:
//   - Events of a thread: those the panel hands to its detail views, see
//     lib/panel.mjs.
//   - Filters: ExclusiveNameFilter(['RunTask']) always; plus, unless the trace
//     is generic, the panel's default active filter
//     VisibleEventsFilter(Styles.visibleTypes()). The Call Tree gets the text
//     filter too (empty: accepts everything); the Bottom-Up gets it as its
//     textFilter.
//   - Call Tree: TopDownRootNode(events, {filters, startTime, endTime,
//     doNotAggregate: false, eventGroupIdCallback}).
//   - Bottom-Up: BottomUpRootNode(events, {textFilter, filters, startTime,
//     endTime, eventGroupIdCallback, calculateTransferSize: true,
//     forceGroupIdCallback: false}) (the panel forces it only when grouping
//     by third parties, which is not supported).
//   - eventGroupIdCallback: null with no grouping, else the group id function
//     of lib/grouping.mjs.
//   - startTime / endTime (ms): the trace bounds, or --window; see
//     selectedRange in lib/panel.mjs.


import {Trace} from './lib/trace.mjs';

import {num, parseFile, runFiles, selectProcesses} from './lib/engine.mjs';
import {parseWindow, selectedRange, treeViewEvents} from './lib/panel.mjs';
import {GROUP_KINDS, groupIdCallback, groupingReadsUrls} from './lib/grouping.mjs';

// stdout carries only dumps: send any console.log/info/debug of the engine to stderr.
console.log = console.info = console.debug = (...args) => console.error(...args);

const {TopDownRootNode, BottomUpRootNode} = Trace.Extras.TraceTree;
const {ExclusiveNameFilter, VisibleEventsFilter} = Trace.Extras.TraceFilter;
const Events = Trace.Types.Events;

const ACCEPT_ALL = {accept: () => true};  // the tree view's text filter with no text

function filtersFor(traceIsGeneric) {
  const filters = [new ExclusiveNameFilter([Events.Name.RUN_TASK])];
  if (!traceIsGeneric) {
    filters.push(new VisibleEventsFilter(Trace.Styles.visibleTypes()));
  }
  return filters;
}

const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Pre-order rows [depth, id, self, total] of the tree under `root` (root not
 * included), siblings sorted by id, rows of depth < maxDepth only.
 */
function rows(root, maxDepth) {
  const out = [];
  if (maxDepth <= 0) {
    return out;
  }
  const stack = [];
  const pushChildren = (node, depth) => {
    const children = [...node.children().values()].sort(byId);
    for (let c = children.length - 1; c >= 0; c--) {
      stack.push([children[c], depth]);
    }
  };
  pushChildren(root, 0);
  while (stack.length) {
    const [node, depth] = stack.pop();
    if (typeof node.id !== 'string') {
      throw new Error(`unexpected node id ${String(node.id)}`);
    }
    out.push(`[${depth},${JSON.stringify(node.id)},${num(node.selfTime)},${num(node.totalTime)}]`);
    if (depth + 1 < maxDepth) {
      pushChildren(node, depth + 1);
    }
  }
  return out;
}

async function dumpFile(file, warn, options, timings) {
  const t0 = performance.now();
  const {data, isCPUProfile} = await parseFile(file, warn, {imagePainting: groupingReadsUrls(options.groupBy)});
  const eventGroupIdCallback = groupIdCallback(options.groupBy, data);
  const t1 = performance.now();
  const traceIsGeneric = data.Meta.traceIsGeneric;
  const {startTime, endTime} = selectedRange(data, options.window);
  const filters = filtersFor(traceIsGeneric);
  const topDownMaxDepth = options.topDownMaxDepth ?? options.maxDepth ?? Infinity;
  const bottomUpMaxDepth = options.bottomUpMaxDepth ?? options.maxDepth ?? Infinity;

  let topDownMs = 0;
  let bottomUpMs = 0;
  let threadCount = 0;
  let eventCount = 0;
  let rowCount = 0;
  const chunks = ['{"threads":['];
  let first = true;
  for (const p of selectProcesses(data, isCPUProfile)) {
    for (const t of p.threads) {
      if (!t.tree || t.tree.roots.size === 0) {
        continue;
      }
      const events = treeViewEvents(t.tree, traceIsGeneric);
      threadCount++;
      eventCount += events.length;

      const a = performance.now();
      const topDown = new TopDownRootNode(events, {
        filters: [...filters, ACCEPT_ALL],
        startTime,
        endTime,
        doNotAggregate: false,
        eventGroupIdCallback,
      });
      const topDownRows = rows(topDown, topDownMaxDepth);
      const b = performance.now();
      const bottomUp = new BottomUpRootNode(events, {
        textFilter: ACCEPT_ALL,
        filters,
        startTime,
        endTime,
        eventGroupIdCallback,
        calculateTransferSize: true,
        forceGroupIdCallback: false,
      });
      const bottomUpRows = rows(bottomUp, bottomUpMaxDepth);
      const c = performance.now();
      topDownMs += b - a;
      bottomUpMs += c - b;
      rowCount += topDownRows.length + bottomUpRows.length;

      chunks.push(`${first ? '' : ','}{"pid":${JSON.stringify(p.pid)},"tid":${JSON.stringify(t.tid)},` +
          `"name":${JSON.stringify(t.name)},"topDown":[`);
      first = false;
      pushJoined(chunks, topDownRows);
      chunks.push('],"bottomUp":[');
      pushJoined(chunks, bottomUpRows);
      chunks.push(']}');
    }
  }
  chunks.push(`],"window":{"start":${num(startTime)},"end":${num(endTime)}}}`);
  if (timings) {
    timings({
      parseMs: t1 - t0,
      topDownMs,
      bottomUpMs,
      threads: threadCount,
      events: eventCount,
      rows: rowCount,
      traceIsGeneric,
    });
  }
  return chunks;
}

function pushJoined(chunks, items) {
  // Joined in pieces of ~1 MB so that no single string gets huge.
  let buf = '';
  for (let i = 0; i < items.length; i++) {
    buf += (i ? ',' : '') + items[i];
    if (buf.length > (1 << 20)) {
      chunks.push(buf);
      buf = '';
    }
  }
  chunks.push(buf);
}


function usage() {
  process.stderr.write(
      'usage: node calltree.mjs [OPTIONS] FILE\n' +
      '       node calltree.mjs [OPTIONS] --out-dir DIR FILE...\n' +
      'options: --window START..END  --max-depth N  --top-down-max-depth N  --bottom-up-max-depth N\n' +
      `         --group-by ${GROUP_KINDS.join('|')}  --timings\n`);
  process.exit(2);
}


async function main() {
  const args = process.argv.slice(2);
  let outDir = null;
  const options = {window: null, maxDepth: null, topDownMaxDepth: null, bottomUpMaxDepth: null, groupBy: 'none'};
  const depthOptions = {'--max-depth': 'maxDepth', '--top-down-max-depth': 'topDownMaxDepth',
                        '--bottom-up-max-depth': 'bottomUpMaxDepth'};
  let wantTimings = false;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--out-dir' || arg === '--window' || arg === '--group-by' || Object.hasOwn(depthOptions, arg)) {
      if (i + 1 >= args.length) {
        usage();
      }
      const value = args[++i];
      if (arg === '--out-dir') {
        outDir = value;
      } else if (arg === '--group-by') {
        if (!GROUP_KINDS.includes(value)) {
          process.stderr.write(`calltree: --group-by: expected one of ${GROUP_KINDS.join(', ')}, got ${value}\n`);
          process.exit(2);
        }
        options.groupBy = value;
      } else if (arg === '--window') {
        options.window = parseWindow(value);
        if (!options.window) {
          process.stderr.write(`calltree: --window: expected START..END (ms, END >= START), got ${value}\n`);
          process.exit(2);
        }
      } else {
        if (!/^[0-9]+$/.test(value)) {
          process.stderr.write(`calltree: ${arg}: expected a whole number, got ${value}\n`);
          process.exit(2);
        }
        options[depthOptions[arg]] = Number(value);
      }
    } else if (arg === '--timings') {
      wantTimings = true;
    } else if (arg === '--help' || arg === '-h' || arg.startsWith('--')) {
      usage();
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0 || (outDir === null && files.length !== 1)) {
    usage();
  }
  await runFiles('calltree', files, outDir, (file, warn) => {
    const timings = wantTimings ? t => {
      const f = x => x.toFixed(0);
      process.stderr.write(`calltree: ${file}: timings: parse ${f(t.parseMs)} ms, call tree ${f(t.topDownMs)} ms, ` +
          `bottom-up ${f(t.bottomUpMs)} ms (${t.threads} threads, ${t.events} events, ${t.rows} rows` +
          `${t.traceIsGeneric ? ', generic trace' : ''})\n`);
    } : null;
    return dumpFile(file, warn, options, timings);
  });
}

await main();
