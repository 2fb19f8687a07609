//! The tokenizer on whole texts and on texts in pieces of every size, in
//! sequence and in parallel: the events, the top-level keys, the damage
//! it reads over and what it refuses.

use super::*;
use crate::{names, Id, Skip};

/// What a test keeps of an event.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    name: String,
    ts: f64,
    pid: String,
    args_len: Option<usize>,
}

#[derive(Default)]
struct Collect(Vec<Seen>);

impl EventSink for Collect {
    /// The timestamps of the chunk's events, which must be those taken with
    /// it (a chunk scanned again from elsewhere is prepared again).
    type Prepared = Vec<f64>;

    fn prepare(events: &[Event<'_>], _: &AnalyzeOptions) -> Vec<f64> {
        events.iter().map(|e| e.ts.0).collect()
    }

    fn take(&mut self, events: &[Event<'_>], prepared: Option<Vec<f64>>, cx: &mut Context) {
        if let Some(prepared) = prepared {
            assert_eq!(prepared, events.iter().map(|e| e.ts.0).collect::<Vec<_>>());
        }
        self.0.extend(events.iter().map(|e| Seen {
            name: cx.interner.resolve(e.name).to_owned(),
            ts: e.ts.0,
            pid: e.pid.to_js_string(&cx.interner),
            args_len: e.args.map(str::len),
        }));
    }
}

/// Loads `text` whole, in place.
fn load(text: &str) -> (Result<Tokenized<'_>, LoadError>, Vec<Seen>, Context) {
    let mut cx = Context::default();
    let mut sink = Collect::default();
    let result = Tokenizer::run_whole(text.as_bytes(), &mut cx, &mut sink);
    (result, sink.0, cx)
}

/// Loads `text` pushed in pieces of `piece` bytes.
fn load_in_pieces(text: &str, piece: usize, parallelism: Parallelism) -> (Vec<Seen>, Context, TopLevel) {
    let mut cx = Context::new(AnalyzeOptionsForTest::with(parallelism));
    let mut sink = Collect::default();
    let mut tokenizer = Tokenizer::new();
    for p in text.as_bytes().chunks(piece) {
        tokenizer.push(p, &mut cx, &mut sink).unwrap();
    }
    let Tokenized::Trace { top_level, .. } = tokenizer.finish(&mut cx, &mut sink).unwrap() else {
        panic!("not a trace")
    };
    (sink.0, cx, top_level)
}

struct AnalyzeOptionsForTest;
impl AnalyzeOptionsForTest {
    fn with(parallelism: Parallelism) -> crate::AnalyzeOptions {
        crate::AnalyzeOptions::default().with_parallelism(parallelism)
    }
}

#[test]
fn reads_both_trace_forms_and_the_keys_around_the_events() {
    let (result, events, cx) = load(r#"[{"name":"RunTask","cat":"c","ph":"X","ts":1,"dur":2,"pid":1,"tid":"a"}]"#);
    assert!(matches!(result, Ok(Tokenized::Trace { events: 1, .. })));
    assert_eq!(events[0].name, "RunTask");
    assert!(cx.diagnostics.is_empty());
    for text in [
        r#"{"metadata":{"a":1},"traceEvents":[{"name":"x","ph":"I","ts":5}],"samples":[1]}"#,
        r#"{"traceEvents":[{"name":"x","ph":"I","ts":5}],"other":[1,2],"metadata":{"a":1},"samples":[1]}"#,
        r#"{"samples":[1],"other":{"b":[]},"traceEvents":[{"name":"x","ph":"I","ts":5}],"metadata":{"a":1}}"#,
    ] {
        for piece in [1, 3, text.len()] {
            let (events, _, top_level) = load_in_pieces(text, piece, Parallelism::Sequential);
            assert_eq!(events.len(), 1, "{text}");
            assert_eq!(top_level.metadata.as_deref(), Some(r#"{"a":1}"#), "{text}");
            assert_eq!(top_level.samples.as_deref(), Some("[1]"), "{text}");
        }
    }
}

#[test]
fn hands_back_a_document_that_is_not_a_trace() {
    let (result, events, _) = load(r#" {"nodes":[],"samples":[]}"#);
    let Ok(Tokenized::Document { text, .. }) = result else {
        panic!("{result:?}")
    };
    assert!(events.is_empty());
    assert!(text.trim_start().starts_with("{\"nodes\""));
}

#[test]
fn skips_and_counts_bad_events() {
    let (_, events, cx) =
        load(r#"[{"ph":"X","ts":1},{"name":"a","ts":"x"},{"name":"b","ph":"X"},5,{"name":"ok","ph":"M"}]"#);
    assert_eq!(events.len(), 1);
    let skipped = &cx.diagnostics.skipped;
    assert_eq!(skipped[&Skip::EventMissingName].count, 1);
    assert_eq!(skipped[&Skip::EventNotAnObject].count, 2);
    assert_eq!(skipped[&Skip::EventMissingTs].count, 1);
}

#[test]
fn warns_about_truncation() {
    let (_, events, cx) = load(r#"[{"name":"a","ph":"I","ts":1},{"name":"b","ph":"I","#);
    assert_eq!(events.len(), 1);
    assert_eq!(cx.diagnostics.warnings.len(), 1);
    assert!(
        cx.diagnostics.warnings[0].contains("byte 30"),
        "{:?}",
        cx.diagnostics.warnings
    );
}

#[test]
fn refuses_a_trace_without_events() {
    for (text, message) in [
        ("[]", "the trace holds no events"),
        (r#"{"traceEvents":[]}"#, "the trace holds no events"),
        ("[1,2]", "no event could be read: 2 skipped (first: event: not a valid event object: event at byte 1: not an object)"),
        ("[{\"name\":", "byte 1: the trace is truncated before its first event"),
    ] {
        let (result, _, _) = load(text);
        let error = result.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Unreadable, "{text}");
        assert_eq!(error.to_string(), message, "{text}");
    }
    // Samples without events are a trace.
    let (result, _, _) = load(r#"{"traceEvents":[],"samples":[],"stackFrames":{}}"#);
    assert!(matches!(result, Ok(Tokenized::Trace { events: 0, .. })), "{result:?}");
}

/// More distinct strings than the table holds fail the load, at the
/// end of the block where they came: the input is not read further.
#[test]
fn too_many_strings_fail_the_load() {
    use crate::Interner;
    let last = u32::try_from(crate::names::ALL.len() + 100).unwrap();
    let events: Vec<String> = (0..40_000)
        .map(|i| format!(r#"{{"name":"event {i}","ph":"X","ts":{i},"dur":1,"pid":1,"tid":1}}"#))
        .collect();
    let text = format!("[{}]", events.join(",\n"));
    assert!(text.len() > 2 * FIRST_BLOCK);
    let cx = || Context {
        interner: Interner::with_last_sym(last),
        ..Context::default()
    };
    let expected = format!(
        "the trace has more than {} distinct strings (names, categories, ids, URLs...)",
        last + 1
    );

    let mut whole = cx();
    let error = Tokenizer::run_whole(text.as_bytes(), &mut whole, &mut Collect::default()).unwrap_err();
    assert_eq!(
        (error.kind(), error.to_string()),
        (ErrorKind::TooManyStrings, expected.clone())
    );

    let (mut streamed, mut tokenizer) = (cx(), Tokenizer::new());
    let mut pieces = text.as_bytes().chunks(64 << 10);
    let error = pieces
        .by_ref()
        .find_map(|p| tokenizer.push(p, &mut streamed, &mut Collect::default()).err())
        .unwrap();
    assert_eq!((error.kind(), error.to_string()), (ErrorKind::TooManyStrings, expected));
    assert!(pieces.len() > 0, "read to the end");

    // Within the limit, the same load succeeds.
    let few = format!("[{}]", events[..50].join(","));
    assert!(Tokenizer::run_whole(few.as_bytes(), &mut cx(), &mut Collect::default()).is_ok());
}

/// Loads `text` on one core and on a pool of four threads, where it
/// must be cut into more than one chunk, and checks that both give the
/// same events and diagnostics; the load on one core.
fn same_on_all_cores(text: &str) -> (Vec<Seen>, Context, TopLevel) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let mut chunks = 0;
    pool.install(|| scan_and_take(text, 1, false, true, 0, Parallelism::Rayon, |_| (), |_, ()| chunks += 1));
    assert!(chunks > 1, "the parallel path was not taken");
    let sequential = load_in_pieces(text, text.len(), Parallelism::Sequential);
    let parallel = pool.install(|| load_in_pieces(text, text.len(), Parallelism::Rayon));
    assert_eq!(sequential.0, parallel.0);
    assert_eq!(sequential.1.diagnostics, parallel.1.diagnostics);
    sequential
}

/// Text is cut into chunks scanned on several threads; lines that look
/// like event boundaries but are not (objects in a list inside an
/// event) must not fool the chunking.
#[test]
fn parallel_parsing_gives_the_sequential_result() {
    let mut text = String::from("[\n");
    let mut i = 0;
    while text.len() < 3 << 20 {
        if i % 7 == 0 {
            text.push_str(&format!("{{\"name\":\"n{}\",\"ph\":\"X\",\"ts\":{i},\"pid\":\"p{}\",\"args\":{{\"l\":[\n{{\"a\":1}},\n{{\"b\":2}}]}}}},\n", i % 13, i % 3));
        } else {
            text.push_str(&format!(
                "{{\"name\":\"n{}\",\"ph\":\"X\",\"ts\":{i},\"tid\":{}}},\n",
                i % 11,
                i % 5
            ));
        }
        i += 1;
    }
    text.push_str("{\"name\":\"last\",\"ts\":1}]");
    let sequential = same_on_all_cores(&text);
    assert_eq!(sequential.0.len(), i + 1);
    // And in pieces that cut events and separators anywhere.
    let pieces = load_in_pieces(&text, 1_000_003, Parallelism::Sequential);
    assert_eq!(sequential.0, pieces.0);
}

/// An event longer than a chunk, whose args hold lines that look like
/// event boundaries: the chunks guessed to start inside it are scanned
/// again from where it ends, or dropped when it runs past them.
#[test]
fn an_event_longer_than_chunks_is_read_once() {
    let mut text = String::from("[\n");
    let mut i = 0;
    let mut event = |text: &mut String| {
        text.push_str(&format!(
            "{{\"name\":\"n{}\",\"ph\":\"X\",\"ts\":{i},\"tid\":1}},\n",
            i % 11
        ));
        i += 1;
    };
    while text.len() < 600 << 10 {
        event(&mut text);
    }
    text.push_str("{\"name\":\"long\",\"ph\":\"X\",\"ts\":0,\"args\":{\"l\":[\n{\"x\":0}");
    let mut k = 1;
    while text.len() < 2 << 20 {
        text.push_str(&format!(",\n{{\"x\":{k}}}"));
        k += 1;
    }
    text.push_str("]}},\n");
    while text.len() < 3 << 20 {
        event(&mut text);
    }
    text.push_str("{\"name\":\"last\",\"ts\":1}]");
    assert_eq!(same_on_all_cores(&text).0.len(), i + 2);
}

#[test]
fn accepts_a_trailing_comma_and_a_missing_bracket() {
    let (_, events, cx) = load("[{\"name\":\"a\",\"ts\":1},\n{\"name\":\"b\",\"ts\":2},\n");
    assert_eq!(events.len(), 2);
    assert_eq!(cx.diagnostics.warnings.len(), 1);
    let (_, events, cx) = load("[{\"name\":\"a\",\"ts\":1},]");
    assert_eq!(events.len(), 1);
    assert!(cx.diagnostics.warnings.is_empty());
}

#[test]
fn stops_at_damage_and_says_where() {
    let (_, events, cx) = load(r#"[{"name":"a","ts":1}}"#);
    assert_eq!(events.len(), 1);
    assert_eq!(
        cx.diagnostics.warnings,
        vec!["the trace is damaged: loading stopped at byte 20 (expected ',' or ']' after an event, found character '}'), after 1 events"]
    );
}

/// Whitespace between events is dropped as it comes: the buffer never
/// holds more than a block and an event.
#[test]
fn whitespace_between_events_is_not_kept() {
    let mut cx = Context::default();
    let mut sink = Collect::default();
    let mut tokenizer = Tokenizer::new();
    tokenizer
        .push(
            br#"[{"name":"a","cat":"c","ph":"I","ts":1,"pid":1}"#,
            &mut cx,
            &mut sink,
        )
        .unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..((4 * BLOCK) >> 20) {
        tokenizer.push(&spaces, &mut cx, &mut sink).unwrap();
        assert!(tokenizer.pending() <= BLOCK + (1 << 20), "{}", tokenizer.pending());
    }
    tokenizer
        .push(
            br#",{"name":"b","cat":"c","ph":"I","ts":2,"pid":1}]"#,
            &mut cx,
            &mut sink,
        )
        .unwrap();
    tokenizer.finish(&mut cx, &mut sink).unwrap();
    let names: Vec<&str> = sink.0.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    assert!(cx.diagnostics.is_empty(), "{:?}", cx.diagnostics);
}

#[test]
fn deeply_nested_values_load_without_recursion() {
    let depth = 200_000;
    let nested = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let text = format!("[{{\"name\":\"a\",\"ts\":1,\"x\":{nested},\"args\":{nested}}}]");
    let (_, events, cx) = load(&text);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].args_len, Some(2 * depth));
    assert!(cx.diagnostics.skipped.is_empty());
}

#[test]
fn rejects_what_is_not_a_trace() {
    let error = |text: &str| load(text).0.unwrap_err();
    assert_eq!(error("").to_string(), "empty file");
    assert_eq!(error("  \n").to_string(), "file holds only whitespace");
    assert_eq!(error("").kind(), ErrorKind::Empty);
    let e = error("hello");
    assert_eq!(
        e.to_string(),
        "byte 0: not a trace or profile: expected '[' or '{', found character 'h'"
    );
    assert_eq!(e.kind(), ErrorKind::NotATrace);
    assert_eq!(error("[\u{0}\u{ff}").kind(), ErrorKind::Unreadable);
    assert_eq!(load("\"a\u{ff}\"").0.unwrap_err().kind(), ErrorKind::NotATrace);
    let invalid = Tokenizer::run_whole(b"[\xff]", &mut Context::default(), &mut Collect::default()).unwrap_err();
    assert_eq!(invalid.kind(), ErrorKind::Encoding);
    assert_eq!(invalid.offset(), Some(1));
}

#[test]
fn ids_keep_their_type() {
    let (_, events, _) = load(r#"[{"name":"a","ts":1,"pid":1},{"name":"a","ts":1,"pid":"1"},{"name":"a","ts":1}]"#);
    let pids: Vec<&str> = events.iter().map(|e| e.pid.as_str()).collect();
    assert_eq!(pids, ["1", "1", "undefined"]);
    assert_eq!(Id::num(1.0), Id::num(1.0));
    assert_ne!(names::RUN_TASK, names::EMPTY);
}
