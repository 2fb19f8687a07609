//! The LayoutShifts handler's data in the data conformance dump, in
//! DevTools' shape: the clusters and shifts as its synthetic events, whose
//! shifts copy their input event's members.

use tracekit_events::dump::{Dump, Object, Synthetic, SyntheticId, Value};
use tracekit_events::json::member;

use crate::layout_shifts::{
    ClusterNavigation, LayoutShift, LayoutShiftCluster, LayoutShifts, RawKey, ScoreWindows, TraceWindow,
};
use crate::util::spread_members;
use tracekit_page::Screenshots as PageScreenshots;

impl LayoutShifts {
    /// This data in the data conformance dump; `shots` is the Screenshots
    /// handler's data, which the shifts' screenshots are in.
    pub fn dump(&self, shots: &PageScreenshots, dump: &mut Dump<'_>) -> Value {
        let clusters = (0..self.clusters.len())
            .map(|c| Value::Synthetic(self.dump_cluster(c, shots, dump)))
            .collect();
        let fonts = self.remote_fonts.iter().map(|f| {
            let sym = |s: Option<tracekit_events::Sym>| Value::opt(s, Value::Sym);
            let font = Object::new()
                .with("display", sym(f.display))
                .with("url", sym(f.url))
                .with("beginRemoteFontLoadEvent", Value::Event(f.event));
            font.with_some("name", f.name.map(sym)).into()
        });
        let records = self.score_records.iter().map(|r| {
            Object::new()
                .with("ts", Value::Num(r.ts.0))
                .with("score", Value::opt(r.score, Value::Num))
                .into()
        });
        let nodes = self.backend_node_ids.iter().map(|n| match n {
            RawKey::Undefined => Value::Null,
            RawKey::Num(x) => Value::Num(*x),
            RawKey::Text(t) => Value::Json(t.clone()),
        });
        let events = |list: &[u32]| Value::events(list.iter().copied());
        Object::new()
            .with("clusters", Value::Array(clusters))
            .with("sessionMaxScore", Value::Num(self.session_max_score))
            .with(
                "clsWindowID",
                Value::Num(self.cls_window_id.map_or(-1.0, |id| id as f64)),
            )
            .with("prePaintEvents", events(&self.pre_paint_events))
            .with("layoutInvalidationEvents", events(&self.layout_invalidation_events))
            .with(
                "scheduleStyleInvalidationEvents",
                events(&self.schedule_style_invalidation_events),
            )
            .with(
                "styleRecalcInvalidationEvents",
                events(&self.style_recalc_invalidation_events),
            )
            .with(
                "renderFrameImplCreateChildFrameEvents",
                events(&self.render_frame_impl_create_child_frame_events),
            )
            .with("domLoadingEvents", events(&self.dom_loading_events))
            .with("layoutImageUnsizedEvents", events(&self.layout_image_unsized_events))
            .with("paintImageEvents", events(&self.paint_image_events))
            .with("remoteFonts", Value::Array(fonts.collect()))
            .with("scoreRecords", Value::Array(records.collect()))
            .with("backendNodeIds", Value::Set(nodes.collect()))
            .into()
    }

    /// The cluster at `at` in [`LayoutShifts::clusters`] as its synthetic
    /// event, registered once.
    pub fn dump_cluster(&self, at: usize, shots: &PageScreenshots, dump: &mut Dump<'_>) -> SyntheticId {
        dump.shared("SyntheticLayoutShiftCluster", at as u64, |d| {
            self.cluster(at, &self.clusters[at], shots, d)
        })
    }

    /// The shift at `shift` of the cluster at `cluster` as its synthetic
    /// event, registered once.
    pub fn dump_shift(
        &self,
        cluster: usize,
        shift: usize,
        shots: &PageScreenshots,
        dump: &mut Dump<'_>,
    ) -> SyntheticId {
        let key = ((cluster as u64) << 32) | shift as u64;
        dump.shared("SyntheticLayoutShift", key, |d| {
            self.shift(&self.clusters[cluster].shifts[shift], shots, d)
        })
    }

    fn cluster(&self, at: usize, c: &LayoutShiftCluster, shots: &PageScreenshots, dump: &mut Dump<'_>) -> Synthetic {
        let shifts: Vec<SyntheticId> = (0..c.shifts.len())
            .map(|s| self.dump_shift(at, s, shots, dump))
            .collect();
        let fields = Object::new()
            .with("name", Value::str("SyntheticLayoutShiftCluster"))
            .with("rawSourceEvent", Value::Event(c.source))
            .with(
                "events",
                Value::Array(shifts.iter().map(|&s| Value::Synthetic(s)).collect()),
            )
            .with("clusterWindow", window(c.window))
            .with("clusterCumulativeScore", Value::Num(c.cumulative_score))
            .with("scoreWindows", score_windows(&c.score_windows))
            .with("navigationId", navigation(c.navigation))
            .with("ts", Value::Num(c.ts.0))
            .with("pid", Value::id(c.pid))
            .with("tid", Value::id(c.tid))
            .with("ph", Value::str("X"))
            .with("cat", Value::str(""))
            .with("dur", Value::Num(c.dur.0))
            .with_some("worstShiftEvent", c.worst_shift.map(|i| Value::Synthetic(shifts[i])));
        Synthetic {
            name: "SyntheticLayoutShiftCluster".into(),
            pid: Value::id(c.pid),
            tid: Value::id(c.tid),
            ts: c.ts.0,
            raw: Some(c.source),
            profile_call: None,
            fields: Some(fields.into()),
        }
    }

    fn shift(&self, s: &LayoutShift, shots: &PageScreenshots, dump: &mut Dump<'_>) -> Synthetic {
        let mut fields = Object::new();
        for (key, raw) in spread_members(&s.text) {
            if key != "args" && key != "name" && key != "rawSourceEvent" && key != "parsedData" {
                fields.push(key, Value::Json(raw.into()));
            }
        }
        let args = member(&s.text, "args").unwrap_or("{}");
        let mut data = Object::new();
        for (key, raw) in member(args, "data").map(spread_members).unwrap_or_default() {
            if key != "rawEvent" && key != "navigationId" {
                data.push(key, Value::Json(raw.into()));
            }
        }
        let navigation_id = match s.navigation {
            ClusterNavigation::After(None) => Value::Null,
            nav => navigation(nav),
        };
        let data = data
            .with("rawEvent", Value::Event(s.event))
            .with("navigationId", navigation_id);
        let frame = member(args, "frame").map_or(Value::Null, |f| Value::Json(f.into()));
        let screenshots = Object::new()
            .with(
                "before",
                Value::opt(s.screenshots.0, |i| self.screenshots.dump_one(i, shots, dump)),
            )
            .with(
                "after",
                Value::opt(s.screenshots.1, |i| self.screenshots.dump_one(i, shots, dump)),
            );
        let window_data = Object::new()
            .with("cumulativeWindowScore", Value::Num(s.session_window_score))
            .with("id", Value::Num(s.session_window_id as f64));
        let parsed = Object::new()
            .with(
                "timeFromNavigation",
                Value::opt(s.time_from_navigation, |t| Value::Num(t.0)),
            )
            .with("screenshots", screenshots.into())
            .with(
                "cumulativeWeightedScoreInWindow",
                Value::Num(s.cumulative_weighted_score_in_window),
            )
            .with("sessionWindowData", window_data.into());
        let fields = fields
            .with("rawSourceEvent", Value::Event(s.event))
            .with("name", Value::str("SyntheticLayoutShift"))
            .with(
                "args",
                Object::new().with("frame", frame).with("data", data.into()).into(),
            )
            .with("parsedData", parsed.into());
        Synthetic {
            name: "SyntheticLayoutShift".into(),
            pid: Value::id(s.pid),
            tid: Value::id(s.tid),
            ts: s.ts.0,
            raw: Some(s.event),
            profile_call: None,
            fields: Some(fields.into()),
        }
    }
}

fn navigation(nav: ClusterNavigation) -> Value {
    match nav {
        ClusterNavigation::NoNavigation => Value::str("NO_NAVIGATION"),
        ClusterNavigation::After(id) => Value::opt(id, Value::Sym),
    }
}

fn window(w: TraceWindow) -> Value {
    Object::new()
        .with("min", Value::Num(w.min.0))
        .with("max", Value::Num(w.max.0))
        .with("range", Value::Num(w.max.0 - w.min.0))
        .into()
}

fn score_windows(w: &ScoreWindows) -> Value {
    Object::new()
        .with("good", window(w.good))
        .with_some("needsImprovement", w.needs_improvement.map(window))
        .with_some("bad", w.bad.map(window))
        .into()
}
