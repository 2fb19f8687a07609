//! The real tools the end-to-end tests read tracekit's outputs with
//! (Chromium with playwright-core, npm packages, Go's pprof, Python
//! packages), installed on first use from the package registries, so that
//! `cargo test` passes on a fresh machine: Debian's packages with apt-get,
//! npm packages with `npm ci` from the committed lockfile of `xtask/js`,
//! Python packages with pip into a virtual environment under `target/`.
//!
//! Each installer runs once per test process, and holds a lock directory
//! under `target/` meanwhile, so that test binaries running at the same
//! time do not install twice. Use it from a test file with
//! `#[path = "support/tools.rs"] mod tools;`.

#![allow(dead_code)] // each test file uses some of the tools

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The target directory the test was built in: where the `tracekit`
/// command under test is (`<target>/<profile>/tracekit`).
pub fn target_dir() -> PathBuf {
    let cli = Path::new(env!("CARGO_BIN_EXE_tracekit"));
    cli.parent()
        .and_then(Path::parent)
        .expect("the command is in <target>/<profile>/")
        .to_path_buf()
}

/// Where installed tools live: `target/test-tools/`.
fn tools_dir() -> PathBuf {
    let dir = target_dir().join("test-tools");
    std::fs::create_dir_all(&dir).expect("creating target/test-tools");
    dir
}

/// A directory for what a test leaves to be looked at (screenshots,
/// exports): `target/test-artifacts/NAME/`, made empty.
pub fn artifacts(name: &str) -> PathBuf {
    let dir = target_dir().join("test-artifacts").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating target/test-artifacts");
    dir
}

/// Runs `f` while holding the lock `name` (a directory under
/// `target/test-tools/`, made atomically), once per process at a time.
fn locked<T>(name: &str, f: impl FnOnce() -> T) -> T {
    static IN_PROCESS: Mutex<()> = Mutex::new(());
    let _guard = IN_PROCESS.lock().unwrap_or_else(|e| e.into_inner());
    let lock = tools_dir().join(format!("{name}.lock"));
    let started = Instant::now();
    while std::fs::create_dir(&lock).is_err() {
        // A lock left by a killed run is stale after ten minutes.
        let stale = lock
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(600));
        if stale {
            let _ = std::fs::remove_dir(&lock);
        }
        assert!(
            started.elapsed() < Duration::from_secs(900),
            "waited 15 minutes for {}",
            lock.display()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    struct Unlock(PathBuf);
    impl Drop for Unlock {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir(&self.0);
        }
    }
    let _unlock = Unlock(lock);
    f()
}

fn run(cmd: &mut Command) {
    let shown = format!("{cmd:?}");
    let status = cmd.status().unwrap_or_else(|e| panic!("running {shown}: {e}"));
    assert!(status.success(), "{shown} failed ({status})");
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Installs Debian packages (as root, non-interactively) unless `present`.
pub fn apt(packages: &[&str], present: impl Fn() -> bool) {
    if present() {
        return;
    }
    locked("apt", || {
        if present() {
            return;
        }
        eprintln!("tools: installing {packages:?} with apt-get");
        run(Command::new("apt-get").args(["-o", "DPkg::Lock::Timeout=600", "update", "-qq"]));
        run(Command::new("apt-get")
            .args([
                "-o",
                "DPkg::Lock::Timeout=600",
                "install",
                "-y",
                "-qq",
                "--no-install-recommends",
            ])
            .args(packages)
            .env("DEBIAN_FRONTEND", "noninteractive"));
    });
}

/// Debian's Chromium: `/usr/bin/chromium`.
pub fn chromium() -> PathBuf {
    let path = PathBuf::from("/usr/bin/chromium");
    apt(&["chromium"], || path.exists());
    path
}

/// `xtask/js/node_modules`, installed by `npm ci` from the lockfile (which
/// pins playwright-core and the other npm packages the tests use).
pub fn node_packages() -> PathBuf {
    let dir = root().join("xtask/js");
    let marker = dir.join("node_modules/.package-lock.json");
    let fresh = || match (marker.metadata(), dir.join("package-lock.json").metadata()) {
        (Ok(m), Ok(l)) => m.modified().ok() >= l.modified().ok(),
        _ => false,
    };
    if !fresh() {
        locked("npm", || {
            if !fresh() {
                eprintln!("tools: npm ci in {}", dir.display());
                run(Command::new("npm")
                    .args(["ci", "--no-audit", "--no-fund"])
                    .current_dir(&dir));
            }
        });
    }
    dir.join("node_modules")
}

/// Chromium and playwright-core, for a Node script of the tests.
pub fn browser() -> PathBuf {
    let chromium = chromium();
    node_packages();
    chromium
}

/// The `go` command (Debian's `golang-go`), for `go tool pprof`.
pub fn go() -> PathBuf {
    apt(&["golang-go"], || on_path("go"));
    PathBuf::from("go")
}

/// Makes the virtual environment `venv` unless it exists, with Debian's
/// Python and its `venv` module (installed with apt if missing: Debian
/// ships `ensurepip` apart, in python3-venv).
fn make_venv(venv: &Path) {
    if venv.join("bin/python").exists() {
        return;
    }
    apt(&["python3", "python3-venv"], || {
        Command::new("python3")
            .args(["-c", "import ensurepip, venv"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    run(Command::new("python3").args(["-m", "venv"]).arg(venv));
}

/// A Python with `requirement` installed (pip, into a virtual environment
/// of the tests under `target/test-tools/venv`), checked by importing
/// `module`. Returns the environment's `python`.
pub fn python_with(requirement: &str, module: &str) -> PathBuf {
    let venv = tools_dir().join("venv");
    let python = venv.join("bin/python");
    let has = |python: &Path| {
        Command::new(python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has(&python) {
        locked("pip", || {
            make_venv(&venv);
            if !has(&python) {
                eprintln!("tools: pip install {requirement}");
                run(Command::new(&python).args(["-m", "pip", "install", "--quiet", requirement]));
            }
        });
    }
    python
}

/// A Python with the pinned packages of the requirements file
/// `requirements` (relative to the workspace root) installed by pip into a
/// virtual environment of its own, `target/test-tools/venv-NAME`; they
/// are installed again when the file changes. Returns its `python`.
pub fn python_requirements(name: &str, requirements: &str) -> PathBuf {
    let venv = tools_dir().join(format!("venv-{name}"));
    let python = venv.join("bin/python");
    let wanted = std::fs::read_to_string(root().join(requirements)).expect("reading the requirements");
    let marker = venv.join("installed-requirements.txt");
    let fresh = || std::fs::read_to_string(&marker).is_ok_and(|installed| installed == wanted);
    if !fresh() {
        locked("pip", || {
            if fresh() {
                return;
            }
            make_venv(&venv);
            eprintln!("tools: pip install -r {requirements}");
            run(Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(root().join(requirements)));
            std::fs::write(&marker, &wanted).expect("writing the venv's marker");
        });
    }
    python
}
