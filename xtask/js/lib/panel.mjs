// What the Performance panel (panels/timeline, not in the npm package) hands
// to its detail views for a thread track, shared by the oracles of the
// aggregated views (calltree.mjs) and of the Summary (summary.mjs), and
// their common --window option.
//
// Events of a thread: the panel takes the events its flame chart track
// drew (CompatibilityTracksAppender eventsInTrack / eventsForTreeView),
// i.e. the nodes of the thread's tree (Renderer handler tree, or the Samples
// handler's profileTree for a CPU profile) walked depth first, keeping those
// "visible in the timeline", then sorted by ts (a stable sort). Visible:
// everything when Meta.traceIsGeneric; otherwise UpdateCounters,
// SchedulePostMessage/HandlePostMessage, extension entries, console.time /
// performance.measure / performance.mark / console.timeStamp events, and
// events whose Styles entry exists and is not hidden. (Ignore-listed JS
// frames, hidden by default in the real panel, are kept: the trace alone
// does not say which scripts are.)

import {Trace} from './trace.mjs';

const Events = Trace.Types.Events;

/** The panel's entryIsVisibleInTimeline (CompatibilityTracksAppender). */
export function visibleInTimeline(entry, traceIsGeneric) {
  if (traceIsGeneric) {
    return true;
  }
  if (Events.isUpdateCounters(entry) || Events.isSchedulePostMessage(entry) || Events.isHandlePostMessage(entry) ||
      Trace.Types.Extensions.isSyntheticExtensionEntry(entry)) {
    return true;
  }
  const style = Trace.Styles.getEventStyle(entry.name);
  const isTiming = Events.isConsoleTime(entry) || Events.isPerformanceMeasure(entry) ||
      Events.isPerformanceMark(entry) || Events.isConsoleTimeStamp(entry);
  return Boolean(style && !style.hidden) || isTiming;
}

/** The events the panel hands to its detail views for one thread track. */
export function treeViewEvents(tree, traceIsGeneric) {
  const events = [];
  const stack = [...tree.roots].reverse();
  while (stack.length) {
    const node = stack.pop();
    if (visibleInTimeline(node.entry, traceIsGeneric)) {
      events.push(node.entry);
    }
    for (let c = node.children.length - 1; c >= 0; c--) {
      stack.push(node.children[c]);
    }
  }
  events.sort((a, b) => a.ts - b.ts);  // stable
  return events;
}

/** `START..END` (ms, END >= START) as [START, END], or null. */
export function parseWindow(s) {
  const m = /^\s*(-?[0-9.eE+-]+)\s*\.\.\s*(-?[0-9.eE+-]+)\s*$/.exec(s);
  const a = m ? Number(m[1]) : NaN;
  const b = m ? Number(m[2]) : NaN;
  if (!Number.isFinite(a) || !Number.isFinite(b) || b < a) {
    return null;
  }
  return [a, b];
}

/**
 * The selected range in ms: by default the trace bounds (traceBounds.min /
 * 1000, traceBounds.max / 1000); with `window` ([START, END] in ms from the
 * trace start), traceBounds.min / 1000 + START and + END. (The panel itself
 * starts with a zoomed-in visible window, Extras.MainThreadActivity; that is
 * not reproduced.)
 */
export function selectedRange(data, window) {
  const bounds = data.Meta.traceBounds;
  const minMs = Trace.Helpers.Timing.microToMilli(bounds.min);
  if (window) {
    return {startTime: minMs + window[0], endTime: minMs + window[1]};
  }
  return {startTime: minMs, endTime: Trace.Helpers.Timing.microToMilli(bounds.max)};
}
