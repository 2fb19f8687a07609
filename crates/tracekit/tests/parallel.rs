//! Loading on several cores (blocks read ahead, chunks scanned ahead of the
//! handlers, profiles and threads built in parallel) gives what
//! loading on one core gives: the same tracks, the same diagnostics, the
//! same error.

use std::io::Write;
use std::path::{Path, PathBuf};

use tracekit::{AnalyzeOptions, Parallelism};

fn recorded_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// The dump and diagnostics of a load, or its error.
fn load(bytes: &[u8], parallelism: Parallelism) -> Result<(String, String), String> {
    let options = AnalyzeOptions::default().with_parallelism(parallelism);
    let analysis = tracekit::analyze_bytes(bytes, &options).map_err(|e| e.to_string())?;
    Ok((
        tracekit::output::conformance(&analysis),
        tracekit::output::diagnostics(&analysis),
    ))
}

/// The load on one core, and on a pool of three threads.
fn both(bytes: &[u8]) -> [Result<(String, String), String>; 2] {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    [
        load(bytes, Parallelism::Sequential),
        pool.install(|| load(bytes, Parallelism::Rayon)),
    ]
}

#[test]
fn recorded_traces_load_the_same_on_all_cores() {
    let files = recorded_fixtures();
    assert!(files.len() >= 6);
    for file in files {
        let [sequential, parallel] = both(&std::fs::read(&file).unwrap());
        assert!(sequential.is_ok(), "{}", file.display());
        assert!(sequential == parallel, "{}", file.display());
    }
}

/// Every handler's data (its conformance dump, and the MainThreadEvents
/// handler's, which has none) and the diagnostics of a load with all
/// handlers.
fn load_all(bytes: &[u8], parallelism: Parallelism) -> [String; 3] {
    let options = AnalyzeOptions::default()
        .with_parallelism(parallelism)
        .with_all_handlers(true);
    let analysis = tracekit::analyze_bytes(bytes, &options).unwrap();
    [
        analysis.data_conformance(&[]).unwrap(),
        with_strings(
            &format!("{:?}", analysis.handlers().map(|data| data.main_thread_events())),
            analysis.strings(),
        ),
        tracekit::output::diagnostics(&analysis),
    ]
}

/// `debug` with each `Sym(N)` replaced by its string (the symbols' numbers
/// depend on the order strings were first met, which differs with the
/// chunks' sizes).
fn with_strings(debug: &str, strings: &tracekit::Strings) -> String {
    let mut out = String::new();
    let mut rest = debug;
    while let Some(at) = rest.find("Sym(") {
        out.push_str(&rest[..at]);
        let digits = &rest[at + 4..];
        let end = digits.find(')').unwrap();
        let sym = tracekit::Sym(digits[..end].parse().unwrap());
        out.push_str(&format!("{:?}", strings.resolve(sym)));
        rest = &digits[end + 1..];
    }
    out + rest
}

/// With all handlers, the args the handlers walk on the cores that scanned
/// them (the Renderer handler's URLs, the MainThreadEvents handler's
/// links, the Samples handler's chunks) give what the walks done as each
/// event is taken give.
#[test]
fn recorded_traces_give_every_handlers_data_the_same_on_all_cores() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    // The traces (a CPU profile has no handlers).
    let traces = recorded_fixtures()
        .into_iter()
        .filter(|f| f.to_string_lossy().contains(".json"));
    for file in traces {
        let bytes = std::fs::read(&file).unwrap();
        let sequential = load_all(&bytes, Parallelism::Sequential);
        // The Renderer handler's URLs make the 3rd parties' entities.
        assert!(sequential[0].contains("\"entityMappings\""), "{}", file.display());
        assert!(
            sequential == pool.install(|| load_all(&bytes, Parallelism::Rayon)),
            "{}",
            file.display()
        );
    }
}

/// The text of the recorded kitchen-sink fixture (12 MB of JSON).
fn kitchen_sink_text() -> Vec<u8> {
    let file = recorded_fixtures()
        .into_iter()
        .find(|f| f.ends_with("kitchen-sink.json.gz"))
        .unwrap();
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&std::fs::read(file).unwrap()[..]),
        &mut text,
    )
    .unwrap();
    text
}

fn gzip(text: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

/// Damaged gzip, pushed in pieces: the same warnings, or the same error,
/// on several cores as on one.
#[test]
fn damaged_gzip_fails_the_same_on_all_cores() {
    // Stored rather than compressed: 12 MB of gzip, pushed in several
    // pieces.
    let good = gzip(&kitchen_sink_text(), flate2::Compression::none());
    assert!(good.len() > 4 << 20, "several pieces of input");
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    // Cut anywhere: a truncated stream (and a truncated trace).
    for cut in [100, good.len() / 3, good.len() / 2, good.len() - 4] {
        cases.push((format!("cut at {cut}"), good[..cut].to_vec()));
    }
    // A corrupt deflate stream, early and late.
    for at in [good.len() / 4, good.len() * 3 / 4] {
        let mut bad = good.clone();
        for b in &mut bad[at..at + 64] {
            *b = !*b;
        }
        cases.push((format!("corrupt at {at}"), bad));
    }
    // Bytes after the stream.
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"not gzip");
    cases.push(("trailing bytes".into(), trailing));
    let mut errors = 0;
    for (name, bytes) in cases {
        let [sequential, parallel] = both(&bytes);
        assert!(sequential == parallel, "{name}: {sequential:?}\n{parallel:?}");
        errors += usize::from(sequential.is_err());
    }
    assert!(errors >= 3, "the corrupt cases fail");
}

/// A reader that hands the text out in uneven reads, as a pipe does, and
/// fails at `fail_at` if asked to.
struct Uneven<'a> {
    text: &'a [u8],
    at: usize,
    turn: usize,
    fail_at: Option<usize>,
}

impl std::io::Read for Uneven<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let end = match self.fail_at {
            Some(fail_at) if self.at >= fail_at => return Err(std::io::Error::other("the disk went away")),
            Some(fail_at) => fail_at,
            None => self.text.len(),
        };
        let sizes = [1, 4096, (64 << 10) + 7, 1 << 20];
        self.turn += 1;
        let n = sizes[self.turn % sizes.len()].min(buf.len()).min(end - self.at);
        buf[..n].copy_from_slice(&self.text[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The dump and diagnostics of a load read from `text` by
/// [`tracekit::Loader::read_from`] (on several cores, the next block is
/// read ahead while one is decoded), or its error.
fn read(text: &[u8], fail_at: Option<usize>, parallelism: Parallelism) -> Result<(String, String), String> {
    let options = AnalyzeOptions::default().with_parallelism(parallelism);
    let mut loader = tracekit::Loader::new(options);
    let mut reader = Uneven {
        text,
        at: 0,
        turn: 0,
        fail_at,
    };
    let mut progress = 0;
    loader
        .read_from(&mut reader, |n| progress += n)
        .map_err(|e| e.to_string())?;
    assert_eq!(progress, text.len(), "every byte read is reported");
    let analysis = loader.finish().map_err(|e| e.to_string())?;
    Ok((
        tracekit::output::conformance(&analysis),
        tracekit::output::diagnostics(&analysis),
    ))
}

/// Traces read from a reader load the same on one core and on several,
/// and as from memory: whole, truncated, damaged, with events larger than
/// the room kept for the text of a block still to be decoded, and when
/// the reader fails.
#[test]
fn traces_read_ahead_load_the_same_on_all_cores() {
    let text = kitchen_sink_text();
    assert!(text.len() > 8 << 20, "several blocks of input");
    let mut damaged = text.clone();
    damaged[5 << 20..(5 << 20) + 8].copy_from_slice(b"}]]}{x,,");
    // Events of 300 kB every 100 events, so that some are cut by the end
    // of a block; their names (which the dump shows) are the 300 kB.
    let mut big_events = String::from("{\"traceEvents\":[\n");
    big_events.push_str(r#"{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"CrRendererMain"}}"#);
    for i in 0..3000 {
        let name = if i % 100 == 0 {
            format!("Big{i}:{}", "0123456789".repeat(30_000))
        } else {
            "RunTask".to_owned()
        };
        big_events.push_str(&format!(
            ",\n{{\"name\":\"{name}\",\"cat\":\"toplevel\",\"ph\":\"X\",\"ts\":{},\"dur\":5,\"pid\":1,\"tid\":2,\"args\":{{}}}}",
            1000 + 10 * i
        ));
    }
    big_events.push_str("]}");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let cases: [(&str, &[u8], Option<usize>); 5] = [
        ("whole", &text, None),
        ("truncated", &text[..text.len() / 2], None),
        ("damaged", &damaged, None),
        ("big events", big_events.as_bytes(), None),
        ("failing reader", &text, Some(6 << 20)),
    ];
    for (name, text, fail_at) in cases {
        let sequential = read(text, fail_at, Parallelism::Sequential);
        let parallel = pool.install(|| read(text, fail_at, Parallelism::Rayon));
        assert!(sequential == parallel, "{name}: {sequential:?}\n{parallel:?}");
        match fail_at {
            None => assert!(
                sequential == load(text, Parallelism::Sequential),
                "{name}: read as from memory"
            ),
            Some(_) => assert_eq!(parallel.unwrap_err(), "reading the input: the disk went away", "{name}"),
        }
    }
}

/// A track longer than the window the text is formatted in at a time
/// (2^18 nodes) is written the same on several cores, where the pool
/// formats a window while the writer takes the one before, as on one.
#[test]
fn a_long_track_is_written_the_same_on_all_cores() {
    use std::fmt::Write as _;
    let mut text = String::from("[");
    text.push_str(r#"{"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"Renderer"}},"#);
    text.push_str(r#"{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}}"#);
    for i in 0..600_000u64 {
        // Pairs: a parent and its child.
        let (ts, dur) = if i % 2 == 0 { (i * 5, 4) } else { (i * 5 - 4, 2) };
        write!(
            text,
            r#",{{"name":"e{}","cat":"c","ph":"X","ts":{ts},"dur":{dur},"pid":1,"tid":1}}"#,
            i % 7
        )
        .unwrap();
    }
    text.push(']');
    let options = AnalyzeOptions::default().with_parallelism(Parallelism::Sequential);
    let analysis = tracekit::analyze_bytes(text.as_bytes(), &options).unwrap();
    let nodes: usize = analysis.threads().map(|t| t.track().nodes.len()).sum();
    assert!(nodes > 2 << 18, "several windows: {nodes} nodes");
    let write = |parallelism: Parallelism| {
        let filter = tracekit::query::Query::new();
        let mut out = Vec::new();
        tracekit::output::write_conformance(&analysis, &filter, parallelism, &mut out).unwrap();
        out
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let sequential = write(Parallelism::Sequential);
    let parallel = pool.install(|| write(Parallelism::Rayon));
    assert!(sequential == parallel);
}

/// Tracks of many sizes in several processes (a node, exactly a piece of
/// text formatted at once, a node more, several windows' worth), and the
/// recorded fixtures: both JSON formats are written the same on all cores
/// (pieces of every thread formatted on the pool, the headers between
/// them in place) as on one.
#[test]
fn threads_of_every_size_are_written_the_same_on_all_cores() {
    use std::fmt::Write as _;
    let mut text = String::from("[");
    let sizes = [1u64, 1 << 14, (1 << 14) + 1, 3, 70_000, 5];
    for (k, &size) in sizes.iter().enumerate() {
        let (pid, tid) = (k / 2 + 1, k + 10);
        write!(
            text,
            r#"{{"name":"thread_name","ph":"M","pid":{pid},"tid":{tid},"args":{{"name":"T{k}"}}}},"#
        )
        .unwrap();
        for i in 0..size {
            write!(
                text,
                r#"{{"name":"e{}","cat":"c","ph":"X","ts":{},"dur":2,"pid":{pid},"tid":{tid}}},"#,
                i % 5,
                i * 3
            )
            .unwrap();
        }
    }
    text.push_str(r#"{"name":"End","ph":"I","ts":1,"pid":1,"tid":10}]"#);
    let mut inputs = vec![text.into_bytes()];
    inputs.extend(recorded_fixtures().iter().map(|path| std::fs::read(path).unwrap()));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    for input in inputs {
        let analysis = tracekit::analyze_bytes(&input, &AnalyzeOptions::default()).unwrap();
        let write = |parallelism: Parallelism| {
            let filter = tracekit::query::Query::new();
            let (mut conformance, mut json) = (Vec::new(), Vec::new());
            tracekit::output::write_conformance(&analysis, &filter, parallelism, &mut conformance).unwrap();
            tracekit::output::write_json(&analysis, &filter, parallelism, &mut json).unwrap();
            (conformance, json)
        };
        let sequential = write(Parallelism::Sequential);
        assert!(sequential.0.len() > 100, "something is written");
        assert!(sequential == pool.install(|| write(Parallelism::Rayon)));
    }
}
