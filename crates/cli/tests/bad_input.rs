//! The `tracekit` command on input it cannot use or should not trust: every
//! file that is not a trace gets one line on stderr (`tracekit: FILE:
//! WHAT`) and exit code 1, never a panic, a stack overflow or a hang; every
//! odd file that is still a trace loads, and `--stats` names what was
//! skipped, by reason.
//!
//! The inputs are made by the tests themselves, in a scratch directory
//! (some are tens of MB). A bug found here or by the fuzzers (`fuzz/`) gets
//! its test first, marked `#[ignore = "BUG: ..."]` until it is fixed
//! (`cargo test -p tracekit-cli --test bad_input -- --ignored` runs those).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Harness

/// A scratch directory, removed when dropped. The command runs in it, so
/// that messages name files by their bare name.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tracekit-bad-input-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> &'static str {
        std::fs::write(self.dir.join(name), bytes).unwrap();
        Box::leak(name.to_owned().into_boxed_str())
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Outcome {
    status: ExitStatus,
    stdout: Vec<u8>,
    stdout_len: usize,
    stderr: String,
    elapsed: Duration,
}

impl Outcome {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The process ended by itself, without panicking or overflowing its
    /// stack (a Rust stack overflow aborts: no exit code).
    fn assert_no_crash(&self, what: &str) {
        assert!(
            self.status.code().is_some(),
            "{what}: killed by a signal ({:?}); stderr:\n{}",
            self.status,
            tail(&self.stderr)
        );
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("overflowed its stack"),
            "{what}: crashed; stderr:\n{}",
            tail(&self.stderr)
        );
    }
}

fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(2000);
    let start = (start..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
    &s[start..]
}

/// How long one run may take (debug build, the machine busy with other
/// tests) before it counts as a hang.
const TIME_LIMIT: Duration = Duration::from_secs(120);

/// Runs `tracekit ARGS` in `dir`. Stdout beyond `keep` bytes is counted but
/// not kept; a run past `TIME_LIMIT`, or writing more than `max_out` bytes,
/// is killed and fails the test.
fn run_limited(dir: &Path, args: &[&str], keep: usize, max_out: usize) -> Outcome {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tracekit starts");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let over_flag = over.clone();
    let out_thread = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut total = 0usize;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if kept.len() < keep {
                        kept.extend_from_slice(&buf[..n.min(keep - kept.len())]);
                    }
                    total += n;
                    if total > max_out {
                        over_flag.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
        }
        (kept, total)
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if over.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tracekit {args:?} wrote more than {max_out} bytes on stdout: killed");
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("tracekit {args:?} still running after {TIME_LIMIT:?}: killed (a hang?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let (stdout, stdout_len) = out_thread.join().unwrap();
    // The reader gives up past `max_out`; the command may then end at once,
    // on the closed pipe.
    assert!(
        stdout_len <= max_out,
        "tracekit {args:?} wrote more than {max_out} bytes on stdout"
    );
    let stderr = err_thread.join().unwrap();
    Outcome {
        status,
        stdout,
        stdout_len,
        stderr,
        elapsed,
    }
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    run_limited(dir, args, usize::MAX, 1 << 30)
}

/// `tracks` and `info` both refuse `file` with exactly `tracekit: FILE:
/// WHAT`, exit code 1, and nothing on stdout.
fn assert_refused(scratch: &Scratch, file: &str, what: &str) {
    for command in ["tracks", "info"] {
        let outcome = run(&scratch.dir, &[command, file]);
        outcome.assert_no_crash(&format!("{command} {file}"));
        assert_eq!(
            outcome.stderr,
            format!("tracekit: {file}: {what}\n"),
            "{command} {file}: stderr"
        );
        assert_eq!(outcome.status.code(), Some(1), "{command} {file}: exit code");
        assert_eq!(outcome.stdout_len, 0, "{command} {file}: stdout:\n{}", outcome.stdout());
    }
}

/// What `tracks --stats` said about a file that loaded.
#[derive(Debug)]
struct Stats {
    /// `tracekit: warning: FILE: ...` lines, without their prefix.
    warnings: Vec<String>,
    /// `skipped N x REASON (first: ...)`: reason to count.
    skipped: BTreeMap<String, u64>,
    /// `diverges from DevTools: NAME (...)`: the names.
    divergences: Vec<String>,
    /// From `input: KIND, N events`.
    kind: String,
    events: usize,
    /// The conformance dump.
    output: String,
    elapsed: Duration,
}

/// Runs `tracks --stats --format conformance FILE`: it must succeed.
fn load(scratch: &Scratch, file: &str) -> Stats {
    load_with(scratch, file, &[])
}

fn load_with(scratch: &Scratch, file: &str, extra: &[&str]) -> Stats {
    let mut args = vec!["tracks", "--stats", "--format", "conformance", file];
    args.extend_from_slice(extra);
    let outcome = run(&scratch.dir, &args);
    outcome.assert_no_crash(file);
    assert_eq!(
        outcome.status.code(),
        Some(0),
        "{file} should load; stderr:\n{}",
        tail(&outcome.stderr)
    );
    let mut stats = Stats {
        warnings: Vec::new(),
        skipped: BTreeMap::new(),
        divergences: Vec::new(),
        kind: String::new(),
        events: 0,
        output: outcome.stdout(),
        elapsed: outcome.elapsed,
    };
    let warning_prefix = format!("tracekit: warning: {file}: ");
    for line in outcome.stderr.lines() {
        if let Some(w) = line.strip_prefix(&warning_prefix) {
            stats.warnings.push(w.to_owned());
        } else if let Some(rest) = line.strip_prefix("skipped ") {
            if rest == "nothing" {
                continue;
            }
            let (count, rest) = rest.split_once(" x ").expect("skipped N x REASON");
            let reason = rest.split(" (first: ").next().unwrap();
            stats.skipped.insert(reason.to_owned(), count.parse().unwrap());
        } else if let Some(rest) = line.strip_prefix("diverges from DevTools: ") {
            stats.divergences.push(rest.split(' ').next().unwrap().to_owned());
        } else if let Some(rest) = line.strip_prefix("input: ") {
            let (kind, events) = rest.split_once(", ").unwrap();
            stats.kind = kind.to_owned();
            stats.events = events.trim_end_matches(" events").parse().unwrap();
        }
    }
    assert!(
        !stats.kind.is_empty(),
        "{file}: no stats on stderr:\n{}",
        outcome.stderr
    );
    stats
}

fn skips(list: &[(&str, u64)]) -> BTreeMap<String, u64> {
    list.iter().map(|(r, n)| (r.to_string(), *n)).collect()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Deterministic noise (xorshift).
fn noise(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[3]
        })
        .collect()
}

const DEPTH: usize = 200_000;

/// A small valid trace: one thread, a task with a nested call.
const SMALL_TRACE: &str = r#"[
{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{"name":"CrRendererMain"}},
{"name":"RunTask","cat":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":100,"args":{}},
{"name":"Layout","cat":"c","ph":"X","pid":1,"tid":1,"ts":20,"dur":30,"args":{}},
{"name":"Paint","cat":"c","ph":"X","pid":1,"tid":1,"ts":60,"dur":10,"args":{}}
]
"#;

// ---------------------------------------------------------------------------
// Files that are not traces: one line, exit code 1

#[test]
fn empty_file() {
    let s = Scratch::new();
    let f = s.write("empty.json", "");
    assert_refused(&s, f, "empty file");
}

#[test]
fn whitespace_only() {
    let s = Scratch::new();
    let f = s.write("blank.json", " \n\t\r\n  ");
    assert_refused(&s, f, "file holds only whitespace");
}

#[test]
fn not_json() {
    let s = Scratch::new();
    let f = s.write("hello.json", "hello");
    assert_refused(
        &s,
        f,
        "byte 0: not a trace or profile: expected '[' or '{', found character 'h'",
    );
    let f = s.write("indented.txt", "\n\n   Hello, world\n");
    assert_refused(
        &s,
        f,
        "byte 5: not a trace or profile: expected '[' or '{', found character 'H'",
    );
}

#[test]
fn json_scalars() {
    let s = Scratch::new();
    for (name, text, found) in [
        ("number.json", "42", "character '4'"),
        ("negative.json", "-1.5e3", "character '-'"),
        ("string.json", r#""a string""#, "character '\"'"),
        ("true.json", "true", "character 't'"),
        ("null.json", "null\n", "character 'n'"),
    ] {
        let f = s.write(name, text);
        assert_refused(
            &s,
            f,
            &format!("byte 0: not a trace or profile: expected '[' or '{{', found {found}"),
        );
    }
}

#[test]
fn json_object_of_another_shape() {
    let s = Scratch::new();
    let f = s.write("other.json", r#"{"foo": 1, "bar": [2, 3], "baz": {"traceEvents": []}}"#);
    assert_refused(
        &s,
        f,
        "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: foo, bar, baz)",
    );
    let f = s.write(
        "package.json",
        r#"{"name":"x","version":"1.0.0","a":1,"b":2,"c":3,"d":4}"#,
    );
    assert_refused(
        &s,
        f,
        "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: name, version, a, b, c)",
    );
    let f = s.write("empty-object.json", "{}");
    assert_refused(
        &s,
        f,
        "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: none)",
    );
    // Only two of the three keys of a Self-Profiling trace.
    let f = s.write("frames-stacks.json", r#"{"frames":[],"stacks":[]}"#);
    assert_refused(
        &s,
        f,
        "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: frames, stacks)",
    );
}

#[test]
fn unclosed_object() {
    let s = Scratch::new();
    let f = s.write("unclosed.json", r#"{"foo": 1, "bar": 2"#);
    assert_refused(&s, f, "byte 19: unexpected end of input inside the top-level object");
}

/// `traceEvents` of the wrong type: refused, in one line.
#[test]
fn trace_events_of_the_wrong_type_is_refused() {
    let s = Scratch::new();
    for (name, text) in [
        ("te-number.json", r#"{"traceEvents": 5}"#),
        ("te-string.json", r#"{"traceEvents": "[]"}"#),
        ("te-null.json", r#"{"traceEvents": null}"#),
        ("te-object.json", r#"{"traceEvents": {"0": {"name": "a"}}}"#),
    ] {
        let f = s.write(name, text);
        for command in ["tracks", "info"] {
            let outcome = run(&s.dir, &[command, f]);
            outcome.assert_no_crash(f);
            assert_eq!(outcome.status.code(), Some(1), "{f}");
            assert_eq!(outcome.stderr.lines().count(), 1, "{f}: {}", outcome.stderr);
            assert!(
                outcome.stderr.starts_with(&format!("tracekit: {f}: ")),
                "{}",
                outcome.stderr
            );
        }
    }
}

/// The message says that `traceEvents` is there but is not an array of
/// events, not that the file has no `traceEvents`.
#[test]
fn trace_events_of_the_wrong_type_is_named() {
    let s = Scratch::new();
    for (name, text) in [
        ("te-number.json", r#"{"traceEvents": 5}"#),
        ("te-string.json", r#"{"traceEvents": "[]"}"#),
        ("te-null.json", r#"{"traceEvents": null}"#),
        ("te-object.json", r#"{"traceEvents": {"0": {"name": "a"}}}"#),
    ] {
        let f = s.write(name, text);
        let outcome = run(&s.dir, &["tracks", f]);
        assert_eq!(outcome.status.code(), Some(1));
        assert!(
            !outcome.stderr.contains("without traceEvents") && outcome.stderr.contains("traceEvents"),
            "{f}: the message should say that traceEvents is not an array: {}",
            outcome.stderr
        );
    }
}

#[test]
fn profile_fields_of_the_wrong_type() {
    let s = Scratch::new();
    let f = s.write("nodes-number.cpuprofile", r#"{"nodes": 5}"#);
    assert_refused(
        &s,
        f,
        "byte 10: invalid CPU profile: invalid type: integer `5`, expected a sequence",
    );
    let f = s.write("samples-string.cpuprofile", r#"{"nodes":[],"samples":"x"}"#);
    assert_refused(
        &s,
        f,
        "byte 24: invalid CPU profile: invalid type: string \"x\", expected a sequence",
    );
    let f = s.write(
        "node-id-string.cpuprofile",
        r#"{"nodes":[{"id":"one","callFrame":{"functionName":"(root)"}}],"samples":[]}"#,
    );
    assert_refused(
        &s,
        f,
        "byte 20: invalid CPU profile: invalid type: string \"one\", expected an integer",
    );
    let f = s.write("frames-number.json", r#"{"frames":1,"stacks":[],"samples":[]}"#);
    assert_refused(
        &s,
        f,
        "byte 10: invalid JS Self-Profiling trace: invalid type: integer `1`, expected a sequence",
    );
    let f = s.write(
        "stack-frame-string.json",
        r#"{"frames":[],"stacks":[{"frameId":"0"}],"samples":[]}"#,
    );
    assert_refused(
        &s,
        f,
        "byte 36: invalid JS Self-Profiling trace: invalid type: string \"0\", expected usize",
    );
}

#[test]
fn binary_garbage() {
    let s = Scratch::new();
    // Valid UTF-8 up to byte 4, NULs included.
    let f = s.write("nul-then-ff.bin", b"\x00\x01\x02\x03\xff\xfe\x00\x00");
    assert_refused(&s, f, "byte 4: invalid UTF-8: not a JSON trace or profile");
    // Valid UTF-8 throughout, but not JSON.
    let f = s.write("nuls.bin", b"\x00\x00\x00\x00");
    assert_refused(
        &s,
        f,
        "byte 0: not a trace or profile: expected '[' or '{', found byte 0x00",
    );
    // 64 KiB of noise.
    let mut bytes = noise(64 << 10, 0x5eed);
    bytes[0] = 0xfe;
    bytes[100] = 0;
    let f = s.write("noise.bin", &bytes);
    assert_refused(&s, f, "byte 0: invalid UTF-8: not a JSON trace or profile");
    // Noise after a good start: the error is where the text goes bad.
    let mut bytes = b"[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},".to_vec();
    let at = bytes.len();
    bytes.extend_from_slice(b"\xc0\xaf");
    bytes.extend(noise(4096, 7));
    let f = s.write("noise-after-events.json", &bytes);
    assert_refused(&s, f, &format!("byte {at}: invalid UTF-8: not a JSON trace or profile"));
    // An image.
    let f = s.write("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    assert_refused(&s, f, "byte 0: invalid UTF-8: not a JSON trace or profile");
}

#[test]
fn corrupt_gzip() {
    let s = Scratch::new();
    // Valid magic, garbage after.
    let f = s.write("garbage.json.gz", b"\x1f\x8b\x08\x00garbagegarbagegarbage");
    assert_refused(
        &s,
        f,
        "corrupt gzip stream (after 0 decompressed bytes): corrupt deflate stream",
    );
    // A good header, then noise for the deflate data.
    let mut bytes = gzip(SMALL_TRACE.as_bytes())[..10].to_vec();
    bytes.extend(noise(2000, 99));
    let f = s.write("noise.json.gz", &bytes);
    let outcome = run(&s.dir, &["tracks", f]);
    outcome.assert_no_crash(f);
    assert_eq!(outcome.status.code(), Some(1), "{}", outcome.stderr);
    assert!(
        outcome
            .stderr
            .starts_with(&format!("tracekit: {f}: corrupt gzip stream (after ")),
        "{}",
        outcome.stderr
    );
    assert_eq!(outcome.stderr.lines().count(), 1);
    // A gzipped file that is not a trace: the inner error, as for plain text.
    let f = s.write("hello.gz", gzip(b"hello"));
    assert_refused(
        &s,
        f,
        "byte 0: not a trace or profile: expected '[' or '{', found character 'h'",
    );
    let f = s.write("empty.gz", gzip(b""));
    assert_refused(&s, f, "empty file");
}

/// A gzip stream cut before any text came out of it: refused, and the
/// message says it is cut short, not that a checksum failed (nothing was
/// checked).
#[test]
fn gzip_cut_before_any_text_says_so() {
    let s = Scratch::new();
    let whole = gzip(SMALL_TRACE.as_bytes());
    for (name, bytes) in [
        ("magic-only.json.gz", &whole[..2]),
        ("header-cut.json.gz", &whole[..6]),
        ("first-block-cut.json.gz", &whole[..15]),
    ] {
        let f = s.write(name, bytes);
        let outcome = run(&s.dir, &["tracks", f]);
        outcome.assert_no_crash(f);
        assert_eq!(outcome.status.code(), Some(1));
        assert!(
            !outcome.stderr.contains("checksum") && outcome.stderr.contains("cut short before any text"),
            "{f}: nothing was checked, the stream is cut: {}",
            outcome.stderr
        );
    }
}

#[test]
fn gzip_cut_before_any_text_is_refused() {
    let s = Scratch::new();
    let whole = gzip(SMALL_TRACE.as_bytes());
    for (name, bytes) in [
        ("magic-only.json.gz", &whole[..2]),
        ("header-cut.json.gz", &whole[..6]),
        ("first-block-cut.json.gz", &whole[..15]),
    ] {
        let f = s.write(name, bytes);
        for command in ["tracks", "info"] {
            let outcome = run(&s.dir, &[command, f]);
            outcome.assert_no_crash(f);
            assert_eq!(outcome.status.code(), Some(1), "{f}: {}", outcome.stderr);
            assert_eq!(outcome.stderr.lines().count(), 1, "{f}: {}", outcome.stderr);
            assert!(
                outcome.stderr.starts_with(&format!(
                    "tracekit: {f}: corrupt gzip stream (after 0 decompressed bytes): "
                )),
                "{}",
                outcome.stderr
            );
        }
    }
}

/// A gzip stream cut short keeps the events it held, with two warnings:
/// the stream is cut short, and so the trace is truncated. Cut in its
/// trailer only, it keeps every event, with the first warning alone.
#[test]
fn truncated_gzip_loads_with_a_warning() {
    let s = Scratch::new();
    let mut trace = String::from("[\n");
    for i in 0..2000 {
        trace.push_str(&format!(
            "{{\"name\":\"Task{}\",\"cat\":\"c\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":5,\"args\":{{\"n\":{}}}}},\n",
            i % 7,
            i * 10,
            i * 7919 % 1000
        ));
    }
    trace.push_str("{\"name\":\"last\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]\n");
    let whole = gzip(trace.as_bytes());
    let f = s.write("cut.json.gz", &whole[..whole.len() / 2]);
    let stats = load(&s, f);
    assert_eq!(stats.warnings.len(), 2, "{:?}", stats.warnings);
    let kept: usize = stats.warnings[0]
        .strip_prefix("the gzip stream is cut short: kept the ")
        .and_then(|w| w.strip_suffix(" bytes it held"))
        .unwrap_or_else(|| panic!("{:?}", stats.warnings))
        .parse()
        .unwrap();
    assert!(kept > 0 && kept < trace.len(), "{kept}");
    assert!(
        stats.warnings[1].starts_with("the trace is truncated: loading stopped at byte "),
        "{:?}",
        stats.warnings
    );
    assert!(stats.events > 100 && stats.events < 2001, "{}", stats.events);
    assert_eq!(stats.skipped, skips(&[]));

    // Cut only in the gzip trailer: every byte of text is there.
    let f = s.write("no-trailer.json.gz", &whole[..whole.len() - 4]);
    let stats = load(&s, f);
    assert_eq!(
        stats.warnings,
        vec![format!(
            "the gzip stream is cut short: kept the {} bytes it held",
            trace.len()
        )]
    );
    assert_eq!(stats.events, 2001);
}

#[test]
fn concatenated_gzip_members_load() {
    let s = Scratch::new();
    let text = SMALL_TRACE.as_bytes();
    let (a, b) = text.split_at(text.len() / 2);
    let mut bytes = gzip(a);
    bytes.extend(gzip(b));
    let f = s.write("members.json.gz", &bytes);
    let stats = load(&s, f);
    assert_eq!(stats.warnings, Vec::<String>::new());
    assert_eq!(stats.events, 4);
}

/// Bytes after the end of a complete gzip stream (a download padded with
/// zeros, say): `gzip -d` decompresses it, with "trailing garbage
/// ignored"; tracekit too loads every event, with one warning saying so.
#[test]
fn gzip_with_trailing_garbage_loads_with_a_warning() {
    let s = Scratch::new();
    let mut bytes = gzip(SMALL_TRACE.as_bytes());
    bytes.extend_from_slice(&[0; 512]);
    let f = s.write("padded.json.gz", &bytes);
    let stats = load(&s, f);
    assert_eq!(stats.events, 4);
    assert_eq!(
        stats.warnings,
        vec!["bytes after the end of the gzip stream were ignored".to_owned()]
    );
}

#[test]
fn gzip_with_trailing_garbage_warns_in_one_line() {
    let s = Scratch::new();
    let mut bytes = gzip(SMALL_TRACE.as_bytes());
    bytes.extend_from_slice(b"trailing garbage");
    let f = s.write("trailing.json.gz", &bytes);
    let outcome = run(&s.dir, &["tracks", f]);
    outcome.assert_no_crash(f);
    assert_eq!(outcome.status.code(), Some(0), "{}", outcome.stderr);
    assert_eq!(
        outcome.stderr,
        format!("tracekit: warning: {f}: bytes after the end of the gzip stream were ignored\n")
    );
}

/// A complete gzip stream whose CRC-32 or length does not match its data:
/// the data may be corrupt. tracekit loads what it held, with one warning
/// that the checksum does not match (not that the stream is cut short,
/// which it is not).
#[test]
fn gzip_with_a_bad_checksum_says_so() {
    let s = Scratch::new();
    let good = gzip(SMALL_TRACE.as_bytes());
    let n = good.len();
    let mut bad_crc = good.clone();
    bad_crc[n - 8] ^= 0xff;
    let mut bad_len = good;
    bad_len[n - 2] ^= 0xff;
    for (name, bytes) in [("bad-crc.json.gz", bad_crc), ("bad-length.json.gz", bad_len)] {
        let f = s.write(name, bytes);
        let outcome = run(&s.dir, &["tracks", f]);
        outcome.assert_no_crash(f);
        assert_eq!(outcome.status.code(), Some(0), "{f}: {}", outcome.stderr);
        assert_eq!(
            outcome.stderr,
            format!(
                "tracekit: warning: {f}: the gzip stream's checksum does not match its data: kept the {} bytes it held\n",
                SMALL_TRACE.len()
            )
        );
    }
}

#[test]
fn directory() {
    let s = Scratch::new();
    std::fs::create_dir(s.path("traces")).unwrap();
    assert_refused(&s, "traces", "is a directory");
    std::fs::create_dir(s.path("trace.json")).unwrap();
    assert_refused(&s, "trace.json", "is a directory");
}

#[test]
fn missing_file() {
    let s = Scratch::new();
    assert_refused(&s, "missing.json", "No such file or directory (os error 2)");
    assert_refused(&s, "no/such/dir/trace.json", "No such file or directory (os error 2)");
}

// ---------------------------------------------------------------------------
// Nesting 200,000 levels deep

#[test]
fn deep_unclosed_object() {
    let s = Scratch::new();
    let f = s.write("deep-object.json", "{\"a\":".repeat(DEPTH));
    assert_refused(&s, f, &format!("byte {}: unexpected end of input", 5 * DEPTH));
}

#[test]
fn deep_closed_object() {
    let s = Scratch::new();
    let f = s.write(
        "deep-object-closed.json",
        format!("{}1{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH)),
    );
    assert_refused(
        &s,
        f,
        "not a trace or profile: a JSON object without traceEvents, nodes or frames/stacks/samples (keys: a)",
    );
}

/// `[[[[...` never closed: a trace cut before its first event. Nothing
/// can be loaded: refused.
#[test]
fn deep_unclosed_array_does_not_overflow() {
    let s = Scratch::new();
    let f = s.write("deep-array.json", "[".repeat(DEPTH));
    assert_refused(&s, f, "byte 1: the trace is truncated before its first event");
}

/// An array of no event at all (here one array 200,000 deep): refused.
#[test]
fn deep_closed_array_is_not_a_trace() {
    let s = Scratch::new();
    let f = s.write(
        "deep-array-closed.json",
        format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH)),
    );
    assert_refused(
        &s,
        f,
        "no event could be read: 1 skipped (first: event: not a valid event object: event at byte 1: not an object)",
    );
}

#[test]
fn deep_values_inside_a_trace_are_harmless() {
    let s = Scratch::new();
    let deep_array = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let deep_object = format!("{}1{}", "{\"a\":".repeat(DEPTH), "}".repeat(DEPTH));
    let event = r#"{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}"#;
    // In an event's args.
    let f = s.write(
        "deep-args.json",
        format!(
            r#"[{event},{{"name":"b","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":{{"data":{deep_array}}}}},{{"name":"FunctionCall","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":{{"data":{deep_object}}}}}]"#
        ),
    );
    let stats = load(&s, f);
    assert_eq!(stats.events, 3);
    // As an event of its own, and cut short.
    let f = s.write("deep-last-event.json", format!("[{event},{}", "[".repeat(DEPTH)));
    let stats = load(&s, f);
    assert_eq!(stats.events, 1);
    assert_eq!(stats.warnings.len(), 1, "{:?}", stats.warnings);
    // In the metadata, before and after the events.
    let f = s.write(
        "deep-metadata.json",
        format!(r#"{{"metadata":{deep_object},"traceEvents":[{event}],"more":{deep_array}}}"#),
    );
    assert_eq!(load(&s, f).events, 1);
    let f = s.write(
        "deep-metadata-after.json",
        format!(r#"{{"traceEvents":[{event}],"metadata":{deep_object}}}"#),
    );
    assert_eq!(load(&s, f).events, 1);
    // In a ProfileChunk's node.
    let f = s.write(
        "deep-chunk.json",
        format!(
            r#"[{{"name":"Profile","ph":"P","ts":1,"pid":1,"tid":1,"id":"0x1","args":{{"data":{{"startTime":1}}}}}},
{{"name":"ProfileChunk","ph":"P","ts":1,"pid":1,"tid":1,"id":"0x1","args":{{"data":{{"cpuProfile":{{"nodes":[{{"id":1,"callFrame":{{"functionName":"(root)"}},"x":{deep_array}}}],"samples":[1]}},"timeDeltas":[1]}}}}}}]"#
        ),
    );
    assert_eq!(load(&s, f).events, 2);
}

#[test]
fn deep_values_inside_a_self_profile_are_harmless() {
    let s = Scratch::new();
    let deep_array = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let f = s.write(
        "deep-self.json",
        format!(
            r#"{{"frames":[{{"name":"f"}}],"stacks":[{{"frameId":0}}],"samples":[{{"timestamp":1,"stackId":0}},{{"timestamp":2,"stackId":0}}],"x":{deep_array}}}"#
        ),
    );
    let stats = load(&s, f);
    assert_eq!(stats.kind, "SelfProfiling");
    // Too deep where a value is expected: an error, not an overflow.
    let f = s.write(
        "deep-self-frame.json",
        format!(r#"{{"frames":[{{"name":{deep_array}}}],"stacks":[],"samples":[]}}"#),
    );
    let outcome = run(&s.dir, &["tracks", f]);
    outcome.assert_no_crash(f);
    assert_eq!(outcome.status.code(), Some(1));
    assert_eq!(outcome.stderr.lines().count(), 1, "{}", outcome.stderr);
}

/// An unknown key of a CPU profile node holding a value nested 200,000
/// deep is skipped without overflowing the stack (a node's fields are read
/// one by one, none is buffered), whether the profile is otherwise usable
/// or not.
#[test]
fn deep_value_in_a_profile_node() {
    let s = Scratch::new();
    let deep_array = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let f = s.write(
        "deep-node.cpuprofile",
        format!(r#"{{"nodes":[{{"id":1,"x":{deep_array}}}]}}"#),
    );
    let outcome = run(&s.dir, &["tracks", "--stats", f]);
    outcome.assert_no_crash(f);
    let f = s.write(
        "deep-node-full.cpuprofile",
        format!(
            r#"{{"nodes":[{{"id":1,"callFrame":{{"functionName":"(root)"}},"positionTicks":{deep_array}}}],"samples":[1],"timeDeltas":[1],"startTime":0,"endTime":1}}"#
        ),
    );
    let outcome = run(&s.dir, &["tracks", "--stats", f]);
    outcome.assert_no_crash(f);
}

/// The same inside a trace: a `CpuProfile` event carrying such a profile
/// does not take the trace down; both events load.
#[test]
fn deep_value_in_a_cpu_profile_event() {
    let s = Scratch::new();
    let deep_array = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let f = s.write(
        "deep-cpuprofile-event.json",
        format!(
            r#"[{{"name":"RunTask","ph":"X","ts":0,"dur":5,"pid":1,"tid":1}},{{"name":"CpuProfile","ph":"X","ts":0,"dur":1,"pid":1,"tid":1,"args":{{"data":{{"cpuProfile":{{"nodes":[{{"id":1,"x":{deep_array}}}]}}}}}}}}]"#
        ),
    );
    let stats = load(&s, f);
    assert_eq!(stats.events, 2);
}

// ---------------------------------------------------------------------------
// Odd files that are still traces: they load, and --stats names the skips

#[test]
fn events_with_missing_or_ill_typed_fields() {
    let s = Scratch::new();
    let f = s.write(
        "fields.json",
        r#"[
{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1},
{"name":"noTs","ph":"X","dur":2,"pid":1,"tid":1},
{"name":5,"ph":"X","ts":1,"dur":2,"pid":1,"tid":1},
{"name":"tsWord","ph":"X","ts":"soon","pid":1,"tid":1},
{"name":"tsNull","ph":"X","ts":null,"pid":1,"tid":1},
{"name":"durList","ph":"X","ts":1,"dur":[1],"pid":1,"tid":1},
{"name":"pidObject","ph":"X","ts":1,"dur":1,"pid":{},"tid":1},
{"name":"phNumber","ph":7,"ts":1,"dur":1,"pid":1,"tid":1},
{"name":"argsString","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":"x"},
42, "a string", null, true, [1, 2],
{"name":"ok","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}
]"#,
    );
    let stats = load(&s, f);
    assert_eq!(
        stats.skipped,
        skips(&[
            ("event: missing name", 1),
            ("event: missing ts", 2),
            ("event: not a valid event object", 10),
        ])
    );
    assert_eq!(stats.divergences, vec!["event-without-category", "event-without-name"]);
    assert_eq!(stats.events, 2);
    assert!(stats.output.contains(r#""ok""#), "{}", stats.output);
}

#[test]
fn unbalanced_and_mismatched_begin_end() {
    let s = Scratch::new();
    let f = s.write(
        "begin-end.json",
        r#"[
{"name":"A","ph":"B","ts":1,"pid":1,"tid":1},
{"name":"B","ph":"E","ts":2,"pid":1,"tid":1},
{"name":"C","ph":"E","ts":3,"pid":1,"tid":1},
{"name":"D","ph":"E","ts":4,"pid":1,"tid":1},
{"name":"F","ph":"B","ts":5,"pid":1,"tid":1},
{"name":"G","ph":"B","ts":6,"pid":1,"tid":2},
{"name":"G","ph":"E","ts":7,"pid":1,"tid":2},
{"name":"H","ph":"B","ts":8,"pid":1,"tid":1}
]"#,
    );
    let stats = load(&s, f);
    assert_eq!(
        stats.skipped,
        skips(&[
            (
                "renderer: end event that does not match the open begin (both left as DevTools leaves them)",
                1
            ),
            ("renderer: end event without a begin", 2),
        ])
    );
    assert_eq!(stats.events, 8);
}

#[test]
fn negative_and_huge_durations() {
    let s = Scratch::new();
    let f = s.write(
        "durations.json",
        r#"[
{"name":"negative","ph":"X","ts":10,"dur":-5,"pid":1,"tid":1},
{"name":"huge","ph":"X","ts":10,"dur":1e300,"pid":1,"tid":1},
{"name":"inner","ph":"X","ts":11,"dur":1,"pid":1,"tid":1},
{"name":"hugeTs","ph":"X","ts":1e308,"dur":1e308,"pid":1,"tid":1},
{"name":"negativeTs","ph":"X","ts":-1e308,"dur":1,"pid":1,"tid":1},
{"name":"endBeforeBegin","ph":"B","ts":50,"pid":1,"tid":2},
{"name":"endBeforeBegin","ph":"E","ts":40,"pid":1,"tid":2},
{"name":"zero","ph":"X","ts":60,"dur":0,"pid":1,"tid":2}
]"#,
    );
    // DevTools keeps such events as they are; so does tracekit.
    let stats = load(&s, f);
    assert_eq!(stats.skipped, skips(&[]));
    assert_eq!(stats.events, 8);
    for name in [
        "negative",
        "huge",
        "inner",
        "hugeTs",
        "negativeTs",
        "endBeforeBegin",
        "zero",
    ] {
        assert!(
            stats.output.contains(&format!("\"{name}\"")),
            "{name}: {}",
            stats.output
        );
    }
    for format in ["text", "json"] {
        let outcome = run(&s.dir, &["tracks", "--format", format, f]);
        outcome.assert_no_crash(f);
        assert_eq!(outcome.status.code(), Some(0), "{format}: {}", outcome.stderr);
    }
}

/// A node of `id` with a parent link, for profiles in trace chunks.
fn node(id: i64, name: &str, parent: Option<i64>, children: Option<&[i64]>) -> String {
    let mut s = format!(
        r#"{{"id":{id},"callFrame":{{"functionName":"{name}","scriptId":"1","url":"a.js","lineNumber":{id},"columnNumber":0}}"#
    );
    if let Some(p) = parent {
        s.push_str(&format!(r#","parent":{p}"#));
    }
    if let Some(c) = children {
        s.push_str(&format!(r#","children":{c:?}"#));
    }
    s.push('}');
    s
}

/// A trace whose main thread runs JS sampled by one profile, in a `Profile`
/// and a `ProfileChunk` event.
fn trace_with_profile(nodes: &[String], samples: &[i64], deltas: &[f64]) -> String {
    format!(
        r#"[
{{"name":"thread_name","ph":"M","pid":1,"tid":1,"ts":0,"args":{{"name":"CrRendererMain"}}}},
{{"name":"RunTask","cat":"c","ph":"X","pid":1,"tid":1,"ts":1000,"dur":1000,"args":{{}}}},
{{"name":"FunctionCall","cat":"c","ph":"X","pid":1,"tid":1,"ts":1001,"dur":998,"args":{{}}}},
{{"name":"Profile","cat":"c","ph":"P","pid":1,"tid":1,"ts":1000,"id":"0x1","args":{{"data":{{"startTime":1000}}}}}},
{{"name":"ProfileChunk","cat":"c","ph":"P","pid":1,"tid":1,"ts":1000,"id":"0x1","args":{{"data":{{"cpuProfile":{{"nodes":[{}],"samples":{samples:?}}},"timeDeltas":{deltas:?}}}}}}}
]"#,
        nodes.join(",")
    )
}

/// The same profile as a `.cpuprofile` file.
fn cpuprofile(nodes: &[String], samples: &[i64], deltas: &[f64]) -> String {
    format!(
        r#"{{"nodes":[{}],"startTime":1000,"endTime":2000,"samples":{samples:?},"timeDeltas":{deltas:?}}}"#,
        nodes.join(",")
    )
}

#[test]
fn profile_nodes_whose_parent_links_form_a_cycle() {
    let s = Scratch::new();
    // 2 and 3 are each other's parent; 4 hangs off the root.
    let nodes = [
        node(1, "(root)", None, None),
        node(2, "a", Some(3), None),
        node(3, "b", Some(2), None),
        node(4, "c", Some(1), None),
    ];
    let expected = skips(&[
        ("profile: nodes not reachable from the root", 1),
        ("profile: sample names an unknown node", 2),
    ]);
    let f = s.write(
        "parent-cycle.json",
        trace_with_profile(&nodes, &[4, 2, 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    assert_eq!(stats.skipped, expected);
    assert!(stats.output.contains("js:c@a.js:4:0"), "{}", stats.output);
    let f = s.write(
        "parent-cycle.cpuprofile",
        cpuprofile(&nodes, &[4, 2, 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    assert_eq!(stats.skipped, expected);
    assert_eq!(stats.kind, "CpuProfile");
}

#[test]
fn profile_nodes_whose_children_links_form_a_cycle() {
    let s = Scratch::new();
    // 3 lists 2 (its own parent) and the root as children.
    let nodes = [
        node(1, "(root)", None, Some(&[2])),
        node(2, "a", None, Some(&[3])),
        node(3, "b", None, Some(&[2, 1])),
    ];
    let expected = skips(&[("profile: node reached twice (cycle or shared child)", 2)]);
    let f = s.write(
        "children-cycle.json",
        trace_with_profile(&nodes, &[3, 2, 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    assert_eq!(stats.skipped, expected);
    assert_eq!(stats.divergences, vec!["profile-node-cycle"]);
    let f = s.write(
        "children-cycle.cpuprofile",
        cpuprofile(&nodes, &[3, 2, 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    assert_eq!(stats.skipped, expected);
    assert_eq!(stats.divergences, vec!["profile-node-cycle"]);
    // A node that is its own child and its own parent.
    let nodes = [node(1, "(root)", None, Some(&[2])), node(2, "a", Some(2), Some(&[2]))];
    let f = s.write("self-cycle.cpuprofile", cpuprofile(&nodes, &[2, 2], &[10.0, 10.0]));
    let stats = load(&s, f);
    assert_eq!(stats.skipped, expected_self_cycle());
}

fn expected_self_cycle() -> BTreeMap<String, u64> {
    skips(&[("profile: node reached twice (cycle or shared child)", 1)])
}

#[test]
fn the_hostile_fixture_loads() {
    let s = Scratch::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hostile/profile-cycle.json");
    let f = s.write("profile-cycle.json", std::fs::read(fixture).unwrap());
    let stats = load(&s, f);
    assert_eq!(
        stats.skipped,
        skips(&[("profile: node reached twice (cycle or shared child)", 1)])
    );
}

#[test]
fn samples_naming_unknown_nodes() {
    let s = Scratch::new();
    let nodes = [node(1, "(root)", None, Some(&[2])), node(2, "a", None, None)];
    let samples = [2, 99, 2, -5, 2];
    let deltas = [10.0; 5];
    let expected = skips(&[("profile: sample names an unknown node", 2)]);
    let f = s.write("unknown-sample.json", trace_with_profile(&nodes, &samples, &deltas));
    assert_eq!(load(&s, f).skipped, expected);
    let f = s.write("unknown-sample.cpuprofile", cpuprofile(&nodes, &samples, &deltas));
    assert_eq!(load(&s, f).skipped, expected);
    // Samples and no node they could name but the root.
    let f = s.write(
        "only-root.cpuprofile",
        cpuprofile(&[node(1, "(root)", None, None)], &[7, 8], &[1.0, 1.0]),
    );
    assert_eq!(
        load(&s, f).skipped,
        skips(&[("profile: sample names an unknown node", 2)])
    );
}

#[test]
fn time_deltas_shorter_or_longer_than_samples_in_a_trace() {
    let s = Scratch::new();
    let nodes = [node(1, "(root)", None, Some(&[2])), node(2, "a", None, None)];
    let expected = skips(&[
        (
            "profile: samples without a timestamp, or timestamps without a sample",
            1,
        ),
        ("samples: profile with more samples than time deltas or fewer", 1),
    ]);
    let f = s.write(
        "short-deltas.json",
        trace_with_profile(&nodes, &[2, 2, 2, 2], &[10.0, 10.0]),
    );
    assert_eq!(load(&s, f).skipped, expected);
    let f = s.write("long-deltas.json", trace_with_profile(&nodes, &[2, 2], &[10.0; 4]));
    assert_eq!(load(&s, f).skipped, expected);
}

/// In a `.cpuprofile`, the samples without a time delta (or the deltas
/// without a sample) are dropped, and `--stats` counts them.
#[test]
fn time_deltas_shorter_or_longer_than_samples_in_a_cpuprofile() {
    let s = Scratch::new();
    let nodes = [node(1, "(root)", None, Some(&[2])), node(2, "a", None, None)];
    for (name, samples, deltas) in [
        ("short-deltas.cpuprofile", &[2, 2, 2, 2][..], &[10.0, 10.0][..]),
        ("long-deltas.cpuprofile", &[2, 2][..], &[10.0; 4][..]),
    ] {
        let f = s.write(name, cpuprofile(&nodes, samples, deltas));
        let stats = load(&s, f);
        assert_eq!(
            stats.skipped,
            skips(&[(
                "profile: samples without a timestamp, or timestamps without a sample",
                1
            )]),
            "{f}"
        );
    }
}

#[test]
fn time_deltas_shorter_or_longer_than_samples_in_a_cpuprofile_load() {
    let s = Scratch::new();
    let nodes = [node(1, "(root)", None, Some(&[2])), node(2, "a", None, None)];
    let f = s.write(
        "short-deltas.cpuprofile",
        cpuprofile(&nodes, &[2, 2, 2, 2], &[10.0, 10.0]),
    );
    assert!(load(&s, f).output.contains("js:a@a.js:2:0"));
    let f = s.write("long-deltas.cpuprofile", cpuprofile(&nodes, &[2, 2], &[10.0; 4]));
    assert!(load(&s, f).output.contains("js:a@a.js:2:0"));
    let f = s.write("no-deltas.cpuprofile", cpuprofile(&nodes, &[2, 2], &[]));
    load(&s, f);
    let f = s.write(
        "deltas-null.cpuprofile",
        format!(
            r#"{{"nodes":[{},{}],"samples":[2,2],"timeDeltas":null}}"#,
            nodes[0], nodes[1]
        ),
    );
    load(&s, f);
}

#[test]
fn a_bom_before_the_json_is_skipped() {
    let s = Scratch::new();
    let f = s.write("bom.json", format!("\u{feff}{SMALL_TRACE}"));
    let stats = load(&s, f);
    assert_eq!(stats.events, 4);
    assert_eq!(stats.warnings, Vec::<String>::new());
}

#[test]
fn a_trace_ending_inside_a_utf8_character() {
    let s = Scratch::new();
    let mut bytes = SMALL_TRACE.trim_end().as_bytes().to_vec();
    bytes.extend_from_slice("\u{20ac}".as_bytes().split_last().unwrap().1);
    let f = s.write("cut-char.json", &bytes);
    let stats = load(&s, f);
    assert_eq!(
        stats.warnings,
        vec![format!(
            "the input ends inside a UTF-8 character at byte {}",
            SMALL_TRACE.trim_end().len()
        )]
    );
    assert_eq!(stats.events, 4);
}

/// A profile (not a trace) whose last bytes are the start of a UTF-8
/// character is read by the CLI's streaming loader as by the in-memory
/// loader (`tracekit::analyze_bytes`): a whole profile and a stray byte
/// load with a warning; a profile cut inside a character gets the error of
/// one cut just before it. (The streaming loader once took such a file for
/// empty; found by `cargo fuzz run load`, fuzz/README.md.)
#[test]
fn profile_ending_inside_a_utf8_character() {
    let s = Scratch::new();
    let nodes = [node(1, "(root)", None, Some(&[2])), node(2, "a", None, None)];
    let profile = cpuprofile(&nodes, &[2, 2], &[10.0, 10.0]);
    // A whole profile, then one stray byte: it loads, with a warning.
    let mut bytes = profile.clone().into_bytes();
    bytes.push(0xc3);
    let f = s.write("stray-byte.cpuprofile", &bytes);
    let stats = load(&s, f);
    assert_eq!(
        stats.warnings,
        vec![format!(
            "the input ends inside a UTF-8 character at byte {}",
            profile.len()
        )]
    );
    // A profile cut in a function name: the same error as when cut just
    // before the character.
    let cut = profile.replace("\"a\"", "\"\u{e9}t\u{e9}\"");
    let at = cut.find('\u{e9}').unwrap() + 1;
    let f = s.write("cut-name.cpuprofile", &cut.as_bytes()[..at]);
    let g = s.write("cut-name-before.cpuprofile", &cut.as_bytes()[..at - 1]);
    let cut_in_char = run(&s.dir, &["tracks", f]);
    let cut_before = run(&s.dir, &["tracks", g]);
    assert_eq!(cut_in_char.status.code(), Some(1));
    assert_eq!(
        cut_in_char.stderr.replace(f, "FILE"),
        cut_before.stderr.replace(g, "FILE")
    );
    // The fuzzer's input.
    let f = s.write(
        "fuzz-e9c6d28a.json",
        b"{\"odes\": \tg`\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t`\t]}\n\xdf",
    );
    assert_refused(&s, f, "byte 28: expected a key, found character '`'");
}

/// A profile of only its root, then a stray byte: it loads, and stderr is
/// the one warning.
#[test]
fn a_profile_ending_inside_a_utf8_character_warns_in_one_line() {
    let s = Scratch::new();
    let profile = cpuprofile(&[node(1, "(root)", None, None)], &[1], &[1.0]);
    let mut bytes = profile.clone().into_bytes();
    bytes.push(0xc3);
    let f = s.write("stray-byte.cpuprofile", &bytes);
    let outcome = run(&s.dir, &["tracks", f]);
    outcome.assert_no_crash(f);
    assert_eq!(outcome.status.code(), Some(0), "{}", outcome.stderr);
    assert_eq!(
        outcome.stderr,
        format!(
            "tracekit: warning: {f}: the input ends inside a UTF-8 character at byte {}\n",
            profile.len()
        )
    );
}

// ---------------------------------------------------------------------------
// Call stacks 200,000 frames deep

/// A chain of `DEPTH` nodes under the root, linked by parent, and three
/// samples at the deepest node.
fn deep_chain_nodes() -> Vec<String> {
    let mut nodes = Vec::with_capacity(DEPTH + 1);
    nodes.push(
        r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}"#
            .to_owned(),
    );
    for id in 2..=DEPTH as i64 + 1 {
        nodes.push(format!(
            r#"{{"id":{id},"parent":{},"callFrame":{{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":{id}}}}}"#,
            id - 1
        ));
    }
    nodes
}

const DEEPEST: i64 = DEPTH as i64 + 1;

fn assert_deep(stats: &Stats, deepest_entry: &str) {
    assert_eq!(stats.skipped, skips(&[]));
    assert!(
        stats.output.contains(deepest_entry),
        "the deepest frame {deepest_entry} is missing"
    );
    assert!(stats.elapsed < Duration::from_secs(60), "took {:?}", stats.elapsed);
}

#[test]
fn deep_stack_in_a_trace() {
    let s = Scratch::new();
    let f = s.write(
        "deep-stack.json",
        trace_with_profile(&deep_chain_nodes(), &[DEEPEST; 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    // RunTask at depth 0, FunctionCall at 1, the frames from 2.
    assert_deep(&stats, &format!(r#"[{},"js:f@a.js:1:{DEEPEST}""#, DEPTH + 1));
}

#[test]
fn deep_stack_in_a_cpuprofile_by_parent_links() {
    let s = Scratch::new();
    let f = s.write(
        "deep-stack.cpuprofile",
        cpuprofile(&deep_chain_nodes(), &[DEEPEST; 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    assert_deep(&stats, &format!(r#"[{},"js:f@a.js:1:{DEEPEST}""#, DEPTH - 1));
}

#[test]
fn deep_stack_in_a_cpuprofile_by_children_links() {
    let s = Scratch::new();
    let mut nodes = Vec::with_capacity(DEPTH + 1);
    nodes.push(r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]}"#.to_owned());
    for id in 2..=DEEPEST {
        let children = if id < DEEPEST {
            format!("[{}]", id + 1)
        } else {
            "[]".to_owned()
        };
        nodes.push(format!(
            r#"{{"id":{id},"callFrame":{{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":{id}}},"children":{children}}}"#
        ));
    }
    let f = s.write(
        "deep-children.cpuprofile",
        cpuprofile(&nodes, &[DEEPEST; 3], &[10.0, 10.0, 10.0]),
    );
    let stats = load(&s, f);
    assert_deep(&stats, &format!(r#"[{},"js:f@a.js:1:{DEEPEST}""#, DEPTH - 1));
}

#[test]
fn deep_stack_in_a_legacy_cpuprofile() {
    let s = Scratch::new();
    let mut text = String::from(r#"{"startTime":1,"endTime":2,"head":"#);
    for id in 1..=DEEPEST {
        text.push_str(&format!(
            r#"{{"id":{id},"functionName":"f","url":"a.js","lineNumber":2,"columnNumber":{id},"children":["#
        ));
    }
    for _ in 1..=DEEPEST {
        text.push_str("]}");
    }
    text.push_str(&format!(
        r#","samples":[{DEEPEST},{DEEPEST},{DEEPEST}],"timestamps":[1000000,1000010,1000020]}}"#
    ));
    let f = s.write("deep-legacy.cpuprofile", text);
    let stats = load(&s, f);
    assert_deep(&stats, &format!(r#"[{},"js:f@a.js:1:{}""#, DEPTH - 1, DEEPEST - 1));
}

#[test]
fn deep_stack_in_a_self_profile() {
    let s = Scratch::new();
    let mut text = String::from(
        r#"{"frames":[{"name":"f","resourceId":0,"line":1,"column":1}],"resources":["a.js"],"stacks":[{"frameId":0}"#,
    );
    for parent in 0..DEPTH - 1 {
        text.push_str(&format!(r#",{{"frameId":0,"parentId":{parent}}}"#));
    }
    let top = DEPTH - 1;
    text.push_str(&format!(
        r#"],"samples":[{{"timestamp":1,"stackId":{top}}},{{"timestamp":2,"stackId":{top}}},{{"timestamp":3,"stackId":{top}}}]}}"#
    ));
    let f = s.write("deep-self.json", text);
    let stats = load(&s, f);
    assert_eq!(stats.kind, "SelfProfiling");
    assert_deep(&stats, &format!(r#"[{},"js:f@a.js:0:0""#, DEPTH - 1));
}

/// The text format indents a line by its depth only up to a point, then
/// writes the depth out: 200,000 frames deep, the output stays under
/// 256 MB (indented all the way, it would be about 40 GB of spaces).
#[test]
fn deep_stack_in_the_text_format() {
    let s = Scratch::new();
    let f = s.write(
        "deep-stack.cpuprofile",
        cpuprofile(&deep_chain_nodes(), &[DEEPEST; 3], &[10.0, 10.0, 10.0]),
    );
    let outcome = run_limited(&s.dir, &["tracks", f], 0, 256 << 20);
    outcome.assert_no_crash(f);
    assert_eq!(outcome.status.code(), Some(0));
}

// ---------------------------------------------------------------------------
// Traces built to mislead the parallel and block-by-block parser

/// Events whose args hold text that looks like the start of an event: a
/// `{` after a comma, at the start of a line, and inside strings. The
/// parallel parser guesses event boundaries at such places and must find
/// out; the streaming loader cuts the text in blocks of 16 MB, inside
/// events and inside UTF-8 characters. Whatever the threads, every event
/// is read once, and no inner object is taken for an event.
#[test]
fn misleading_event_boundaries_in_a_large_trace() {
    let s = Scratch::new();
    let mut text = String::from("[\n");
    let mut count = 0usize;
    while text.len() < 18 << 20 {
        let name = if count % 3 == 1 { "Ünïcödé€ task" } else { "task" };
        text.push_str(&format!(
            "{{\"name\":\"{name}\",\"cat\":\"c\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":5,\"args\":{{\"s\":\"a, {{\\\"name\\\":\\\"fake\\\",\\\"ph\\\":\\\"X\\\"}}\",\"list\":[1,\n{{\"name\":\"fake\",\"ph\":\"X\",\"ts\":{},\"dur\":1,\"pid\":1,\"tid\":1}}]}}}},\n",
            count * 10,
            count * 10 + 1
        ));
        count += 1;
    }
    text.push_str("{\"name\":\"last\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]\n");
    count += 1;
    let f = s.write("misleading.json", &text);
    let sequential = load_with(&s, f, &["--threads", "1"]);
    let parallel = load_with(&s, f, &["--threads", "2"]);
    for stats in [&sequential, &parallel] {
        assert_eq!(stats.events, count);
        assert_eq!(stats.skipped, skips(&[]));
        assert_eq!(stats.warnings, Vec::<String>::new());
        assert!(!stats.output.contains("fake"));
    }
    assert!(
        sequential.output == parallel.output,
        "the tracks differ with 1 and 2 threads"
    );
    // Gzipped, the text arrives in other pieces.
    let f = s.write("misleading.json.gz", gzip(text.as_bytes()));
    let gzipped = load_with(&s, f, &["--threads", "2"]);
    assert_eq!(gzipped.events, count);
    assert!(sequential.output == gzipped.output, "the tracks differ when gzipped");
}

/// A trace saved as UTF-16 (what Windows PowerShell's `>` writes: little
/// endian with a byte order mark), or big endian, or without a mark, loads
/// as the same trace in UTF-8 does; gzipped too.
#[test]
fn utf16_traces_load() {
    let s = Scratch::new();
    let text = "[{\"name\":\"a\u{e9}\u{1f600}\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]";
    let utf8 = s.write("utf8.json", text);
    let expected = run(&s.dir, &["tracks", utf8, "--format", "conformance"]);
    assert_eq!(expected.status.code(), Some(0), "{}", expected.stderr);
    let le_bom: Vec<u8> = format!("\u{feff}{text}")
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let be_bom: Vec<u8> = format!("\u{feff}{text}")
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    for (name, bytes) in [
        ("le-bom.json", le_bom.clone()),
        ("be-bom.json", be_bom),
        ("le.json", le),
        ("le-bom.json.gz", gzip(&le_bom)),
    ] {
        let f = s.write(name, &bytes);
        let outcome = run(&s.dir, &["tracks", f, "--format", "conformance"]);
        outcome.assert_no_crash(f);
        assert_eq!(outcome.status.code(), Some(0), "{name}: {}", outcome.stderr);
        assert_eq!(outcome.stderr, "", "{name}");
        assert_eq!(outcome.stdout(), expected.stdout(), "{name}");
    }
    // Cut inside a character: the rest loads, with a warning.
    let mut cut = le_bom;
    cut.truncate(cut.len() - 1);
    let f = s.write("cut.json", &cut);
    let stats = load(&s, f);
    assert_eq!(stats.events, 1);
    assert!(
        stats
            .warnings
            .iter()
            .any(|w| w.starts_with("the input ends inside a UTF-16 character at byte ")),
        "{:?}",
        stats.warnings
    );
}
