//! The Samples handler on small hand-written traces, fed through the real
//! tokenizer.

use tracekit_cpuprofile::profiles_from_trace_samples;
use tracekit_events::{feed, Divergence, Interner, Parallelism};

use super::*;

/// A profile node linked to its parent, as chunks write them.
fn node(id: i64, name: &str, parent: Option<i64>) -> String {
    let parent = parent.map(|p| format!(r#","parent":{p}"#)).unwrap_or_default();
    format!(
        r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"app.js","lineNumber":{id},"columnNumber":0}}{parent}}}"#
    )
}

/// A `Profile` head; `source` goes in `args.data.source`.
fn head(pid: u32, tid: u32, id: &str, ts: f64, source: Option<&str>) -> String {
    let source = source.map(|s| format!(r#","source":"{s}""#)).unwrap_or_default();
    format!(
        r#"{{"name":"Profile","cat":"c","ph":"P","pid":{pid},"tid":{tid},"ts":{ts},"id":"{id}","args":{{"data":{{"startTime":1{source}}}}}}}"#
    )
}

/// A `ProfileChunk` of `nodes`, `samples` and `deltas`.
fn chunk(pid: u32, tid: u32, id: &str, nodes: &[String], samples: &[i64], deltas: &[f64]) -> String {
    format!(
        r#"{{"name":"ProfileChunk","cat":"c","ph":"P","pid":{pid},"tid":{tid},"ts":1,"id":"{id}","args":{{"data":{{"cpuProfile":{{"nodes":[{}],"samples":{samples:?}}},"timeDeltas":{deltas:?}}}}}}}"#,
        nodes.join(",")
    )
}

fn trace(events: &[String]) -> String {
    format!("[{}]", events.join(",\n"))
}

fn run(events: &[String]) -> (SamplesData, Context) {
    let mut cx = Context::default();
    let mut handler = SamplesHandler::default();
    feed(&trace(events), &mut handler, &mut cx).unwrap();
    let data = handler.finalize(&no_meta(), &mut cx);
    (data, cx)
}

fn pid(x: u32) -> Id {
    Id::num(x.into())
}

fn str_id(interner: &Interner, s: &str) -> Id {
    Id::str(interner.lookup(s).unwrap())
}

/// The node ids of a model, in its order.
fn node_ids(model: &CpuProfileModel) -> Vec<i64> {
    model.nodes.iter().map(|n| n.id).collect()
}

/// The node id of each sample, in time order.
fn sample_ids(model: &CpuProfileModel) -> Vec<i64> {
    model
        .samples
        .iter()
        .map(|s| s.map_or(-1, |ix| model.node(ix).id))
        .collect()
}

/// The sample timestamps, in whole microseconds.
fn times_us(model: &CpuProfileModel) -> Vec<i64> {
    // The test profiles' times are small whole numbers of microseconds.
    #[allow(clippy::cast_possible_truncation)]
    model
        .timestamps
        .iter()
        .map(|&t| tracekit_events::Millis(t).to_micros().0.round() as i64)
        .collect()
}

fn function_name(model: &CpuProfileModel, id: i64, interner: &Interner) -> String {
    let ix = model.node_by_id(id).unwrap();
    interner.resolve(model.node(ix).call_frame.function_name).to_owned()
}

fn skipped(cx: &Context, reason: Skip) -> u64 {
    cx.diagnostics.skipped.get(&reason).map_or(0, |r| r.count)
}

#[test]
fn chunks_are_stitched_in_order_onto_their_head() {
    let (data, cx) = run(&[
        head(1, 1, "0x1", 1000.0, None),
        chunk(
            1,
            1,
            "0x1",
            &[node(1, "(root)", None), node(2, "a", Some(1))],
            &[2, 2],
            &[10.0, 10.0],
        ),
        chunk(1, 1, "0x1", &[node(3, "b", Some(2))], &[3], &[10.0]),
        chunk(1, 1, "0x1", &[], &[2, 3], &[5.0, 15.0]),
    ]);
    let profile = data.profile(pid(1), pid(1)).unwrap();
    assert_eq!(profile.profile_id, str_id(&cx.interner, "0x1"));
    assert!(!profile.from_trace_samples);
    let model = &profile.model;
    assert_eq!(node_ids(model), [1, 2, 3]);
    // b, from the second chunk, hangs under a, from the first.
    let b = model.node_by_id(3).unwrap();
    assert_eq!(model.node(model.node(b).parent.unwrap()).id, 2);
    assert_eq!(function_name(model, 3, &cx.interner), "b");
    assert_eq!(sample_ids(model), [2, 2, 3, 2, 3]);
    // From the head's ts, each delta added; then the estimated end of the
    // last sample (the average interval after it).
    assert_eq!(times_us(model), [1010, 1020, 1030, 1035, 1050, 1060]);
    assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
}

#[test]
fn chunks_of_two_threads_interleaved_make_two_profiles() {
    let (data, cx) = run(&[
        head(1, 1, "0x1", 100.0, None),
        head(1, 2, "0x2", 500.0, None),
        chunk(
            1,
            1,
            "0x1",
            &[node(1, "(root)", None), node(2, "a", Some(1))],
            &[2],
            &[1.0],
        ),
        // A chunk may come from another thread than its head (V8's
        // sampler): the head's thread has it.
        chunk(
            1,
            9,
            "0x2",
            &[node(1, "(root)", None), node(7, "x", Some(1))],
            &[7],
            &[2.0],
        ),
        chunk(1, 1, "0x1", &[node(3, "b", Some(2))], &[3, 2], &[1.0, 1.0]),
        chunk(1, 2, "0x2", &[], &[7, 1], &[2.0, 2.0]),
    ]);
    let one = data.profile(pid(1), pid(1)).unwrap();
    let two = data.profile(pid(1), pid(2)).unwrap();
    assert!(data.profile(pid(1), pid(9)).is_none());
    assert_eq!(one.profile_id, str_id(&cx.interner, "0x1"));
    assert_eq!(two.profile_id, str_id(&cx.interner, "0x2"));
    assert_eq!(node_ids(&one.model), [1, 2, 3]);
    assert_eq!(sample_ids(&one.model), [2, 3, 2]);
    assert_eq!(times_us(&one.model), [101, 102, 103, 104]);
    assert_eq!(node_ids(&two.model), [1, 7]);
    assert_eq!(sample_ids(&two.model), [7, 7, 1]);
    assert_eq!(times_us(&two.model), [502, 504, 506, 508]);
}

#[test]
fn one_profile_per_thread_by_source_internal_then_inspector_then_the_first() {
    let nodes = |name: &str| vec![node(1, "(root)", None), node(2, name, Some(1))];
    let (data, cx) = run(&[
        // Thread 1: none, Inspector, Internal: Internal.
        head(1, 1, "0x1", 10.0, None),
        chunk(1, 1, "0x1", &nodes("first"), &[2], &[1.0]),
        head(1, 1, "0x2", 10.0, Some("Inspector")),
        chunk(1, 1, "0x2", &nodes("inspector"), &[2], &[1.0]),
        head(1, 1, "0x3", 10.0, Some("Internal")),
        chunk(1, 1, "0x3", &nodes("internal"), &[2], &[1.0]),
        // Thread 2: none, Inspector: Inspector.
        head(1, 2, "0x4", 10.0, None),
        chunk(1, 2, "0x4", &nodes("first"), &[2], &[1.0]),
        head(1, 2, "0x5", 10.0, Some("Inspector")),
        chunk(1, 2, "0x5", &nodes("inspector"), &[2], &[1.0]),
        // Thread 3: none, SelfProfiling: the first.
        head(1, 3, "0x6", 10.0, None),
        chunk(1, 3, "0x6", &nodes("first"), &[2], &[1.0]),
        head(1, 3, "0x7", 10.0, Some("SelfProfiling")),
        chunk(1, 3, "0x7", &nodes("self"), &[2], &[1.0]),
    ]);
    let chosen = |tid: u32| {
        let profile = data.profile(pid(1), pid(tid)).unwrap();
        (
            profile.profile_id.to_js_string(&cx.interner),
            function_name(&profile.model, 2, &cx.interner),
        )
    };
    assert_eq!(chosen(1), ("0x3".to_owned(), "internal".to_owned()));
    assert_eq!(chosen(2), ("0x5".to_owned(), "inspector".to_owned()));
    assert_eq!(chosen(3), ("0x6".to_owned(), "first".to_owned()));
}

#[test]
fn a_chunk_may_name_the_source() {
    let nodes = vec![node(1, "(root)", None), node(2, "f", Some(1))];
    let internal_chunk = format!(
        r#"{{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":1,"id":"0x2","args":{{"data":{{"source":"Internal","cpuProfile":{{"nodes":[{}],"samples":[2]}},"timeDeltas":[1]}}}}}}"#,
        nodes.join(",")
    );
    let (data, cx) = run(&[
        head(1, 1, "0x1", 10.0, Some("Inspector")),
        chunk(1, 1, "0x1", &nodes, &[2], &[1.0]),
        head(1, 1, "0x2", 10.0, None),
        internal_chunk,
    ]);
    assert_eq!(
        data.profile(pid(1), pid(1)).unwrap().profile_id,
        str_id(&cx.interner, "0x2")
    );
}

/// A whole profile in a legacy `CpuProfile` event: its thread is the
/// event's, its times are the profile's own; it has no source, so a
/// profile of the Performance panel (`Internal`) wins over it.
#[test]
fn a_cpu_profile_event_is_a_whole_profile_without_a_source() {
    let whole = |tid: u32, id: &str| {
        format!(
            r#"{{"name":"CpuProfile","ph":"X","pid":1,"tid":{tid},"ts":5,"dur":1,"id":"{id}","args":{{"data":{{"cpuProfile":{{"nodes":[{{"id":1,"callFrame":{{"functionName":"(root)"}},"children":[4]}},{{"id":4,"callFrame":{{"functionName":"whole"}}}}],"startTime":2000,"endTime":2100,"samples":[4,4],"timeDeltas":[10,40]}}}}}}}}"#
        )
    };
    let (data, cx) = run(&[
        whole(1, "0xa"),
        whole(2, "0xb"),
        head(1, 2, "0xc", 10.0, Some("Internal")),
        chunk(
            1,
            2,
            "0xc",
            &[node(1, "(root)", None), node(2, "panel", Some(1))],
            &[2],
            &[1.0],
        ),
    ]);
    let one = data.profile(pid(1), pid(1)).unwrap();
    assert_eq!(one.profile_id, str_id(&cx.interner, "0xa"));
    assert_eq!(node_ids(&one.model), [1, 4]);
    assert_eq!(function_name(&one.model, 4, &cx.interner), "whole");
    assert_eq!(sample_ids(&one.model), [4, 4]);
    assert_eq!(times_us(&one.model), [2010, 2050, 2090]);
    let two = data.profile(pid(1), pid(2)).unwrap();
    assert_eq!(two.profile_id, str_id(&cx.interner, "0xc"));
    assert_eq!(function_name(&two.model, 2, &cx.interner), "panel");
}

#[test]
fn a_cpu_profile_event_without_its_profile_is_counted() {
    let (data, cx) = run(&[
        r#"{"name":"CpuProfile","ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"args":{"data":{}}}"#.to_owned(),
        r#"{"name":"CpuProfile","ph":"X","pid":1,"tid":1,"ts":6,"dur":1,"args":{"data":{"cpuProfile":{"nodes":7}}}}"#
            .to_owned(),
    ]);
    assert!(data.profiles.is_empty());
    assert_eq!(skipped(&cx, Skip::SamplesCpuProfileWithoutData), 1);
    assert_eq!(skipped(&cx, Skip::SamplesUnreadableCpuProfile), 1);
}

#[test]
fn chunks_without_a_head_are_counted_and_dropped() {
    let nodes = [node(1, "(root)", None), node(2, "a", Some(1))];
    let (data, cx) = run(&[
        chunk(1, 1, "0x9", &nodes, &[2], &[1.0]),
        chunk(1, 1, "0x9", &[], &[2], &[1.0]),
        chunk(2, 1, "0x8", &nodes, &[2], &[1.0]),
        head(3, 1, "0x7", 10.0, None),
        chunk(3, 1, "0x7", &nodes, &[2], &[1.0]),
    ]);
    // One per headless profile, not per chunk.
    assert_eq!(skipped(&cx, Skip::SamplesChunksWithoutHead), 2);
    assert!(data.profile(pid(1), pid(1)).is_none());
    assert!(data.profile(pid(2), pid(1)).is_none());
    assert!(data.profile(pid(3), pid(1)).is_some());
}

#[test]
fn uneven_samples_and_time_deltas_are_counted() {
    let (data, cx) = run(&[
        head(1, 1, "0x1", 100.0, None),
        chunk(
            1,
            1,
            "0x1",
            &[node(1, "(root)", None), node(2, "a", Some(1))],
            &[2, 2, 2],
            &[10.0, 10.0],
        ),
    ]);
    assert_eq!(skipped(&cx, Skip::SamplesUnevenChunks), 1);
    // The model pairs what it can: the sample without a time is lost.
    assert_eq!(skipped(&cx, Skip::ProfileUnpairedSamples), 1);
    let model = &data.profile(pid(1), pid(1)).unwrap().model;
    assert_eq!(sample_ids(model), [2, 2]);
    assert_eq!(times_us(model), [110, 120, 130]);
}

#[test]
fn an_unreadable_chunk_is_counted() {
    let (data, cx) = run(&[
        head(1, 1, "0x1", 100.0, None),
        r#"{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":1,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":"x"}}}}"#
            .to_owned(),
    ]);
    assert_eq!(skipped(&cx, Skip::SamplesUnreadableChunk), 1);
    // A head with no node: no profile.
    assert!(data.profiles.is_empty());
}

/// The trace event format's top-level `samples` make a profile only for a
/// thread without one of its own, and say that tracekit diverges there.
#[test]
fn top_level_samples_serve_only_threads_without_a_profile() {
    let mut cx = Context::default();
    let mut handler = SamplesHandler::default();
    let events = trace(&[
        head(1, 1, "0x1", 100.0, None),
        chunk(
            1,
            1,
            "0x1",
            &[node(1, "(root)", None), node(2, "own", Some(1))],
            &[2],
            &[1.0],
        ),
    ]);
    feed(&events, &mut handler, &mut cx).unwrap();
    let profiles = profiles_from_trace_samples(
        r#"[{"pid":1,"tid":1,"ts":10,"sf":2},{"pid":1,"tid":2,"ts":10,"sf":2},{"pid":1,"tid":2,"ts":30,"sf":3}]"#,
        r#"{"1":{"name":"[root]","category":"root"},"2":{"name":"outer","parent":1},"3":{"name":"inner","parent":2}}"#,
        &mut cx.interner,
        &mut cx.diagnostics,
    )
    .unwrap();
    assert_eq!(profiles.len(), 2);
    for p in profiles {
        handler.add_trace_samples(p.pid.unwrap(), p.tid, p.raw);
    }
    let data = handler.finalize(&no_meta(), &mut cx);
    let own = data.profile(pid(1), pid(1)).unwrap();
    assert!(!own.from_trace_samples);
    assert_eq!(function_name(&own.model, 2, &cx.interner), "own");
    let from_samples = data.profile(pid(1), pid(2)).unwrap();
    assert!(from_samples.from_trace_samples);
    assert_eq!(from_samples.profile_id, Id::MISSING);
    let names: Vec<String> = sample_ids(&from_samples.model)
        .iter()
        .map(|&id| function_name(&from_samples.model, id, &cx.interner))
        .collect();
    assert_eq!(names, ["outer", "inner"]);
    assert_eq!(times_us(&from_samples.model), [10, 30, 50]);
    assert!(cx.diagnostics.divergences.contains_key(&Divergence::TraceEventSamples));
}

#[test]
fn no_divergence_without_top_level_samples() {
    let (_, cx) = run(&[
        head(1, 1, "0x1", 100.0, None),
        chunk(
            1,
            1,
            "0x1",
            &[node(1, "(root)", None), node(2, "a", Some(1))],
            &[2],
            &[1.0],
        ),
    ]);
    assert!(cx.diagnostics.divergences.is_empty());
}

/// The chunks read ahead by `prepare` (with rayon, on the cores that
/// scanned them; on one core nothing is prepared)
/// make the same profiles, names and skips as chunks read one by one in
/// `handle_event`, broken and uneven chunks included.
#[test]
fn prepared_chunks_make_what_unprepared_ones_make() {
    use tracekit_events::{AnalyzeOptions, EventSink, Tokenizer};

    let a = [node(1, "(root)", None), node(2, "a", Some(1)), node(3, "b", Some(2))];
    let events = [
        head(1, 1, "0x1", 100.0, Some("Internal")),
        head(1, 2, "0x2", 100.0, None),
        chunk(1, 1, "0x1", &a[..2], &[1, 2], &[10.0, 10.0]),
        chunk(1, 2, "0x2", &a, &[3, 3, 2], &[5.0, 5.0, 5.0]),
        r#"{"name":"ProfileChunk","ph":"P","pid":1,"tid":1,"ts":7,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":"x"}}}}"#
            .to_owned(),
        chunk(1, 1, "0x1", &a[2..], &[3, 2], &[10.0]),
        chunk(1, 1, "0x1", &[], &[3], &[10.0]),
        chunk(1, 2, "0x2", &[], &[1], &[0.5]),
    ];
    let text = trace(&events);

    /// Hands the events over without `prepare`.
    struct Unprepared(SamplesHandler, EventIndex);
    impl EventSink for Unprepared {
        type Prepared = ();

        fn prepare(_: &[Event<'_>], _: &AnalyzeOptions) {}

        fn take(&mut self, events: &[Event<'_>], _: Option<()>, cx: &mut Context) {
            for event in events {
                self.0.handle_event(self.1, event, cx);
                self.1 += 1;
            }
        }
    }
    /// The profiles (ids, names, samples, times), every interned string
    /// in order, and the skips.
    fn account(data: &SamplesData, cx: &Context) -> String {
        let mut out = String::new();
        for (pid, threads) in &data.profiles {
            for (tid, profile) in threads {
                let model = &profile.model;
                let names: Vec<_> = node_ids(model)
                    .into_iter()
                    .map(|id| function_name(model, id, &cx.interner))
                    .collect();
                out += &format!(
                    "{pid:?} {tid:?} {:?}: {names:?} {:?} {:?}\n",
                    profile.profile_id,
                    sample_ids(model),
                    times_us(model)
                );
            }
        }
        let strings: Vec<_> = cx.interner.iter().collect();
        format!("{out}{strings:?}\n{:?}", cx.diagnostics)
    }
    let unprepared = {
        let mut cx = Context::default();
        let mut sink = Unprepared(SamplesHandler::default(), 0);
        Tokenizer::run_whole(text.as_bytes(), &mut cx, &mut sink).unwrap();
        let data = sink.0.finalize(&no_meta(), &mut cx);
        account(&data, &cx)
    };
    assert!(unprepared.contains("SamplesUnreadableChunk") && unprepared.contains("SamplesUnevenChunks"));
    for parallelism in [Parallelism::Sequential, Parallelism::Rayon] {
        let mut cx = Context::new(AnalyzeOptions::default().with_parallelism(parallelism));
        let mut handler = SamplesHandler::default();
        feed(&text, &mut handler, &mut cx).unwrap();
        assert!(handler.prepared.is_empty(), "every prepared chunk is taken");
        let data = handler.finalize(&no_meta(), &mut cx);
        assert_eq!(account(&data, &cx), unprepared, "{parallelism:?}");
    }
}

/// The chunks' `trace_ids` are gathered in order: a key given again (in
/// the same chunk or a later one) takes the later node, as DevTools'
/// object spread does.
#[test]
fn trace_ids_of_later_chunks_win() {
    let a = [node(1, "(root)", None), node(2, "a", Some(1)), node(3, "b", Some(1))];
    let with_ids = |nodes: &[String], samples: &[i64], ids: &str| {
        format!(
            r#"{{"name":"ProfileChunk","cat":"c","ph":"P","pid":1,"tid":1,"ts":1,"id":"0x1","args":{{"data":{{"cpuProfile":{{"nodes":[{}],"samples":{samples:?},"trace_ids":{ids}}},"timeDeltas":{:?}}}}}}}"#,
            nodes.join(","),
            vec![1.0; samples.len()]
        )
    };
    let (data, _) = run(&[
        head(1, 1, "0x1", 100.0, None),
        with_ids(&a, &[2, 3], r#"{"10":2,"11":3,"10":3}"#),
        with_ids(&[], &[2], r#"{"11":2,"12":2}"#),
        // Keys with escapes (read by serde, and copied): "13" and "a\"b".
        with_ids(&[], &[2], r#"{"\u0031\u0033":3,"a\"b":2}"#),
    ]);
    let model = &data.profile(pid(1), Id::num(1.0)).unwrap().model;
    let ids = model.trace_ids.as_ref().unwrap();
    assert_eq!(ids.len(), 5);
    assert_eq!([ids.get_number(13.0), ids.get("a\"b")], [Some(3), Some(2)]);
    assert_eq!(
        [ids.get("10"), ids.get("11"), ids.get("12")],
        [Some(3), Some(2), Some(2)]
    );
}

/// A `CpuProfile` event replaces what its profile had so far (chunks
/// included), and chunks after it are added to its samples.
#[test]
fn a_whole_profile_replaces_earlier_chunks_and_takes_later_ones() {
    let whole = r#"{"name":"CpuProfile","ph":"X","pid":1,"tid":1,"ts":5,"dur":1,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[4]},{"id":4,"callFrame":{"functionName":"whole"}}],"startTime":2000,"endTime":2100,"samples":[4,4],"timeDeltas":[10,40],"trace_ids":{"7":4}}}}}"#;
    let root_and_a = [node(1, "(root)", None), node(2, "a", Some(1))];
    let (data, cx) = run(&[
        chunk(1, 1, "0x1", &root_and_a, &[2, 2, 2], &[1.0, 1.0, 1.0]),
        whole.to_owned(),
        chunk(1, 1, "0x1", &[node(5, "later", Some(1))], &[5, 4], &[5.0, 5.0]),
        chunk(1, 1, "0x1", &[], &[5], &[5.0]),
    ]);
    let model = &data.profile(pid(1), pid(1)).unwrap().model;
    // The whole profile lists its root's children: the later node hangs nowhere.
    assert_eq!(node_ids(model), [1, 4]);
    assert_eq!(sample_ids(model), [4, 4, -1, 4, -1]);
    assert_eq!(times_us(model), [2010, 2050, 2055, 2060, 2065, 2079]);
    assert_eq!(model.trace_ids.as_ref().map(|ids| ids.len()), Some(1));
    assert_eq!(skipped(&cx, Skip::ProfileUnreachableNodes), 1);
    assert_eq!(skipped(&cx, Skip::ProfileUnknownSampleNode), 2);
}

/// The Meta handler's data of a trace without metadata (the Samples
/// handler reads it only for top-level samples).
fn no_meta() -> tracekit_meta::MetaData {
    use tracekit_events::Handler;
    tracekit_meta::MetaHandler::default().finalize((), &mut Context::default())
}
