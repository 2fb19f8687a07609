#!/usr/bin/env node
// Conformance oracle for the Performance panel's Summary of a range: runs the
// DevTools trace engine (chosen with --engine: lib/trace.mjs) on a trace and
// prints, for every thread of the tracks conformance dump (oracle.mjs), the
// time per category over a window as the panel computes it for a selected
// thread track, in tracekit's "summary conformance" format.
//
// Usage:
//   node xtask/js/summary.mjs [OPTIONS] FILE                    dump of FILE on stdout
//   node xtask/js/summary.mjs [OPTIONS] --out-dir DIR FILE...   one DIR/<name>.json per FILE
// Options:
//   --window START..END   the selected range, in ms from the trace start (the
//                         Meta handler's traceBounds.min, as `tracks --window`);
//                         default: the whole trace bounds
//   --exact               every time unrounded, as a JSON string holding
//                         JavaScript's String(x) of it, so that a comparer can
//                         check it bit for bit
// Output naming, exit status, warnings and memory: as oracle.mjs.
//
// Output, one line of JSON:
//   {"threads":[{"pid":N,"tid":N,"name":STRING_OR_NULL,
//                "categories":{"loading":MS,"scripting":MS,...,"idle":MS},
//                "total":MS},...],
//    "window":{"start":MS,"end":MS}}
// Threads: those of the tracks dump, in its order (threads without a tree
// root are left out there, and here). `categories`: the keys of the panel's
// stats for the range (every category the walk met, and idle), in the order
// of the engine's category palette (Styles.getCategoryStyles()); `total`:
// the panel's Total (the sum of all of them, idle included, in the stats'
// own key order). Times in ms rounded to 3 decimals; `window` is the
// absolute window in ms, rounded the same way.
//
// ---------------------------------------------------------------------------
// What the panel does, and what is reproduced here
// ---------------------------------------------------------------------------
// The Summary tab of a selected range (panels/timeline/components/
// TimelineRangeSummaryView, TimelineSummary; not in the npm package) is
// re-implemented below on top of the engine's own pieces
// (Helpers.Trace.forEachEvent, Helpers.Timing.eventTimingsMilliSeconds,
// Styles.getEventStyle / getCategoryStyles, Platform ArrayUtilities
// upperBound). What it does:
//   - Events: those the panel gives its detail views for the selected thread
//     track (TimelineFlameChartView's selected group ->
//     CompatibilityTracksAppender eventsForTreeView), i.e. the same list as
//     the Call Tree's (lib/panel.mjs), RunTask and JS calls (ProfileCall)
//     included, and no filter.
//   - Category of an event: its Styles entry's category, by name (hidden or
//     not), else `other`; a ProfileCall is `scripting`.
//   - One walk over all the events (forEachEvent with no window, so async and
//     flow phases are skipped), a stack of categories: when an event with a
//     duration starts with a category other than the one on top, or ends and
//     the category below differs from its own, the category left and the
//     category entered each get a record [time, cumulative ms on top] at the
//     event's start (end: `|| 0`) in ms; a category whose last record is at
//     that time, or a time before the last change, gets none. The last change
//     starts at 0.
//   - A category's ms in [startTime, endTime]: its cumulative ms at endTime
//     less that at startTime, each found with upperBound over its record
//     times: 0 before the first record, the last value after the last,
//     otherwise linear interpolation between the records around it.
//   - idle = Math.max(0, endTime - startTime - the sum of all the categories'
//     ms), in the place of an `idle` category if events had it (e.g.
//     v8.parseOnBackgroundWaiting). A thread with no event: {idle: endTime -
//     startTime}.
//   - The panel lists the categories other than idle with a truthy time,
//     sorted by time, and a Total (all stats, idle included); that display
//     step is tracekit's text/json formats, not this dump.
//   - startTime / endTime (ms): the trace bounds, or --window (selectedRange
//     in lib/panel.mjs).

import {Platform} from './lib/trace.mjs';
import {Trace} from './lib/trace.mjs';

import {num, parseFile, runFiles, selectProcesses} from './lib/engine.mjs';
import {parseWindow, selectedRange, treeViewEvents} from './lib/panel.mjs';

// stdout carries only dumps: send any console.log/info/debug of the engine to stderr.
console.log = console.info = console.debug = (...args) => console.error(...args);

const {upperBound, DEFAULT_COMPARATOR} = Platform.ArrayUtilities;
const PALETTE = Object.values(Trace.Styles.getCategoryStyles()).map(c => c.name);
const OTHER = Trace.Styles.getCategoryStyles().other.name;
const IDLE = Trace.Styles.EventCategory.IDLE;

/** The Summary's category of an event. */
function categoryOf(event) {
  return Trace.Styles.getEventStyle(event.name)?.category.name || OTHER;
}

/**
 * One walk over the thread's events: for each category met (in the order
 * met), its records {times, values}: at times[i] (ms) it had been on top of
 * the category stack values[i] ms in all.
 */
function categoryRecords(events) {
  const records = {};
  const onTop = [];
  let lastChange = 0;
  const record = (category, time) => {
    records[category] ??= {times: [], values: []};
    const {times, values} = records[category];
    if ((times.length && times.at(-1) === time) || lastChange > time) {
      return;
    }
    const lastValue = values.length ? values.at(-1) : 0;
    values.push(lastValue + time - lastChange);
    times.push(time);
  };
  const change = (from, to, time) => {
    if (from) {
      record(from, time);
    }
    lastChange = time;
    if (to) {
      record(to, time);
    }
  };
  Trace.Helpers.Trace.forEachEvent(events, {
    onStartEvent(event) {
      const category = categoryOf(event);
      const below = onTop.length ? onTop.at(-1) : null;
      if (category !== below) {
        change(below, category, Trace.Helpers.Timing.eventTimingsMilliSeconds(event).startTime);
      }
      onTop.push(category);
    },
    onEndEvent(event) {
      const category = onTop.pop();
      const below = onTop.length ? onTop.at(-1) : null;
      if (category !== below) {
        change(category || null, below || null, Trace.Helpers.Timing.eventTimingsMilliSeconds(event).endTime || 0);
      }
    },
  });
  return records;
}

/** The cumulative ms of a category's records at `time`. */
function cumulativeAt({times, values}, time) {
  const i = upperBound(times, time, DEFAULT_COMPARATOR);
  if (i === 0) {
    return 0;
  }
  if (i === times.length) {
    return values.at(-1);
  }
  return values[i - 1] + (values[i] - values[i - 1]) * (time - times[i - 1]) / (times[i] - times[i - 1]);
}

/** The panel's stats of a range: ms per category name, idle included. */
function statsForRange(events, startTime, endTime) {
  if (!events.length) {
    return {idle: endTime - startTime};
  }
  const records = categoryRecords(events);
  const stats = {};
  for (const category in records) {
    stats[category] = cumulativeAt(records[category], endTime);
  }
  for (const category in records) {
    stats[category] -= cumulativeAt(records[category], startTime);
  }
  const busy = Object.values(stats).reduce((sum, ms) => sum + ms, 0);
  stats[IDLE] = Math.max(0, endTime - startTime - busy);
  return stats;
}

/** The panel's Total: every stat, idle included, in key order. */
function totalOf(stats) {
  let total = 0;
  for (const category in stats) {
    total += stats[category];
  }
  return total;
}

async function dumpFile(file, warn, options) {
  const ms = options.exact ? x => JSON.stringify(String(x)) : num;
  const {data, isCPUProfile} = await parseFile(file, warn);
  const traceIsGeneric = data.Meta.traceIsGeneric;
  const {startTime, endTime} = selectedRange(data, options.window);
  const threads = [];
  for (const p of selectProcesses(data, isCPUProfile)) {
    for (const t of p.threads) {
      if (!t.tree || t.tree.roots.size === 0) {
        continue;
      }
      const stats = statsForRange(treeViewEvents(t.tree, traceIsGeneric), startTime, endTime);
      const categories = PALETTE.filter(c => Object.hasOwn(stats, c))
                             .map(c => `${JSON.stringify(c)}:${ms(stats[c])}`)
                             .join(',');
      threads.push(`{"pid":${JSON.stringify(p.pid)},"tid":${JSON.stringify(t.tid)},` +
          `"name":${JSON.stringify(t.name)},"categories":{${categories}},"total":${ms(totalOf(stats))}}`);
    }
  }
  return [`{"threads":[${threads.join(',')}],"window":{"start":${ms(startTime)},"end":${ms(endTime)}}}`];
}

function usage() {
  process.stderr.write(
      'usage: node summary.mjs [--window START..END] [--exact] FILE\n' +
      '       node summary.mjs [--window START..END] [--exact] --out-dir DIR FILE...\n');
  process.exit(2);
}

async function main() {
  const args = process.argv.slice(2);
  let outDir = null;
  const options = {window: null, exact: false};
  const files = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--out-dir' || arg === '--window') {
      if (i + 1 >= args.length) {
        usage();
      }
      const value = args[++i];
      if (arg === '--out-dir') {
        outDir = value;
      } else {
        options.window = parseWindow(value);
        if (!options.window) {
          process.stderr.write(`summary: --window: expected START..END (ms, END >= START), got ${value}\n`);
          process.exit(2);
        }
      }
    } else if (arg === '--exact') {
      options.exact = true;
    } else if (arg === '--help' || arg === '-h' || arg.startsWith('--')) {
      usage();
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0 || (outDir === null && files.length !== 1)) {
    usage();
  }
  await runFiles('summary', files, outDir, (file, warn) => dumpFile(file, warn, options));
}

await main();
