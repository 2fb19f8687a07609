//! `tracekit mcp` driven by the official MCP SDKs, as agents meet it: the
//! Python SDK (`mcp`, pinned in tests/support/mcp-requirements.txt) lists
//! the tools and calls each, and the answers are those of the commands,
//! within the budget; bad requests are one-line tool errors and the
//! server keeps serving, two requests at once included. The TypeScript
//! SDK (`@modelcontextprotocol/sdk`, in xtask/js's lockfile) does the same
//! in brief, and the MCP Inspector's CLI mode (same lockfile) lists the
//! tools and calls one.

#[path = "support/tools.rs"]
mod tools;

use std::process::Command;

fn tracekit(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// What the Python client saw, with the server's extra arguments.
fn python_session(server_args: &[&str]) -> serde_json::Value {
    let python = tools::python_requirements("mcp", "crates/cli/tests/support/mcp-requirements.txt");
    let root = tools::root();
    let out = Command::new(python)
        .arg(root.join("crates/cli/tests/support/mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_tracekit"))
        .arg(root.join("fixtures"))
        .args(server_args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_python_sdk_lists_and_calls_every_tool() {
    let seen = python_session(&[]);
    assert_eq!(seen["server"][0], "tracekit");
    let tools = seen["tools"].as_object().unwrap();
    let mut names: Vec<&str> = tools.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "analyze_insight",
            "call_tree",
            "event",
            "main_thread_activity",
            "network_requests",
            "trace_summary"
        ]
    );
    for (name, tool) in tools {
        let schema = &tool["schema"];
        assert_eq!(schema["type"], "object", "{name}");
        let required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert!(required.contains(&"path"), "{name}: {required:?}");
        for field in &required {
            assert!(schema["properties"][field]["description"].is_string(), "{name}.{field}");
        }
        assert!(schema["properties"]["path"]["description"].is_string(), "{name}");
        assert!(tool["description"].as_str().unwrap().len() > 50, "{name}");
    }
    // The answers are the commands'.
    let page = tools::root().join("fixtures/traces/page-load.json.gz");
    let page = page.to_str().unwrap();
    let expected = tracekit(&["calltree", page, "--thread", "CrRendererMain", "--max-depth", "2", "-q"]);
    assert_eq!(seen["call_tree"]["text"], expected.as_str());
    assert_eq!(seen["call_tree"]["error"], false);
    let bottom_up = seen["bottom_up"]["text"].as_str().unwrap();
    assert!(bottom_up.starts_with("Bottom-Up, window "), "{bottom_up}");
    // min_percent 1: no row under 1% of the window.
    let rows = bottom_up
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()));
    for line in rows {
        let total: f64 = line
            .split('(')
            .nth(2)
            .unwrap()
            .split('%')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(total >= 1.0, "{line}");
    }
    let network = tracekit(&["network", page]);
    let pngs: Vec<&str> = network.lines().filter(|l| l.to_lowercase().contains("png")).collect();
    let answer = seen["network"]["text"].as_str().unwrap();
    assert_eq!(answer.lines().next(), network.lines().next(), "the header");
    assert_eq!(answer.lines().last(), network.lines().last(), "the legend");
    let rows: Vec<&str> = answer.lines().skip(1).filter(|l| !l.starts_with('(')).collect();
    assert_eq!(rows, pngs);
    assert!(!pngs.is_empty());
    // The whole call tree fits the default budget of 25,000 tokens.
    let whole = seen["whole"]["text"].as_str().unwrap();
    assert_eq!(whole, tracekit(&["calltree", page, "-q"]));
    // chrome-devtools-mcp's texts, as its own code writes them (the
    // goldens of `cargo xtask oracle --agent`, a line added at the end).
    let golden =
        |name: &str| std::fs::read_to_string(tools::root().join("fixtures/expected/2026-10/agent").join(name)).unwrap();
    for name in ["causes", "page-load"] {
        let answer = &seen["summary"][name];
        assert_eq!(answer["error"], false, "{name}");
        assert_eq!(
            format!("{}\n", answer["text"].as_str().unwrap()),
            golden(&format!("{name}.summary.txt")),
            "{name}"
        );
    }
    assert_eq!(
        format!("{}\n", seen["insight"]["text"].as_str().unwrap()),
        golden("causes.insight.NO_NAVIGATION.INPBreakdown.txt")
    );
    assert_eq!(
        format!("{}\n", seen["event"]["text"].as_str().unwrap()),
        golden("causes.calltree.r-2212.txt")
    );
    // The main thread activity: the command's, DevTools' own (the golden
    // of `cargo xtask oracle --agent`), whole and over a window.
    let page_load = tools::root().join("fixtures/traces/page-load.json.gz");
    let page_load = page_load.to_str().unwrap();
    let activity = &seen["activity"];
    assert_eq!(activity["whole"]["error"], false, "{activity}");
    assert_eq!(activity["whole"]["text"], golden("page-load.activity.txt").as_str());
    assert_eq!(
        activity["whole"]["text"],
        tracekit(&["agent", "activity", page_load]).as_str()
    );
    let window = tracekit(&["agent", "activity", page_load, "--window", "22594404431,22594628433"]);
    assert_eq!(activity["window"]["text"], window.as_str());
    assert_ne!(activity["window"]["text"], activity["whole"]["text"]);
    assert!(window.contains("- total time: "), "{window}");
    assert_eq!(activity["bad_window"]["error"], true, "{activity}");
    let bad_window = activity["bad_window"]["text"].as_str().unwrap();
    assert!(bad_window.starts_with("tracekit: window: "), "{bad_window}");
    assert_eq!(bad_window.lines().count(), 1, "{bad_window}");
    for k in ["bad_insight", "bad_key"] {
        assert_eq!(seen[k]["error"], true, "{k}");
        assert_eq!(seen[k]["text"].as_str().unwrap().lines().count(), 1, "{k}: {}", seen[k]);
    }
    // Bad requests: one line each, the tool's error.
    let bad = &seen["bad"];
    let line = |k: &str| {
        assert_eq!(bad[k]["error"], true, "{k}");
        let text = bad[k]["text"].as_str().unwrap().to_owned();
        assert_eq!(text.lines().count(), 1, "{k}: {text}");
        assert!(text.starts_with("tracekit: "), "{k}: {text}");
        text
    };
    assert!(line("outside").contains("outside the server's roots"));
    assert!(line("missing").contains("cannot be read"));
    assert!(line("not_a_trace").contains("known-differences.txt"));
    assert!(line("window").contains("window"));
    assert!(line("thread").contains("NoSuchThread"));
    assert_eq!(seen["no_path"]["error"], true);
    assert!(
        seen["no_path"]["text"].as_str().unwrap().contains("path"),
        "{}",
        seen["no_path"]
    );
    // The client's roots, when the server is given none.
    let roots = &seen["client_roots"];
    assert_eq!(roots["inside"]["text"], network.as_str());
    assert!(
        roots["outside"]["text"]
            .as_str()
            .unwrap()
            .contains("outside the server's roots"),
        "{roots}"
    );
    // Two at once, after the errors: both answered.
    for answer in seen["together"].as_array().unwrap() {
        assert_eq!(answer["error"], false, "{answer}");
    }
}

#[test]
fn answers_past_the_budget_are_cut_and_say_how_to_narrow() {
    let seen = python_session(&["--max-tokens", "400"]);
    let whole = seen["whole"]["text"].as_str().unwrap();
    assert!(whole.len() <= 1600, "{}", whole.len());
    let last = whole.lines().last().unwrap();
    assert!(last.starts_with("[cut here: the whole answer is about "), "{last}");
    assert!(
        last.ends_with("narrow it with `thread`, `window`, `max_depth` or `min_percent`]"),
        "{last}"
    );
    let activity = seen["activity"]["whole"]["text"].as_str().unwrap();
    assert!(activity.len() <= 1600, "{}", activity.len());
    assert!(
        activity.lines().last().unwrap().ends_with("narrow it with `window`]"),
        "{activity}"
    );
    let page = tools::root().join("fixtures/traces/page-load.json.gz");
    let full = tracekit(&["calltree", page.to_str().unwrap(), "-q"]);
    let kept = &whole[..whole.len() - last.len() - 1];
    assert!(full.starts_with(kept), "the cut answer is the start of the whole");
}

#[test]
fn the_typescript_sdk_lists_and_calls_the_tools() {
    let packages = tools::node_packages();
    let root = tools::root();
    let out = Command::new("node")
        .arg(root.join("crates/cli/tests/support/mcp_client.mjs"))
        .arg(packages.join("@modelcontextprotocol/sdk"))
        .arg(env!("CARGO_BIN_EXE_tracekit"))
        .arg(root.join("fixtures"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["server"]["name"], "tracekit");
    let tools = seen["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 6);
    assert!(tools
        .iter()
        .all(|t| t["required"].as_array().unwrap().contains(&"path".into())));
    let main = root.join("fixtures/traces/main-thread.json.gz");
    let expected = tracekit(&[
        "calltree",
        main.to_str().unwrap(),
        "--thread",
        "CrRendererMain",
        "--max-depth",
        "1",
    ]);
    assert_eq!(seen["callTree"]["text"], expected.as_str());
    let activity = tracekit(&[
        "agent",
        "activity",
        main.to_str().unwrap(),
        "--window",
        "1686325399,1686420609",
    ]);
    assert_eq!(seen["activity"]["text"], activity.as_str());
    assert!(activity.contains("# Main thread bottom-up summary"), "{activity}");
    assert_eq!(seen["outside"]["error"], true);
    assert!(seen["outside"]["text"]
        .as_str()
        .unwrap()
        .contains("outside the server's roots"));
    let page = root.join("fixtures/traces/page-load.json.gz");
    assert_eq!(
        seen["network"]["text"],
        tracekit(&["network", page.to_str().unwrap()]).as_str()
    );
}

/// What the MCP Inspector's CLI mode (`npx @modelcontextprotocol/inspector
/// --cli`, pinned in xtask/js's lockfile, run by the Node 22 of the same
/// lockfile: it needs 22.19 or later) printed for `tracekit mcp --root
/// fixtures` and `ARGS`.
fn inspector(args: &[&str]) -> String {
    let packages = tools::node_packages();
    let bin = packages.join(".bin");
    let path = std::env::join_paths(
        std::iter::once(bin.clone()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let out = Command::new(bin.join("node"))
        .arg(packages.join("@modelcontextprotocol/inspector/clients/launcher/build/index.js"))
        .arg("--cli")
        .arg(env!("CARGO_BIN_EXE_tracekit"))
        .args(["mcp", "--root"])
        .arg(tools::root().join("fixtures"))
        .args(args)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the inspector failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_mcp_inspector_lists_the_tools_and_calls_one() {
    // --strict: it fails on a tool schema that clients would reject.
    let listed: serde_json::Value = serde_json::from_str(&inspector(&["--method", "tools/list", "--strict"])).unwrap();
    let tools = listed["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "analyze_insight",
            "call_tree",
            "event",
            "main_thread_activity",
            "network_requests",
            "trace_summary"
        ]
    );
    for tool in tools {
        let required = tool["inputSchema"]["required"].as_array().unwrap();
        assert!(required.contains(&"path".into()), "{tool}");
    }
    let activity = tools.iter().find(|t| t["name"] == "main_thread_activity").unwrap();
    assert!(
        activity["inputSchema"]["properties"]["window"]["description"].is_string(),
        "{activity}"
    );
    let called: serde_json::Value = serde_json::from_str(&inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "trace_summary",
        "--tool-arg",
        "path=traces/causes.json.gz",
    ]))
    .unwrap();
    assert_ne!(called["isError"], true, "{called}");
    let golden =
        std::fs::read_to_string(tools::root().join("fixtures/expected/2026-10/agent/causes.summary.txt")).unwrap();
    assert_eq!(format!("{}\n", called["content"][0]["text"].as_str().unwrap()), golden);
}
