//! A web developer's first hour: the README's Quick start runs as written
//! on the bundled fixtures, and the tracks' lines say what each event is.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The commands of the README's "Quick start" section: the lines of its
/// code blocks that start with `tracekit `, and the `tracekit ...` spans
/// in backquotes of its text that name a fixture.
fn quick_start_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("\n## Quick start\n").expect("a Quick start section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut commands = Vec::new();
    let mut prose = String::new();
    let mut in_code = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if in_code {
            if let Some(command) = line.strip_prefix("tracekit ") {
                commands.push(command.to_owned());
            }
        } else {
            prose.push(' ');
            prose.push_str(line);
        }
    }
    for (i, span) in prose.split('`').enumerate() {
        if i % 2 == 1 && span.contains("fixtures/") {
            if let Some(command) = span.strip_prefix("tracekit ") {
                commands.push(command.to_owned());
            }
        }
    }
    commands
}

/// Where tracks and views differ, the text format's page says so.
#[test]
fn the_docs_say_where_tracks_and_views_differ() {
    for doc in ["docs/text-format.md", "docs/views.md"] {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains("folds `V8.Execute` into the `EvaluateScript`"),
            "{doc} says nothing of the Bottom-Up folding V8.Execute"
        );
    }
}

#[test]
fn every_quick_start_recipe_runs() {
    let commands = quick_start_commands();
    // The five recipes (a picture is two), then network, metrics,
    // insights, diff.
    assert_eq!(commands.len(), 10, "{commands:#?}");
    for name in [
        "tracks",
        "calltree",
        "chart",
        "flamegraph",
        "convert",
        "network",
        "metrics",
        "insights",
        "diff",
    ] {
        assert!(
            commands.iter().any(|c| c.starts_with(name)),
            "no {name} recipe: {commands:#?}"
        );
    }
    let dir = std::env::temp_dir().join(format!("tracekit-quick-start-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for command in &commands {
        let args: Vec<String> = command
            .split_whitespace()
            .map(|arg| match arg.strip_prefix("fixtures/") {
                Some(_) => root().join(arg).display().to_string(),
                None => arg.to_owned(),
            })
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "tracekit {command}: {stderr}");
        let written = args
            .iter()
            .position(|a| a == "-o")
            .map(|at| std::fs::metadata(dir.join(&args[at + 1])).map_or(0, |m| m.len()));
        let printed = out.stdout.len() as u64;
        assert!(written.unwrap_or(printed) > 0, "tracekit {command}: no output");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The lines of the events the panel's summary tells apart (a script's
/// URL, an event's type, a request's URL and priority, a timer, a
/// function), and the recording's own work, of the page-load fixture's
/// main thread: scripts, clicks, key presses and requests.
#[test]
fn each_line_says_what_it_is() {
    let out = Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(["tracks", "traces/page-load.json.gz", "--thread", "CrRendererMain"])
        .current_dir(root().join("fixtures"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let names = [
        "EvaluateScript",
        "ParseHTML",
        "EventDispatch",
        "ResourceSendRequest",
        "TimerFire",
        "FunctionCall",
    ];
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            let label = l.trim_start();
            names.iter().any(|n| label.starts_with(&format!("{n} "))) || l.ends_with("[recording overhead]")
        })
        .collect();
    assert!(lines.iter().any(|l| l.contains("EventDispatch click  @")), "{text}");
    insta::with_settings!({
        snapshot_path => "../../../fixtures/snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!("first_hour__page-load-details", lines.join("\n"));
    });
}
