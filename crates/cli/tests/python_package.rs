//! The Python package `tracekit` (bindings/python), end to end: its wheel
//! built by maturin (in this target directory, dev profile: the tests
//! check behaviour, and the dependencies are already built for the
//! workspace's tests), installed with pip into a virtual environment with
//! the pinned packages of `bindings/python/requirements-test.txt`, then
//! pytest on `bindings/python/tests/` against this crate's `tracekit`
//! command:
//!
//! - `python_package`: `test_tracekit.py`, the API (tables, dump, errors,
//!   export, pandas and Polars, the README's examples);
//! - `spark`: `test_spark.py`, `tracekit.spark` in PySpark's local mode
//!   (`local[2]`, Java 17, installed with apt if missing).

#[path = "support/tools.rs"]
mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The test environment's Python, with the package installed (built once
/// per test process).
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let python = tools::python_requirements("python", "bindings/python/requirements-test.txt");
        let wheels = tools::target_dir().join("python-wheels");
        let _ = std::fs::remove_dir_all(&wheels);
        let status = Command::new(&python)
            .args(["-m", "maturin", "build", "--quiet", "--manifest-path"])
            .arg(tools::root().join("bindings/python/Cargo.toml"))
            .arg("--interpreter")
            .arg(&python)
            .arg("--out")
            .arg(&wheels)
            .env("CARGO_TARGET_DIR", tools::target_dir())
            .status()
            .expect("running maturin");
        assert!(status.success(), "maturin build failed ({status})");
        let wheel = std::fs::read_dir(&wheels)
            .expect("maturin's output")
            .map(|e| e.expect("a wheel").path())
            .find(|p| p.extension().is_some_and(|e| e == "whl"))
            .expect("maturin made a wheel");
        let name = wheel.file_name().unwrap_or_default().to_string_lossy().into_owned();
        // One wheel for every CPython from 3.9 on.
        assert!(name.contains("-cp39-abi3-"), "{name}");
        let status = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps"])
            .arg(&wheel)
            .status()
            .expect("running pip");
        assert!(status.success(), "pip install {} failed ({status})", wheel.display());
        python
    })
}

/// Runs pytest on a test file of bindings/python/tests/.
fn pytest(file: &str) {
    let python = python();
    let tests = tools::root().join("bindings/python/tests");
    let output = Command::new(python)
        .args(["-m", "pytest", "-q", "-rs", "-s", "-p", "no:cacheprovider"])
        .arg(tests.join(file))
        .current_dir(&tests)
        .env("TRACEKIT_CLI", env!("CARGO_BIN_EXE_tracekit"))
        .env("TRACEKIT_ROOT", tools::root())
        .env("PYSPARK_PYTHON", python)
        .output()
        .expect("running pytest");
    // Shown with `--nocapture`, and on failure.
    println!("{}", String::from_utf8_lossy(&output.stdout));
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "pytest {file} failed; see its output above");
}

#[test]
fn python_package() {
    pytest("test_tracekit.py");
}

#[test]
fn spark() {
    tools::apt(&["openjdk-17-jre-headless"], || {
        Command::new("java")
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    pytest("test_spark.py");
}
