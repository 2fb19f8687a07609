//! The `tracekit` command under test, run in the fixtures directory (so
//! that a test names a fixture by its path under `fixtures/`). Use it from
//! a test file with `#[path = "support/run.rs"] mod run;`.

#![allow(dead_code)] // each test file uses some of it

use std::path::PathBuf;
use std::process::{Command, Output};

/// The fixtures directory.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// `tracekit ARGS` in the fixtures directory: its status and output.
pub fn tracekit(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracekit"))
        .args(args)
        .current_dir(fixtures())
        .output()
        .expect("runs")
}

/// `tracekit ARGS` in the fixtures directory: its exit code, stdout and
/// stderr as text.
pub fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = tracekit(args);
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}
