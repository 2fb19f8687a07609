//! The conventions of the `tracekit` command, end to end through the
//! binary: thread matching, the filters' checks, standard input, `-o`,
//! `info` of several inputs, the text format's JS positions, completions,
//! man pages, usage errors and warnings. Messages are asserted exactly.
//!
//! The command runs in `fixtures/`, so that messages name files as
//! `handwritten/...` and `traces/...`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Succeeded, with nothing on stderr.
    fn ok(self) -> Run {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        assert_eq!(self.stderr, "", "stderr");
        self
    }

    /// Failed with exit code `code` and exactly `stderr`, nothing on stdout.
    fn fails(&self, code: i32, stderr: &str) {
        assert_eq!(self.stderr, stderr, "stderr");
        assert_eq!(self.code, Some(code), "exit code");
        assert_eq!(self.stdout, "", "stdout");
    }

    /// A usage error: `tracekit: WHAT` then clap's hint, exit code 2.
    fn usage_error(&self, first_line: &str) {
        assert_eq!(self.code, Some(2), "exit code; stderr: {}", self.stderr);
        assert_eq!(self.stderr.lines().next(), Some(first_line), "stderr: {}", self.stderr);
        assert!(
            self.stderr.ends_with("For more information, try '--help'.\n"),
            "{}",
            self.stderr
        );
        assert_eq!(self.stdout, "", "stdout");
    }
}

fn run_with(args: &[&str], stdin: Option<Vec<u8>>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(fixtures())
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tracekit starts");
    let writer = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            // The command may stop reading early (an error): not a failure.
            let _ = pipe.write_all(&bytes);
        })
    });
    let output = child.wait_with_output().unwrap();
    if let Some(writer) = writer {
        writer.join().unwrap();
    }
    Run {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

/// A scratch directory for output files, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tracekit-cli-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const RECORDING: &str = "handwritten/devtools-recording.json";
const NAVIGATION: &str = "traces/navigation.json.gz";

/// The thread headers (`  thread TID NAME`) of a text output.
fn thread_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("  thread ")).collect()
}

// ---------------------------------------------------------------------------
// --thread

#[test]
fn thread_by_name_ignores_case_and_keeps_every_thread_of_that_name() {
    let out = run(&["tracks", RECORDING, "--thread", "CRRENDERERMAIN"]).ok().stdout;
    assert_eq!(
        out,
        "trace: ChromeTrace, 2.300 ms long, times in ms from 1000 µs\n\
         process 200 https://main.test/ [main frame]\n\
         \x20 thread 201 CrRendererMain\n\
         \x20   RunTask  @0.200 +0.300 self 0.300\n\
         \x20   Something::UMA  @4.000 +0.100 self 0.100\n\
         process 300 https://frame.test/\n\
         \x20 thread 301 CrRendererMain\n\
         \x20   RunTask  @0.300 +0.050 self 0.050\n"
    );
}

#[test]
fn thread_by_unique_substring_or_tid() {
    for query in ["compos", "Compositor", "202", " 202 "] {
        let out = run(&["tracks", RECORDING, "--thread", query]).ok().stdout;
        assert_eq!(thread_lines(&out), vec!["  thread 202 Compositor"], "{query}");
        // Processes without a kept thread are not printed.
        assert_eq!(out.lines().filter(|l| l.starts_with("process")).count(), 1, "{query}");
    }
    // A substring of one name, shared by threads of several processes.
    let out = run(&["tracks", RECORDING, "--thread", "renderer"]).ok().stdout;
    assert_eq!(
        thread_lines(&out),
        vec!["  thread 201 CrRendererMain", "  thread 301 CrRendererMain"]
    );
    // The same in the JSON formats.
    let out = run(&["tracks", RECORDING, "--thread", "compos", "--format", "json"])
        .ok()
        .stdout;
    assert!(out.contains(r#""threads":[{"tid":202,"name":"Compositor""#), "{out}");
    assert!(!out.contains("CrRendererMain"), "{out}");
    // A real recording: the main thread of each of its two renderers.
    let out = run(&["tracks", NAVIGATION, "--thread", "crrenderermain", "--max-depth", "1"])
        .ok()
        .stdout;
    assert_eq!(
        thread_lines(&out),
        vec!["  thread 19783 CrRendererMain", "  thread 19782 CrRendererMain"]
    );
}

#[test]
fn thread_that_matches_nothing_lists_the_threads() {
    run(&["tracks", RECORDING, "--thread", "NoSuch"]).fails(
        1,
        "tracekit: handwritten/devtools-recording.json: no thread matches 'NoSuch'; threads: \
         CrRendererMain (tids 201, 301), Compositor (tid 202), tid 401, tid 402\n",
    );
    // A tid that does not exist.
    run(&["tracks", RECORDING, "--thread", "999", "--format", "json"]).fails(
        1,
        "tracekit: handwritten/devtools-recording.json: no thread matches '999'; threads: \
         CrRendererMain (tids 201, 301), Compositor (tid 202), tid 401, tid 402\n",
    );
}

#[test]
fn thread_list_of_a_real_recording_groups_names() {
    run(&["tracks", NAVIGATION, "--thread", "nosuch"]).fails(
        1,
        "tracekit: traces/navigation.json.gz: no thread matches 'nosuch'; threads: \
         CrRendererMain (tids 19783, 19782), PerfettoTrace (tids 19787, 19786), \
         Chrome_ChildIOThread (tids 19797, 19793), Compositor (tids 19800, 19803), \
         ThreadPoolForegroundWorker (tids 19794, 19798, 19814, 19815, 19790, 19799, 19828, 19829), \
         ThreadPoolServiceThread (tid 19788)\n",
    );
}

#[test]
fn thread_matching_several_names_is_ambiguous() {
    run(&["tracks", RECORDING, "--thread", " "]).usage_error(
        "tracekit: invalid value ' ' for '--thread <NAME_OR_TID>': give a thread name, part of one, or a tid",
    );
    run(&["tracks", RECORDING, "--thread", "r"]).fails(
        1,
        "tracekit: handwritten/devtools-recording.json: 'r' matches threads of several names: \
         CrRendererMain (tids 201, 301), Compositor (tid 202); \
         give the whole name, the tid or PID:TID\n",
    );
}

/// Two renderers whose main threads have the same tid, 7.
const SAME_TIDS: &str = r#"[
{"name":"process_name","ph":"M","pid":1,"tid":7,"args":{"name":"Renderer"}},
{"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"CrRendererMain"}},
{"name":"process_name","ph":"M","pid":2,"tid":7,"args":{"name":"Renderer"}},
{"name":"thread_name","ph":"M","pid":2,"tid":7,"args":{"name":"CrRendererMain"}},
{"name":"RunTask","ph":"X","ts":1000,"dur":60000,"pid":1,"tid":7},
{"name":"RunTask","ph":"X","ts":2000,"dur":1000,"pid":2,"tid":7}]"#;

#[test]
fn a_thread_is_named_pid_tid_when_its_tid_is_not_enough() {
    run_with(&["tracks", "-", "--thread", "7"], Some(SAME_TIDS.into())).fails(
        1,
        "tracekit: <stdin>: tid 7 is a thread of several processes: give PID:TID, one of \
         1:7 CrRendererMain, 2:7 CrRendererMain\n",
    );
    let out = run_with(&["tracks", "-", "--thread", "2:7"], Some(SAME_TIDS.into()))
        .ok()
        .stdout;
    assert_eq!(
        out.lines().skip(1).collect::<Vec<_>>(),
        [
            "process 2 Renderer",
            "  thread 7 CrRendererMain",
            "    RunTask  @1.000 +1.000 self 1.000"
        ]
    );
}

#[test]
fn a_filter_that_hides_a_thread_says_so() {
    let hid = run_with(
        &["tracks", "-", "--thread", "CrRendererMain", "--min-duration", "50"],
        Some(SAME_TIDS.into()),
    );
    assert_eq!(hid.code, Some(0));
    assert_eq!(
        hid.stderr,
        "tracekit: note: <stdin>: --min-duration 50 leaves nothing of thread 7 CrRendererMain (pid 2)\n"
    );
    assert!(hid.stdout.contains("RunTask  @0.000 +60.000"), "{}", hid.stdout);
    let quiet = run_with(
        &[
            "tracks",
            "-",
            "-q",
            "--thread",
            "CrRendererMain",
            "--min-duration",
            "50",
        ],
        Some(SAME_TIDS.into()),
    );
    assert_eq!((quiet.code, quiet.stderr.as_str()), (Some(0), ""));
    // Every command that filters nodes says the same.
    for command in ["chart", "convert", "flamegraph"] {
        let mut args = vec![command, "-", "--min-duration", "50", "-o", "/dev/null"];
        if command == "convert" {
            args.extend(["--to", "folded"]);
        }
        let run_ = run_with(&args, Some(SAME_TIDS.into()));
        assert_eq!(run_.code, Some(0), "{command}: {}", run_.stderr);
        assert!(
            run_.stderr
                .contains("leaves nothing of thread 7 CrRendererMain (pid 2)"),
            "{command}: {}",
            run_.stderr
        );
    }
}

#[test]
fn several_traces_get_a_section_each() {
    let both = run(&["tracks", RECORDING, "handwritten/node.cpuprofile", "--max-depth", "1"])
        .ok()
        .stdout;
    let one = |file: &str| run(&["tracks", file, "--max-depth", "1"]).ok().stdout;
    assert_eq!(
        both,
        format!(
            "file: {RECORDING}\n{}\nfile: handwritten/node.cpuprofile\n{}",
            one(RECORDING),
            one("handwritten/node.cpuprofile")
        )
    );
    // One that fails is reported, the others still printed; status 1.
    let failed = run(&["summary", "no-such.json", RECORDING]);
    assert_eq!(failed.code, Some(1));
    assert_eq!(
        failed.stderr,
        "tracekit: no-such.json: No such file or directory (os error 2)\n"
    );
    assert!(
        failed.stdout.starts_with(&format!("file: {RECORDING}\nSummary")),
        "{}",
        failed.stdout
    );
}

#[test]
fn thread_of_a_process_devtools_drops_needs_all_processes() {
    run(&["tracks", RECORDING, "--thread", "crbrowsermain"]).fails(
        1,
        "tracekit: handwritten/devtools-recording.json: no thread matches 'crbrowsermain' in the \
         processes DevTools shows; add --all-processes for CrBrowserMain (tid 101)\n",
    );
    let out = run(&["tracks", RECORDING, "--thread", "crbrowsermain", "--all-processes"])
        .ok()
        .stdout;
    assert_eq!(
        out.lines().nth(1),
        Some("process 100 Browser [not shown by DevTools]"),
        "{out}"
    );
    assert_eq!(thread_lines(&out), vec!["  thread 101 CrBrowserMain"]);
}

// ---------------------------------------------------------------------------
// --window, --max-depth, --min-duration

#[test]
fn window_outside_the_trace_names_its_duration() {
    for window in ["500..600", "5..", "..-1"] {
        run(&["tracks", RECORDING, "--window", window]).fails(
            1,
            &format!(
                "tracekit: handwritten/devtools-recording.json: the window {window} ms lies outside the trace (0..2.300 ms)\n"
            ),
        );
    }
    run(&["tracks", NAVIGATION, "--window", "5000..6000"]).fails(
        1,
        "tracekit: traces/navigation.json.gz: the window 5000..6000 ms lies outside the trace (0..2197.890 ms)\n",
    );
}

#[test]
fn window_open_ranges() {
    let nodes = |window: &str| -> Vec<String> {
        let out = run(&["tracks", "-q", RECORDING, "--window", window]).ok().stdout;
        out.lines()
            .filter(|l| l.starts_with("    "))
            .map(|l| l.trim().to_owned())
            .collect()
    };
    // Paint 0.25..0.27, RunTask 0.3..0.35 (frame), RunTask 2.1..2.3 and
    // 2.15..2.17 (other), Something::UMA from 4.
    assert_eq!(
        nodes("2.2.."),
        vec![
            "Something::UMA  @4.000 +0.100 self 0.100",
            "RunTask  @2.100 +0.200 self 0.200"
        ]
    );
    assert_eq!(
        nodes("..0.26"),
        vec!["RunTask  @0.200 +0.300 self 0.300", "Paint  @0.250 +0.020 self 0.020"]
    );
    assert_eq!(nodes("0.26..0.3"), nodes("0.26..0.30"));
    // Threads and processes without a node in the window are left out.
    let run_ = run(&["tracks", RECORDING, "--window", "2.2.."]);
    // The threads left out are named on stderr (not with -q).
    assert_eq!(
        run_.stderr,
        "tracekit: note: handwritten/devtools-recording.json: --window 2.2.. leaves nothing of \
         thread 202 Compositor (pid 200), thread 301 CrRendererMain (pid 300), thread 402 (pid 400)\n"
    );
    let out = run_.stdout;
    assert_eq!(
        out,
        "trace: ChromeTrace, 2.300 ms long, times in ms from 1000 µs\n\
         process 200 https://main.test/ [main frame]\n\
         \x20 thread 201 CrRendererMain\n\
         \x20   Something::UMA  @4.000 +0.100 self 0.100\n\
         process 400 https://other.test/ [main frame]\n\
         \x20 thread 401 401\n\
         \x20   RunTask  @2.100 +0.200 self 0.200\n"
    );
    // A start before the trace's is refused, in one line.
    run(&["tracks", RECORDING, "--window", "-1..100"]).usage_error(
        "tracekit: invalid value '-1..100' for '--window <START..END>': \
         START (-1) is before the trace's start: times count from it, so START is 0 or more",
    );
    // Units: a plain number is ms.
    assert_eq!(nodes("0.26..0.3"), nodes("260us..0.0003s"));
    assert_eq!(nodes("2.2.."), nodes("2.2ms.."));
}

#[test]
fn window_that_is_not_one() {
    run(&["tracks", RECORDING, "--window", "600..500"])
        .usage_error("tracekit: invalid value '600..500' for '--window <START..END>': END (500) is before START (600)");
    for window in ["abc", "..", "5"] {
        run(&["tracks", RECORDING, "--window", window]).usage_error(&format!(
            "tracekit: invalid value '{window}' for '--window <START..END>': expected START..END, START.. or ..END (milliseconds)"
        ));
    }
    run(&["tracks", RECORDING, "--window", "1..nan"]).usage_error(
        "tracekit: invalid value '1..nan' for '--window <START..END>': not a number of milliseconds: 'nan'",
    );
}

#[test]
fn min_duration_must_be_a_duration() {
    run(&["tracks", RECORDING, "--min-duration", "nan"])
        .usage_error("tracekit: invalid value 'nan' for '--min-duration <MS>': not a number of milliseconds: 'nan'");
    run(&["tracks", RECORDING, "--min-duration", "-1"])
        .usage_error("tracekit: invalid value '-1' for '--min-duration <MS>': a duration cannot be negative: '-1'");
    let out = run(&["tracks", "-q", RECORDING, "--min-duration", "0.2"]).ok().stdout;
    let kept: Vec<&str> = out.lines().filter(|l| l.starts_with("    ")).map(str::trim).collect();
    assert_eq!(
        kept,
        vec!["RunTask  @0.200 +0.300 self 0.300", "RunTask  @2.100 +0.200 self 0.200"]
    );
}

/// The depth of each node line of a text output.
fn depths(text: &str) -> Vec<usize> {
    text.lines()
        .filter(|l| l.starts_with("    "))
        .map(|l| (l.len() - l.trim_start().len()) / 2 - 2)
        .collect()
}

#[test]
fn max_depth_counts_levels() {
    let all = run(&["tracks", "handwritten/truncate.json"]).ok().stdout;
    assert!(depths(&all).iter().any(|&d| d >= 3), "{all}");
    for n in [1, 2, 3] {
        let out = run(&["tracks", "handwritten/truncate.json", "--max-depth", &n.to_string()])
            .ok()
            .stdout;
        let seen = depths(&out);
        assert_eq!(seen.iter().max(), Some(&(n - 1)), "--max-depth {n}:\n{out}");
        assert_eq!(
            seen.len(),
            depths(&all).iter().filter(|&&d| d < n).count(),
            "--max-depth {n}"
        );
    }
    run(&["tracks", RECORDING, "--max-depth", "0"]).usage_error(
        "tracekit: invalid value '0' for '--max-depth <N>': 0 levels would show nothing: 1 shows the roots only",
    );
    run(&["tracks", RECORDING, "--max-depth", "-1"]).usage_error("tracekit: unexpected argument '-1' found");
}

// ---------------------------------------------------------------------------
// Standard input and -o

#[test]
fn a_dash_reads_standard_input_plain_or_gzipped() {
    let from_file = run(&["tracks", NAVIGATION, "--thread", "compositor"]).ok().stdout;
    let gzipped = std::fs::read(fixtures().join(NAVIGATION)).unwrap();
    let from_stdin = run_with(&["tracks", "-", "--thread", "compositor"], Some(gzipped.clone()))
        .ok()
        .stdout;
    assert!(from_file == from_stdin, "gzip on stdin differs");
    let mut plain = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzipped[..]), &mut plain).unwrap();
    let from_stdin = run_with(&["tracks", "-", "--thread", "compositor"], Some(plain))
        .ok()
        .stdout;
    assert!(from_file == from_stdin, "plain text on stdin differs");
    let info = run_with(&["info", "-"], Some(gzipped)).ok().stdout;
    assert_eq!(info.lines().next(), Some("file: <stdin> (363133 bytes, gzip)"));
}

#[test]
fn standard_input_is_named_in_messages() {
    run_with(&["tracks", "-"], Some(Vec::new())).fails(1, "tracekit: <stdin>: empty file\n");
    run_with(&["info", "-"], Some(b"[".to_vec())).fails(
        1,
        "tracekit: <stdin>: byte 1: the trace is truncated before its first event\n",
    );
    let mut cut = std::fs::read(fixtures().join("handwritten/truncated.json")).unwrap();
    cut.truncate(cut.len() - 10);
    let cut = run_with(&["tracks", "-"], Some(cut));
    assert_eq!(cut.code, Some(0));
    assert!(
        cut.stderr
            .starts_with("tracekit: warning: <stdin>: the trace is truncated"),
        "{}",
        cut.stderr
    );
    run_with(&["tracks", "-"], Some(b"[]".to_vec())).fails(1, "tracekit: <stdin>: the trace holds no events\n");
    let only_metadata = br#"[{"name":"process_name","ph":"M","pid":1,"ts":0,"args":{"name":"p"}}]"#;
    run_with(&["tracks", "-", "--thread", "x"], Some(only_metadata.to_vec())).fails(
        1,
        "tracekit: <stdin>: no thread matches 'x'; the trace has no thread with tracks\n",
    );
}

#[test]
fn output_to_a_file() {
    let s = Scratch::new();
    let out = s.path("tracks.txt");
    let stdout = run(&["tracks", RECORDING]).ok().stdout;
    assert_eq!(run(&["tracks", RECORDING, "-o", &out]).ok().stdout, "");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);
    // Replaced, not appended to.
    assert_eq!(run(&["tracks", RECORDING, "--output", &out]).ok().stdout, "");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), stdout);
    // `-o -` is standard output.
    assert_eq!(run(&["tracks", RECORDING, "-o", "-"]).ok().stdout, stdout);
    // info too.
    let info = s.path("info.txt");
    assert_eq!(run(&["info", RECORDING, "-o", &info]).ok().stdout, "");
    assert_eq!(
        std::fs::read_to_string(&info).unwrap(),
        run(&["info", RECORDING]).ok().stdout
    );
}

#[test]
fn output_file_errors() {
    let s = Scratch::new();
    // A failed load leaves no file.
    let out = s.path("never.txt");
    run(&["tracks", "no-such.json", "-o", &out])
        .fails(1, "tracekit: no-such.json: No such file or directory (os error 2)\n");
    assert!(!Path::new(&out).exists());
    run(&["tracks", RECORDING, "--thread", "nosuch", "-o", &out]);
    assert!(!Path::new(&out).exists());
    let bad = s.path("no-dir/out.txt");
    run(&["tracks", RECORDING, "-o", &bad]).fails(
        1,
        &format!("tracekit: {bad}: cannot create the output file: No such file or directory (os error 2)\n"),
    );
}

// ---------------------------------------------------------------------------
// info

#[test]
fn info_of_a_recording() {
    let out = run(&["info", RECORDING]).ok().stdout;
    assert_eq!(
        out,
        "file: handwritten/devtools-recording.json (2437 bytes)\n\
         input: Chrome trace, 2.300 ms, 17 events, 2437 bytes of JSON\n\
         process 100 Browser [not shown by DevTools]\n\
         \x20 thread 101 CrBrowserMain: 4 nodes (4 events, 0 JS calls), no CPU profile\n\
         process 200 https://main.test/ [main frame]\n\
         \x20 thread 201 CrRendererMain: 2 nodes (2 events, 0 JS calls), no CPU profile\n\
         \x20 thread 202 Compositor: 1 node (1 event, 0 JS calls), no CPU profile\n\
         process 300 https://frame.test/\n\
         \x20 thread 301 CrRendererMain: 1 node (1 event, 0 JS calls), no CPU profile\n\
         process 400 https://other.test/ [main frame]\n\
         \x20 thread 401 401: 1 node (1 event, 0 JS calls), no CPU profile\n\
         \x20 thread 402: 1 node (1 event, 0 JS calls), no CPU profile\n\
         process 500 [not shown by DevTools]\n\
         \x20 thread 501: 1 node (1 event, 0 JS calls), no CPU profile\n\
         skipped 1 x frames: SetLayerTreeId, Paint or BeginMainThreadFrame without args.data \
         (first: Paint (event #9) without args.data)\n"
    );
}

#[test]
fn info_of_a_real_trace_names_its_processes() {
    let out = run(&["info", NAVIGATION]).ok().stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "file: traces/navigation.json.gz (363133 bytes, gzip)");
    assert_eq!(
        lines[1],
        "input: Chrome trace, 2197.890 ms, 18912 events, 4996506 bytes of JSON"
    );
    let processes: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("process")).collect();
    assert_eq!(
        processes,
        vec![
            "process 19733 GPU Process [not shown by DevTools]",
            "process 19690 Browser [not shown by DevTools]",
            "process 19783 Renderer http://a.test:32883/navigation-start.html?scale=1 [main frame]",
            "process 0 [not shown by DevTools]",
            "process 19782 Renderer http://b.test:32883/navigation-end.html?scale=1 [main frame]",
        ]
    );
    // Today's DevTools opens more JS calls than June's (docs/devtools-versions.md).
    assert!(
        lines.contains(
            &"  thread 19783 CrRendererMain: 7220 nodes (4270 events, 2950 JS calls), CPU profile of 4533 samples"
        ),
        "{out}"
    );
    let june = run(&["info", NAVIGATION, "--devtools", "2026-06"]).ok().stdout;
    assert!(
        june.lines().any(|l| l
            == "  thread 19783 CrRendererMain: 6580 nodes (4270 events, 2310 JS calls), CPU profile of 4533 samples"),
        "{june}"
    );
    assert!(
        lines.contains(&"  thread 19690 CrBrowserMain: 2211 nodes (2211 events, 0 JS calls), no CPU profile"),
        "{out}"
    );
    // Today's longer JS calls make one trace event end after its parent,
    // which DevTools leaves out too (the tracks are the same as its).
    assert_eq!(
        lines.last(),
        Some(
            &"skipped 1 x tree: entry ends after its parent (left out, as DevTools does) (first: entry at ts \
               1697047900 ends at 1697048080, parent ends at 1697047973)"
        )
    );
    assert_eq!(june.lines().last(), Some("skipped: nothing"));
}

#[test]
fn info_of_several_inputs_goes_on_after_a_failure() {
    let both = run(&[
        "info",
        "handwritten/node.cpuprofile",
        "no-such.json",
        "handwritten/truncated.json",
    ]);
    assert_eq!(both.code, Some(1));
    assert_eq!(
        both.stderr,
        "tracekit: no-such.json: No such file or directory (os error 2)\n"
    );
    assert_eq!(
        both.stdout,
        "file: handwritten/node.cpuprofile (1032 bytes)\n\
         input: CPU profile, 0.900 ms, 0 events, 1032 bytes of JSON\n\
         process 1\n\
         \x20 thread 1: 5 nodes (0 events, 5 JS calls), CPU profile of 9 samples\n\
         skipped: nothing\n\
         \n\
         file: handwritten/truncated.json (553 bytes)\n\
         input: Chrome trace, 0.245 ms, 4 events, 553 bytes of JSON\n\
         process 1\n\
         \x20 thread 1 CrRendererMain: 3 nodes (3 events, 0 JS calls), no CPU profile\n\
         warning: the trace is truncated: loading stopped at byte 469, after 4 events\n\
         skipped: nothing\n"
    );
    run(&["info"]).usage_error("tracekit: the following required arguments were not provided:");
}

// ---------------------------------------------------------------------------
// The text format

#[test]
fn text_format_counts_lines_and_columns_from_one() {
    let text = run(&["tracks", "handwritten/node.cpuprofile"]).ok().stdout;
    assert_eq!(
        text,
        "trace: CpuProfile, 0.900 ms long, times in ms from 1000000 µs\n\
         process 1\n\
         \x20 thread 1\n\
         \x20   js main app.js:3:5  @0.100 +0.700 self 0.100\n\
         \x20     js leaf app.js:9:3  @0.200 +0.600 self 0.500\n\
         \x20       js (garbage collector)  @0.400 +0.100 self 0.100\n\
         \x20   js (idle)  @0.800 +0.100 self 0.100\n\
         \x20   js main app.js:3:5  @0.900 +0.100 self 0.100\n"
    );
    let full = run(&["tracks", "handwritten/node.cpuprofile", "--full-urls"])
        .ok()
        .stdout;
    assert!(full.contains("    js leaf file:///app.js:9:3  @0.200"), "{full}");
    // The JSON formats keep the profile's 0-based numbers.
    let json = run(&["tracks", "handwritten/node.cpuprofile", "--format", "json"])
        .ok()
        .stdout;
    assert!(json.contains(r#""lineNumber":2,"columnNumber":4"#), "{json}");
    let dump = run(&["tracks", "handwritten/node.cpuprofile", "--format", "conformance"])
        .ok()
        .stdout;
    assert!(dump.contains(r#""js:main@file:///app.js:2:4""#), "{dump}");
}

#[test]
fn help_explains_the_formats() {
    let help = run(&["tracks", "--help"]).ok().stdout;
    for line in [
        "          - text:        An indented tree for people and snapshot tests: a line per node with what it is (an event's URL, type, timer or function; a JS call's function and place), its start, duration and self time in ms (docs/text-format.md). These are the panel's tracks: an event nested in another stays under it (the Bottom-Up of `calltree` folds `V8.Execute` into `EvaluateScript`, as DevTools does)",
        "          - json:        One JSON document for viewers, with every field of every node (docs/json-format.md)",
        "          - conformance: The dump compared with the DevTools engine's (raw microseconds)",
    ] {
        assert!(help.lines().any(|l| l == line), "{help}");
    }
    // Where the views differ from the tracks, their help says so.
    let help = run(&["calltree", "--help"]).ok().stdout;
    assert!(
        help.contains("The Bottom-Up folds an event into the one that started it where DevTools does (`V8.Execute` into `EvaluateScript`)"),
        "{help}"
    );
}

// ---------------------------------------------------------------------------
// Completions, man pages, usage errors, warnings

#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_tracekit()"),
        ("zsh", "#compdef tracekit"),
        ("fish", "complete -c tracekit"),
        ("elvish", "tracekit"),
        ("powershell", "tracekit"),
    ] {
        let script = run(&["completions", shell]).ok().stdout;
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("max-depth"), "{shell}");
    }
    run(&["completions", "tcsh"]).usage_error("tracekit: invalid value 'tcsh' for '<SHELL>'");
}

#[test]
fn man_pages() {
    let page = run(&["man"]).ok().stdout;
    assert!(page.contains(".TH tracekit 1"), "{page}");
    assert!(page.contains("tracks"), "{page}");
    let page = run(&["man", "tracks"]).ok().stdout;
    assert!(page.contains(".TH tracekit-tracks 1"), "{page}");
    assert!(page.contains("max\\-depth"), "{page}");
    run(&["man", "nope"]).usage_error("tracekit: invalid value 'nope' for '[SUBCOMMAND]'");
}

#[test]
fn usage_errors_exit_2_and_input_errors_exit_1() {
    run(&["tracks", RECORDING, "--bogus"]).usage_error("tracekit: unexpected argument '--bogus' found");
    run(&["tracks", RECORDING, "--format", "xml"]).usage_error("tracekit: invalid value 'xml' for '--format <FORMAT>'");
    run(&["frobnicate"]).usage_error("tracekit: unrecognized subcommand 'frobnicate'");
    // A trace given without a command: what to type instead.
    run(&[RECORDING]).fails(
        2,
        &format!(
            "tracekit: {RECORDING}: a command comes first; to see what the trace holds: tracekit info {RECORDING}\n"
        ),
    );
    run(&["tracks", "no-such.json"]).fails(1, "tracekit: no-such.json: No such file or directory (os error 2)\n");
    // Help and version are not errors.
    assert!(run(&["--help"]).ok().stdout.contains("Exit status: 0 on success"));
    assert!(run(&["--version"]).ok().stdout.starts_with("tracekit "));
}

#[test]
fn warnings_once_each_and_quiet() {
    let file = "handwritten/truncated.json";
    let warning = "tracekit: warning: handwritten/truncated.json: the trace is truncated: loading stopped at byte 469, after 4 events\n";
    let loud = run(&["tracks", file]);
    assert_eq!(loud.code, Some(0));
    assert_eq!(loud.stderr, warning);
    // --stats does not print the warning a second time.
    let stats = run(&["tracks", file, "--stats"]);
    assert_eq!(
        stats.stderr,
        format!("{warning}input: ChromeTrace, 4 events\nskipped: nothing\n")
    );
    // --quiet, before or after the subcommand.
    for args in [&["-q", "tracks", file][..], &["tracks", file, "--quiet"][..]] {
        let quiet = run(args);
        assert_eq!(quiet.code, Some(0));
        assert_eq!(quiet.stderr, "", "{args:?}");
        assert_eq!(quiet.stdout, loud.stdout);
    }
    // Errors are still printed.
    run(&["-q", "tracks", "no-such.json"]).fails(1, "tracekit: no-such.json: No such file or directory (os error 2)\n");
}

/// `--timings` prints a table of the stages on stderr, the output
/// unchanged; `--threads` goes before or after the subcommand.
#[test]
fn timings_is_a_table_of_stages() {
    let plain = run(&["tracks", "traces/worker.json.gz", "--format", "conformance"]).ok();
    let timed = run(&[
        "--timings",
        "tracks",
        "traces/worker.json.gz",
        "--format",
        "conformance",
        "--threads",
        "2",
    ]);
    assert_eq!(timed.code, Some(0), "{}", timed.stderr);
    assert_eq!(timed.stdout, plain.stdout);
    let lines: Vec<&str> = timed.stderr.lines().collect();
    assert!(
        lines[0].starts_with("stage ") && lines[0].ends_with("MB/s"),
        "{}",
        timed.stderr
    );
    let names: Vec<&str> = lines[1..]
        .iter()
        .take_while(|l| !l.starts_with("total"))
        .map(|l| l.trim_start())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    for stage in ["load", "inflate", "parse", "handlers", "profiles", "trees", "output"] {
        assert!(names.contains(&stage), "{stage} in {}", timed.stderr);
    }
    // The stages inside the load are indented under it.
    assert!(lines.iter().any(|l| l.starts_with("  parse ")), "{}", timed.stderr);
    assert!(lines.iter().any(|l| l.starts_with("load ")), "{}", timed.stderr);
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("input ") && last.contains("MB/s end to end"),
        "{}",
        timed.stderr
    );
    let sequential = run(&[
        "--threads",
        "1",
        "tracks",
        "traces/worker.json.gz",
        "--format",
        "conformance",
    ])
    .ok();
    assert_eq!(sequential.stdout, plain.stdout);
}
