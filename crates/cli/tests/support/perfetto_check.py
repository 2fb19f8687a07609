"""Reads a Perfetto trace with Perfetto's own Python bindings (PyPI
`perfetto`) and reports, as JSON on stdout, what each thread track holds.

Usage: python perfetto_check.py TRACE

Checked while reading (each failure is listed in `errors`): the interned
names are defined before use, on a sequence whose incremental state was
cleared; every event is on a described track; times never go back on a
track; every slice that begins ends, on its track, inside its parent (a
stack); no slice is left open. Reported per thread track: its pid, tid,
thread and process names, how many slices (begins and instants) it has,
how many JS slices (category v8.cpu_profiler) and how many of those have
a `location` argument, the names of the JS slices (`jsNames`), and the
self time of its slices in microseconds
(each slice's duration less its children's, added up).
"""

import json
import sys

from perfetto.protos.perfetto.trace.perfetto_trace_pb2 import Trace, TrackEvent

SEQ_INCREMENTAL_STATE_CLEARED = 1
SEQ_NEEDS_INCREMENTAL_STATE = 2


def check(path):
    trace = Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    errors = []
    names, categories, annotation_names = {}, {}, {}
    cleared = set()
    processes = {}  # uuid -> (pid, name, labels)
    threads = {}  # uuid -> report
    open_slices = {}  # uuid -> [[begin, children's time]]
    last_time = {}  # uuid -> ns

    def error(text):
        if len(errors) < 20:
            errors.append(text)

    for i, packet in enumerate(trace.packet):
        sequence = packet.trusted_packet_sequence_id
        if packet.sequence_flags & SEQ_INCREMENTAL_STATE_CLEARED:
            cleared.add(sequence)
            names.clear(), categories.clear(), annotation_names.clear()
        if packet.sequence_flags & SEQ_NEEDS_INCREMENTAL_STATE and sequence not in cleared:
            error(f"packet {i} needs the incremental state of sequence {sequence}, never cleared")
        if packet.HasField("interned_data"):
            data = packet.interned_data
            for table, entries in ((names, data.event_names), (categories, data.event_categories),
                                   (annotation_names, data.debug_annotation_names)):
                for entry in entries:
                    table[entry.iid] = entry.name
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            if d.HasField("process"):
                processes[d.uuid] = (d.process.pid, d.process.process_name, list(d.process.process_labels))
            if d.HasField("thread"):
                threads[d.uuid] = {
                    "pid": d.thread.pid,
                    "tid": d.thread.tid,
                    "thread": d.thread.thread_name if d.thread.HasField("thread_name") else None,
                    "parent": d.parent_uuid,
                    "slices": 0,
                    "jsSlices": 0,
                    "jsWithLocation": 0,
                    "jsNames": set(),
                    "selfNs": 0,
                }
                open_slices[d.uuid] = []
                last_time[d.uuid] = 0
        if not packet.HasField("track_event"):
            continue
        event = packet.track_event
        track = threads.get(event.track_uuid)
        if track is None:
            error(f"packet {i}: event on an undescribed track {event.track_uuid}")
            continue
        ts = packet.timestamp
        if ts < last_time[event.track_uuid]:
            error(f"packet {i}: time goes back on track {event.track_uuid}")
        last_time[event.track_uuid] = ts
        stack = open_slices[event.track_uuid]
        if event.type in (TrackEvent.TYPE_SLICE_BEGIN, TrackEvent.TYPE_INSTANT):
            if event.name_iid not in names:
                error(f"packet {i}: name iid {event.name_iid} not interned")
            slice_categories = [categories.get(c) for c in event.category_iids]
            if None in slice_categories or not slice_categories:
                error(f"packet {i}: category iids {list(event.category_iids)} not interned")
            track["slices"] += 1
            if "v8.cpu_profiler" in slice_categories:
                track["jsSlices"] += 1
                track["jsNames"].add(names.get(event.name_iid))
                if any(annotation_names.get(a.name_iid) == "location" and a.string_value for a in event.debug_annotations):
                    track["jsWithLocation"] += 1
            if event.type == TrackEvent.TYPE_SLICE_BEGIN:
                stack.append([ts, 0])
        elif event.type == TrackEvent.TYPE_SLICE_END:
            if not stack:
                error(f"packet {i}: a slice ends on track {event.track_uuid} with none open")
                continue
            begin, children = stack.pop()
            duration = ts - begin
            track["selfNs"] += duration - children
            if stack:
                stack[-1][1] += duration
        else:
            error(f"packet {i}: unexpected event type {event.type}")
    for uuid, stack in open_slices.items():
        if stack:
            error(f"track {uuid}: {len(stack)} slices never end")
    report = []
    for uuid, track in threads.items():
        pid, process, labels = processes.get(track.pop("parent"), (None, None, []))
        if pid != track["pid"]:
            error(f"thread track {uuid}: pid {track['pid']} under a process track of pid {pid}")
        track["process"] = process or None
        track["processLabels"] = labels
        track["selfUs"] = track.pop("selfNs") / 1000
        track["jsNames"] = sorted(n for n in track["jsNames"] if n is not None)
        report.append(track)
    return {"errors": errors, "threads": report, "packets": len(trace.packet)}


if __name__ == "__main__":
    json.dump(check(sys.argv[1]), sys.stdout)
