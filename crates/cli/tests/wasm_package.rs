//! The npm package `tracekit` (WebAssembly, crates/wasm), end to end:
//! built by `cargo xtask wasm` (which installs the toolchain and
//! wasm-bindgen-cli on first use), then tested with Node's test runner
//! against this crate's `tracekit` command (the JS tests are in
//! crates/wasm/tests/js/, `docs/wasm.md` says what each checks):
//!
//! - `node_api`: every fixture's dump, chunk sizes and gzip, bad input,
//!   the API against the CLI, `npm pack` and `npm install`;
//! - `browser`: Debian's Chromium (playwright-core) streams fixtures from
//!   a page served on localhost;
//! - `big_trace`: a 700 MB trace generated on the fly, in 64 KiB chunks
//!   (`TRACEKIT_BIG_MB` sets the size).

#[path = "support/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The package, built once per test process by `cargo xtask wasm`.
fn package() -> &'static Path {
    static PACKAGE: OnceLock<PathBuf> = OnceLock::new();
    PACKAGE.get_or_init(|| {
        let out = tools::target_dir().join("wasm-pkg-tests");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["xtask", "wasm", "--out"])
            .arg(&out)
            .current_dir(tools::root())
            .env("CARGO_TARGET_DIR", tools::target_dir())
            .status()
            .expect("running cargo xtask wasm");
        assert!(status.success(), "cargo xtask wasm failed ({status})");
        out
    })
}

/// Runs `node --test` on test files of crates/wasm/tests/js/.
fn node_test(files: &[&str], extra_env: &[(&str, PathBuf)]) {
    let package = package();
    let js = tools::root().join("crates/wasm/tests/js");
    let mut cmd = Command::new("node");
    cmd.arg("--test")
        .arg("--test-reporter=spec")
        .args(files.iter().map(|f| js.join(f)))
        .env("TRACEKIT_PKG", package)
        .env("TRACEKIT_CLI", env!("CARGO_BIN_EXE_tracekit"))
        .env("TRACEKIT_ROOT", tools::root());
    for (name, value) in extra_env {
        cmd.env(name, value);
    }
    let output = cmd.output().expect("running node --test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Shown with `--nocapture`, and on failure.
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        output.status.success(),
        "node --test {files:?} failed; see its output above"
    );
}

#[test]
fn node_api() {
    node_test(
        &[
            "conformance.test.mjs",
            "chunks.test.mjs",
            "errors.test.mjs",
            "api.test.mjs",
            "install.test.mjs",
        ],
        &[],
    );
}

#[test]
fn browser() {
    let chromium = tools::browser();
    node_test(
        &["browser.test.mjs"],
        &[
            ("TRACEKIT_CHROMIUM", chromium),
            ("TRACEKIT_PLAYWRIGHT", tools::node_packages().join("playwright-core")),
        ],
    );
}

#[test]
fn big_trace() {
    node_test(&["big.test.mjs"], &[]);
}
