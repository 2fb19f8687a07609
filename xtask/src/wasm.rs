//! `cargo xtask wasm`: builds the npm package `tracekit` (crates/wasm) into
//! a directory, installing what is missing on the way: the WebAssembly
//! toolchain and `wasm-bindgen-cli` at the version of the `wasm-bindgen`
//! crate in Cargo.lock (`docs/wasm.md`, "Building").
//!
//! The toolchain is rustup's `wasm32-unknown-unknown` target where rustup
//! can add it; else Debian's `rustc-web`, `cargo-web`, `rust-web-src` and
//! `lld-22`, with the standard library built for the target
//! (`-Zbuild-std`, `RUSTC_BOOTSTRAP=1`: Debian ships no prebuilt one).
//! Each toolchain builds in a target directory of its own (a change of
//! rustc rebuilds everything), under the workspace's target directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

/// The WebAssembly target.
const TARGET: &str = "wasm32-unknown-unknown";
/// Debian's packages of the toolchain for a target rustup cannot add.
const DEBIAN_PACKAGES: &[&str] = &["rustc-web", "cargo-web", "rust-web-src", "lld-22"];
/// The linker of the Debian toolchain (rustc's default, `rust-lld`, is
/// rustup's).
const DEBIAN_WASM_LD: &str = "/usr/lib/llvm-22/bin/wasm-ld";
/// Where `rust-web-src` puts the standard library's sources: the
/// sysroot (`/usr`) of Debian's rustc, where `-Zbuild-std` looks.
const DEBIAN_STD_SOURCES: &str = "/usr/lib/rustlib/src/rust/library/Cargo.lock";
/// The package's files copied from crates/wasm/js/ as they are.
const PACKAGE_FILES: &[&str] = &["tracekit.js", "tracekit.d.ts", "README.md", "demo/index.html"];
/// The flame chart's renderer, `tracekit chart`'s own
/// (`crates/export/src/export/chart/renderer.js`), copied into the
/// package as this file: the demo draws with it, and so can a page of
/// the package's users.
const CHART_RENDERER: &str = "chart/renderer.js";
/// The files wasm-bindgen writes (`--out-name tracekit_wasm`).
const GLUE_FILES: &[&str] = &["tracekit_wasm.js", "tracekit_wasm_bg.wasm"];

/// Which compiler builds the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Toolchain {
    /// rustup's target if it is installed or can be added, else Debian's.
    Auto,
    /// rustup's `wasm32-unknown-unknown` target (added if missing).
    Rustup,
    /// Debian's `rustc-web` with the standard library built for the target.
    Debian,
}

#[derive(clap::Args)]
pub struct WasmArgs {
    /// Where to write the package (default: wasm-pkg in the target directory).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Which toolchain builds the module.
    #[arg(long, value_enum, default_value_t = Toolchain::Auto)]
    toolchain: Toolchain,
}

/// Builds the package; prints where it is and the size of its module.
pub fn run(args: WasmArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let target_dir = target_dir();
    let out = args.out.unwrap_or_else(|| target_dir.join("wasm-pkg"));
    let toolchain = match args.toolchain {
        Toolchain::Auto if rustup_has_target(true) => Toolchain::Rustup,
        Toolchain::Auto => Toolchain::Debian,
        Toolchain::Rustup if !rustup_has_target(true) => bail!("rustup cannot add the {TARGET} target"),
        chosen => chosen,
    };
    let module = build_module(toolchain, &target_dir)?;
    let bindgen = ensure_wasm_bindgen(&target_dir)?;
    write_package(&bindgen, &module, &out)?;
    let wasm = std::fs::read(out.join("tracekit_wasm_bg.wasm"))?;
    eprintln!(
        "xtask: built the npm package tracekit in {} ({toolchain:?} toolchain, {:.0} s): tracekit_wasm_bg.wasm is {} bytes, {} gzipped",
        out.display(),
        started.elapsed().as_secs_f64(),
        wasm.len(),
        gzipped_len(&wasm)?
    );
    Ok(())
}

/// The workspace's target directory (`CARGO_TARGET_DIR`, or `target/`).
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| crate::root().join("target"), PathBuf::from)
}

/// The cargo that runs xtask (rustup's proxy, usually).
fn host_cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

fn status(cmd: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{cmd:?}");
    let status = cmd.status().with_context(|| format!("running {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

/// Whether rustup's toolchain has the target, adding it if `add` (rustup
/// may reach no server: the attempt is given two minutes).
fn rustup_has_target(add: bool) -> bool {
    let installed = Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).lines().any(|l| l.trim() == TARGET));
    if installed || !add {
        return installed;
    }
    eprintln!("xtask: adding the {TARGET} target with rustup");
    let Ok(mut child) = Command::new("rustup")
        .args(["target", "add", TARGET])
        .stdout(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success() && rustup_has_target(false),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                eprintln!("xtask: rustup could not add {TARGET} in time; using Debian's toolchain");
                return false;
            }
        }
    }
}

/// Installs Debian's toolchain packages that are missing.
fn ensure_debian_toolchain() -> anyhow::Result<()> {
    let missing: Vec<&str> = DEBIAN_PACKAGES
        .iter()
        .copied()
        .filter(|p| {
            !Command::new("dpkg-query")
                .args(["-W", "-f=${Status}", p])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing {missing:?} with apt-get");
    status(Command::new("apt-get").args(["-o", "DPkg::Lock::Timeout=600", "update", "-qq"]))?;
    status(
        Command::new("apt-get")
            .args([
                "-o",
                "DPkg::Lock::Timeout=600",
                "install",
                "-y",
                "-qq",
                "--no-install-recommends",
            ])
            .args(&missing)
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
    .context("installing the WebAssembly toolchain (run as root, or install the packages yourself)")
}

/// Compiles crates/wasm for the target; returns the module's path.
fn build_module(toolchain: Toolchain, target_dir: &Path) -> anyhow::Result<PathBuf> {
    let dir = target_dir.join(format!("wasm-build-{}", format!("{toolchain:?}").to_lowercase()));
    let mut cmd = match toolchain {
        Toolchain::Debian => {
            ensure_debian_toolchain()?;
            if !Path::new(DEBIAN_STD_SOURCES).exists() {
                bail!("{DEBIAN_STD_SOURCES} is missing: is rust-web-src installed?");
            }
            let mut cmd = Command::new("/usr/bin/cargo");
            cmd.env("RUSTC", "/usr/bin/rustc")
                .env("RUSTDOC", "/usr/bin/rustdoc")
                // -Zbuild-std is unstable: Debian's stable rustc allows it
                // with this.
                .env("RUSTC_BOOTSTRAP", "1")
                .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER", DEBIAN_WASM_LD)
                .args(["build", "-Zbuild-std=std,panic_abort"]);
            cmd
        }
        Toolchain::Rustup | Toolchain::Auto => {
            let mut cmd = Command::new(host_cargo());
            cmd.arg("build");
            cmd
        }
    };
    cmd.args([
        "--release",
        "--locked",
        "--package",
        "tracekit-wasm",
        "--lib",
        "--target",
        TARGET,
    ])
    .current_dir(crate::root())
    .env("CARGO_TARGET_DIR", &dir)
    // The module is shipped: no debug info (the workspace's release
    // profile keeps some for native profiling), one codegen unit and
    // LTO for a smaller and faster module.
    .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
    .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
    .env("CARGO_PROFILE_RELEASE_LTO", "true")
    .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
    .env_remove("RUSTFLAGS")
    .env_remove("CARGO_ENCODED_RUSTFLAGS")
    // SIMD (memchr's search for quotes and brackets is most of the
    // scanning): every engine since 2023 has it (Node >= 16.4,
    // Chrome 91, Firefox 89, Safari 16.4).
    .env(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
        "-Ctarget-feature=+simd128",
    );
    eprintln!("xtask: compiling crates/wasm for {TARGET} ({toolchain:?} toolchain)");
    status(&mut cmd)?;
    Ok(dir.join(TARGET).join("release/tracekit_wasm.wasm"))
}

/// The version of the `wasm-bindgen` crate in Cargo.lock.
fn locked_wasm_bindgen_version() -> anyhow::Result<String> {
    let lock = std::fs::read_to_string(crate::root().join("Cargo.lock")).context("reading Cargo.lock")?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == "name = \"wasm-bindgen\"" {
            if let Some(version) = lines.next().and_then(|l| l.strip_prefix("version = \"")) {
                return Ok(version.trim_end_matches('"').to_owned());
            }
        }
    }
    bail!("Cargo.lock has no wasm-bindgen package")
}

/// `wasm-bindgen` at the version of the crate, installed with `cargo
/// install` into `<target dir>/wasm-tools` when missing.
fn ensure_wasm_bindgen(target_dir: &Path) -> anyhow::Result<PathBuf> {
    let version = locked_wasm_bindgen_version()?;
    let tools = target_dir.join("wasm-tools");
    let bin = tools.join("bin/wasm-bindgen");
    let installed = Command::new(&bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == format!("wasm-bindgen {version}"));
    if installed {
        return Ok(bin);
    }
    eprintln!("xtask: installing wasm-bindgen-cli {version} into {}", tools.display());
    let install = |locked: bool| {
        let mut cmd = Command::new(host_cargo());
        // Only the `wasm-bindgen` binary, without the default TLS stack
        // (rustls and ring, for the test runner's downloads): fewer crates
        // to build on a fresh machine.
        cmd.args(["install", "wasm-bindgen-cli", "--force", "--bin", "wasm-bindgen"])
            .arg("--no-default-features")
            .arg("--version")
            .arg(format!("={version}"))
            .arg("--root")
            .arg(&tools)
            .arg("--target-dir")
            .arg(tools.join("build"))
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("RUSTFLAGS");
        if locked {
            cmd.arg("--locked");
        }
        status(&mut cmd)
    };
    // The lockfile it was published with, if the registry still has every
    // version it names; else the newest compatible dependencies.
    install(true).or_else(|_| install(false))?;
    Ok(bin)
}

/// Runs wasm-bindgen on the module and writes the package's other files.
fn write_package(bindgen: &Path, module: &Path, out: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    status(
        Command::new(bindgen)
            .args([
                "--target",
                "web",
                "--no-typescript",
                "--out-name",
                "tracekit_wasm",
                "--out-dir",
            ])
            .arg(out)
            .arg(module),
    )?;
    let js = crate::root().join("crates/wasm/js");
    let renderer = crate::root().join("crates/export/src/export/chart/renderer.js");
    let copies = PACKAGE_FILES
        .iter()
        .map(|name| (js.join(name), *name))
        .chain([(renderer, CHART_RENDERER)]);
    for (from, name) in copies {
        let to = out.join(name);
        if let Some(dir) = to.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(&from, &to).with_context(|| format!("copying {}", from.display()))?;
    }
    std::fs::write(out.join("package.json"), package_json()).context("writing package.json")?;
    Ok(())
}

/// The package's manifest: an ES module with its types, for Node >= 20
/// and browsers.
fn package_json() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let mut files: Vec<&str> = PACKAGE_FILES.to_vec();
    files.extend(GLUE_FILES);
    files.push(CHART_RENDERER);
    let files: Vec<String> = files.iter().map(|f| format!("\"{f}\"")).collect();
    format!(
        r#"{{
  "name": "tracekit",
  "version": "{version}",
  "description": "The DevTools Performance panel's thread tracks of Chrome traces and JS CPU profiles of any size, in WebAssembly, for Node and browsers.",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "./tracekit.js",
  "module": "./tracekit.js",
  "types": "./tracekit.d.ts",
  "exports": {{
    ".": {{
      "types": "./tracekit.d.ts",
      "default": "./tracekit.js"
    }},
    "./tracekit_wasm_bg.wasm": "./tracekit_wasm_bg.wasm",
    "./{CHART_RENDERER}": "./{CHART_RENDERER}",
    "./package.json": "./package.json"
  }},
  "files": [{}],
  "sideEffects": ["./{CHART_RENDERER}"],
  "engines": {{
    "node": ">=20"
  }},
  "keywords": ["trace", "chrome", "devtools", "performance", "cpuprofile", "flame chart", "webassembly"]
}}
"#,
        files.join(", ")
    )
}

/// The size of `bytes` gzipped (at the default level, as servers do).
fn gzipped_len(bytes: &[u8]) -> anyhow::Result<usize> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?.len())
}
