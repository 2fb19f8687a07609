//! Bounded memory, end to end: a thread whose tracks would exceed the node
//! budget is a one-line error naming it (before the memory is taken), and
//! whitespace between events is never kept.

use std::io::Write;
use std::process::{Command, Stdio};

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn run(args: &[&str], stdin: Vec<u8>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tracekit starts");
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        code: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// A `ProfileChunk` of a chain of `depth` frames sampled alternately deep
/// and shallow, `samples` times, inside one long `EvaluateScript`: the
/// tracks have about `depth * samples / 2` JS calls.
fn deep_alternating_trace(depth: usize, samples: usize) -> Vec<u8> {
    let mut nodes = String::from(
        r#"{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}"#,
    );
    for id in 2..=depth + 1 {
        nodes.push_str(&format!(
            r#",{{"id":{id},"parent":{},"callFrame":{{"functionName":"f{id}","scriptId":"1","url":"a.js","lineNumber":{id},"columnNumber":0}}}}"#,
            id - 1
        ));
    }
    let ids: Vec<String> = (0..samples)
        .map(|i| if i % 2 == 0 { depth + 1 } else { 2 }.to_string())
        .collect();
    let deltas = vec!["10"; samples].join(",");
    format!(
        r#"[{{"name":"thread_name","ph":"M","pid":1,"tid":7,"ts":0,"args":{{"name":"Worker"}}}},
{{"name":"EvaluateScript","ph":"X","pid":1,"tid":7,"ts":1000,"dur":{dur}}},
{{"name":"Profile","ph":"P","pid":1,"tid":7,"ts":1000,"id":"0x1","args":{{"data":{{"startTime":1000}}}}}},
{{"name":"ProfileChunk","ph":"P","pid":1,"tid":7,"ts":1000,"id":"0x1","args":{{"data":{{"cpuProfile":{{"nodes":[{nodes}],"samples":[{samples}]}},"timeDeltas":[{deltas}]}}}}}}]"#,
        dur = samples * 10 + 100,
        samples = ids.join(","),
    )
    .into_bytes()
}

#[test]
fn a_thread_over_the_node_budget_is_an_error_naming_it() {
    let trace = deep_alternating_trace(2_000, 40);
    let over = run(&["tracks", "-", "--max-nodes", "10000"], trace.clone());
    assert_eq!(over.code, Some(1), "{}", over.stderr);
    assert_eq!(
        over.stderr,
        "tracekit: <stdin>: the tracks of Worker (tid 7) have more nodes than the budget allows (at least 10001); choose other threads with --thread, or raise the limit with --max-nodes (about 100 bytes of memory each)\n"
    );
    assert!(over.stdout.is_empty());
    // Under the budget, the same trace loads: 20 deep samples of 2,000
    // calls each, plus the shallow ones and the event.
    let under = run(
        &["tracks", "-", "--max-nodes", "100000", "--format", "conformance"],
        trace,
    );
    assert_eq!(under.code, Some(0), "{}", under.stderr);
    let dump: serde_json::Value = serde_json::from_slice(&under.stdout).unwrap();
    let entries = dump["processes"][0]["threads"][0]["entries"].as_array().unwrap().len();
    assert!(entries > 10_000 && entries <= 100_000, "{entries}");
}

/// The thread over the budget is not built; the others are, and can be
/// chosen; `info` says which one was left out.
#[test]
fn the_other_threads_load_beside_one_over_the_budget() {
    let mut trace = deep_alternating_trace(2_000, 40);
    let close = trace.iter().rposition(|&b| b == b']').unwrap();
    trace.splice(
        close..close,
        br#",{"name":"thread_name","ph":"M","pid":1,"tid":8,"ts":0,"args":{"name":"Light"}},{"name":"Layout","ph":"X","pid":1,"tid":8,"ts":1000,"dur":5}"#
            .iter()
            .copied(),
    );
    let light = run(
        &["tracks", "-", "--max-nodes", "10000", "--thread", "light"],
        trace.clone(),
    );
    assert_eq!(light.code, Some(0), "{}", light.stderr);
    assert_eq!(
        String::from_utf8(light.stdout).unwrap(),
        "trace: ChromeTrace, 0.500 ms long, times in ms from 1000 µs\nprocess 1\n  thread 8 Light\n    Layout  @0.000 +0.005 self 0.005\n"
    );
    let info = run(&["info", "-", "--max-nodes", "10000"], trace);
    assert_eq!(info.code, Some(0), "{}", info.stderr);
    let text = String::from_utf8(info.stdout).unwrap();
    assert!(
        text.contains(
            "  thread 7 Worker: not built, at least 10001 nodes (over the budget), CPU profile of 40 samples\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("skipped 1 x renderer: thread over the node budget (not built) (first: thread Worker (pid 1, tid 7): at least 10001 nodes, more than 10000)"),
        "{text}"
    );
}

#[test]
fn a_profile_over_the_node_budget_is_an_error() {
    let depth = 3_000;
    let mut nodes = String::from(
        r#"{"id":1,"callFrame":{"functionName":"(root)","url":"","scriptId":"0","lineNumber":-1,"columnNumber":-1},"children":[2]}"#,
    );
    for id in 2..=depth + 1 {
        let children = if id <= depth {
            format!(r#","children":[{}]"#, id + 1)
        } else {
            String::new()
        };
        nodes.push_str(&format!(
            r#",{{"id":{id},"callFrame":{{"functionName":"f","url":"a.js","scriptId":"1","lineNumber":{id},"columnNumber":0}}{children}}}"#
        ));
    }
    let samples: Vec<String> = (0..20)
        .map(|i| if i % 2 == 0 { depth + 1 } else { 2 }.to_string())
        .collect();
    let profile = format!(
        r#"{{"nodes":[{nodes}],"startTime":0,"endTime":2000,"samples":[{}],"timeDeltas":[{}]}}"#,
        samples.join(","),
        vec!["100"; 20].join(",")
    );
    let over = run(&["tracks", "-", "--max-nodes", "5000"], profile.into_bytes());
    assert_eq!(over.code, Some(1), "{}", over.stderr);
    assert_eq!(
        over.stderr,
        "tracekit: <stdin>: the profile has more than 5000 track nodes (at least 5001); raise the limit with --max-nodes (about 100 bytes of memory each)\n"
    );
}

/// Runs the command on `stdin`, watching its peak resident memory (Linux's
/// `VmHWM`, read until it exits): the exit code, stdout and the peak in MB.
fn run_watching_memory(args: &[&str], stdin: Vec<u8>) -> (Option<i32>, Vec<u8>, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tracekit starts");
    let status_file = format!("/proc/{}/status", child.id());
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut out).unwrap();
        out
    });
    let mut peak_kb = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    writer.join().unwrap();
    let code = child.wait().unwrap().code();
    (code, reader.join().unwrap(), peak_kb / 1024)
}

/// 400 MB of spaces between two events, streamed from a pipe: loaded, in
/// far less memory than the spaces take (it took more than the input
/// before the tokenizer dropped whitespace as it came).
#[test]
fn whitespace_between_events_is_not_kept() {
    let mut trace = br#"[{"name":"a","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}"#.to_vec();
    trace.extend(std::iter::repeat_n(b' ', 400 << 20));
    trace.extend_from_slice(br#",{"name":"b","ph":"X","pid":1,"tid":1,"ts":2,"dur":1}]"#);
    let (code, stdout, peak_mb) = run_watching_memory(&["tracks", "-", "--format", "conformance"], trace);
    assert_eq!(code, Some(0));
    assert_eq!(
        String::from_utf8(stdout).unwrap(),
        "{\"processes\":[{\"pid\":1,\"url\":null,\"isOnMainFrame\":false,\"threads\":[{\"tid\":1,\"name\":null,\"entries\":[[0,\"a\",1,1,1],[0,\"b\",2,1,1]]}]}],\"bounds\":{\"min\":1,\"max\":3}}\n"
    );
    assert!(peak_mb < 150, "peak memory {peak_mb} MB for 400 MB of whitespace");
}

/// The command's allocator runs with the settings of `.cargo/config.toml`
/// (one arena, for big allocations too, freed pages given back after
/// 300 ms by a background thread): without them a 2 GB trace's peak RSS
/// is half as large again.
/// jemalloc prints the settings it was built with when asked for its
/// statistics.
#[cfg(not(target_env = "msvc"))]
#[test]
fn the_allocator_has_the_settings_of_the_cargo_config() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["info", "-"])
        .env("_RJEM_MALLOC_CONF", "stats_print:true")
        .stdin(Stdio::null())
        .output()
        .expect("tracekit starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let settings = stderr
        .lines()
        .find_map(|line| line.trim().strip_prefix("config.malloc_conf: "))
        .unwrap_or_else(|| panic!("no jemalloc statistics on stderr:\n{stderr}"));
    let config = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.cargo/config.toml")).unwrap();
    let wanted = config
        .lines()
        .find_map(|line| line.strip_prefix("JEMALLOC_SYS_WITH_MALLOC_CONF = "))
        .expect("the setting is in .cargo/config.toml");
    assert_eq!(settings, wanted);
    assert!(settings.contains("narenas:1"), "{settings}");
    assert!(
        stderr.lines().any(|line| line.trim() == "opt.oversize_threshold: 0"),
        "big allocations have an arena of their own:\n{stderr}"
    );
    // Pages are given back by jemalloc's own thread, which it starts
    // only where it can.
    assert!(
        stderr
            .lines()
            .any(|line| line.trim() == "opt.background_thread: true (background_thread: true)"),
        "no background thread:\n{stderr}"
    );
}
