//! Tidy: the workspace's own rules, checked by `cargo test` (after
//! rust-analyzer's `tidy.rs`). The test reads the files of the workspace
//! (the `Cargo.toml` files with the `toml` crate, the `.rs` files as text,
//! comments and string literals blanked out) and fails with one line per
//! violation: the file and line, the rule, and what to do about it.
//!
//! 1. `layers`: which workspace crate may depend on which (normal
//!    dependencies, target-specific ones included; not dev-dependencies),
//!    from the table [`LAYERS`]. A workspace crate missing from the table
//!    is an error too.
//! 2. `lints`: every workspace member says `[lints] workspace = true`,
//!    except the crates of [`OWN_LINTS`], each with its reason.
//! 3. `no-io`: the library crates ([`LIBRARY_CRATES`]) neither touch files,
//!    the network, processes, the environment or the console, nor spawn
//!    threads, in their `src/` outside test code, except where
//!    [`IO_ALLOWED`] says so.
//! 4. `docs`: every public item is documented. The workspace lints set
//!    `missing_docs = "deny"` and rule 2 puts every crate under them, so
//!    the compiler checks it (an exception with lints of its own must deny
//!    it too). This
//!    test checks that the workspace keeps that lint at "deny" and that no
//!    source opens it again with `allow(missing_docs)` or
//!    `expect(missing_docs)` ([`MISSING_DOCS_ALLOWED`] aside).
//! 5. `file-size`: no source file of a workspace crate is over
//!    [`MAX_FILE_LINES`] lines ([`LONG_FILES`]: today's, to be split).
//! 6. `fn-size`: no function is over [`MAX_FN_LINES`] lines ([`LONG_FNS`]:
//!    today's, to be split).
//!
//! Test code is left out of rules 3, 5 and 6: the files under a `tests/`
//! directory (a crate's integration tests), the files named `tests.rs` and
//! those declared by `#[cfg(test)] mod name;`; and, out of rules 3 and 6,
//! the items under `#[cfg(test)]` (found by a heuristic: the attribute's
//! item ends at its first `;` or at the end of its first `{}` block; an
//! inline test module still counts in its file's lines). Generated files
//! (`@generated` in their first lines) and vendored ones (under a `vendor/`
//! directory) are left out of rules 5 and 6. The allowlists are checked
//! both ways: an entry that no longer applies must be removed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------
// The tables. Edit these.
// ---------------------------------------------------------------------------

/// What a crate may depend on among the workspace crates.
enum MayUse {
    /// Only these.
    Only(&'static [&'static str]),
    /// Anything: tools and test support, which no library crate uses.
    Anything,
}

/// A crate of the layer table: its name, its layer (for the messages) and
/// the workspace crates it may depend on.
struct Layer {
    name: &'static str,
    layer: &'static str,
    may_use: MayUse,
}

const fn only(name: &'static str, layer: &'static str, may_use: &'static [&'static str]) -> Layer {
    Layer {
        name,
        layer,
        may_use: MayUse::Only(may_use),
    }
}

const fn tool(name: &'static str) -> Layer {
    Layer {
        name,
        layer: "tools",
        may_use: MayUse::Anything,
    }
}

/// Rule 1: the workspace's layers, top to bottom. A crate may depend on the
/// crates its row names, no others of the workspace. A new crate gets a row
/// here: a new analysis crate (such as `tracekit-insights`) is like
/// `tracekit-views`, and goes into the facade's row; a new handler crate is
/// like `tracekit-meta`, and goes into the engine's row (and the rows of
/// the handler crates above it).
const LAYERS: &[Layer] = &[
    // The front ends: the command, the npm package, the Python package.
    only(
        "tracekit-cli",
        "front ends",
        &["tracekit", "tracekit-tables", "tracekit-diff", "tracekit-alloc"],
    ),
    only(
        "tracekit-wasm",
        "front ends",
        &["tracekit", "tracekit-tables", "tracekit-diff"],
    ),
    only(
        "tracekit-python",
        "front ends",
        &["tracekit", "tracekit-tables", "tracekit-diff"],
    ),
    // The Arrow tables and their Parquet export, over the facade.
    only("tracekit-tables", "tables", &["tracekit"]),
    // The comparison of two traces or two sets of runs, over the facade.
    only("tracekit-diff", "diff", &["tracekit"]),
    // The facade: the library's API, re-exporting the crates below.
    only(
        "tracekit",
        "facade",
        &[
            "tracekit-engine",
            "tracekit-views",
            "tracekit-export",
            "tracekit-insights",
            "tracekit-lantern",
            "tracekit-agent",
        ],
    ),
    // The analysis crates, over the engine.
    only("tracekit-views", "analysis", &["tracekit-engine"]),
    only("tracekit-export", "analysis", &["tracekit-engine"]),
    only(
        "tracekit-insights",
        "analysis",
        &["tracekit-engine", "tracekit-lantern"],
    ),
    only("tracekit-lantern", "analysis", &["tracekit-engine"]),
    // The texts an AI agent is given, from the insights.
    only("tracekit-agent", "analysis", &["tracekit-engine", "tracekit-insights"]),
    // The engine: loading, the handler registry, the Analysis.
    only(
        "tracekit-engine",
        "engine",
        &[
            "tracekit-events",
            "tracekit-cpuprofile",
            "tracekit-meta",
            "tracekit-samples",
            "tracekit-page",
            "tracekit-renderer",
            "tracekit-system",
            "tracekit-causes",
            "tracekit-timeline",
            "tracekit-frames",
            "tracekit-sourcemaps",
        ],
    ),
    // The handler crates, top to bottom: each may use the foundation and
    // the handler crates below it.
    only(
        "tracekit-frames",
        "handlers",
        &[
            "tracekit-events",
            "tracekit-cpuprofile",
            "tracekit-meta",
            "tracekit-page",
            "tracekit-renderer",
        ],
    ),
    only(
        "tracekit-timeline",
        "handlers",
        &[
            "tracekit-events",
            "tracekit-cpuprofile",
            "tracekit-meta",
            "tracekit-page",
        ],
    ),
    only(
        "tracekit-renderer",
        "handlers",
        &[
            "tracekit-events",
            "tracekit-cpuprofile",
            "tracekit-page",
            "tracekit-samples",
            "tracekit-meta",
        ],
    ),
    only(
        "tracekit-page",
        "handlers",
        &[
            "tracekit-events",
            "tracekit-cpuprofile",
            "tracekit-samples",
            "tracekit-meta",
            "tracekit-sourcemaps",
        ],
    ),
    only("tracekit-system", "handlers", &["tracekit-events", "tracekit-meta"]),
    only(
        "tracekit-causes",
        "handlers",
        &["tracekit-events", "tracekit-meta", "tracekit-page", "tracekit-renderer"],
    ),
    only(
        "tracekit-samples",
        "handlers",
        &["tracekit-events", "tracekit-cpuprofile", "tracekit-meta"],
    ),
    only("tracekit-meta", "handlers", &["tracekit-events", "tracekit-cpuprofile"]),
    // The foundation: the CPU profile model, the trace events.
    only("tracekit-cpuprofile", "foundation", &["tracekit-events"]),
    only("tracekit-events", "foundation", &[]),
    // Source maps: no workspace crate, bytes in, original names out.
    only("tracekit-sourcemaps", "foundation", &[]),
    // The command's allocator: no workspace crate (the command registers
    // its release of freed pages with the engine).
    only("tracekit-alloc", "foundation", &[]),
    // Tools and test support: anything.
    tool("tracekit-conformance"),
    tool("xtask"),
    tool("tracekit-benches"),
    tool("tracekit-fuzz"),
    tool("tracekit-tidy"),
];

/// Rule 2: the workspace members without `[lints] workspace = true`, and why.
const OWN_LINTS: &[(&str, &str)] = &[
    (
        "xtask",
        "its bench measures a child process with `wait4` and a `pre_exec` hook, unsafe code that the workspace's \
         `unsafe_code = \"forbid\"` would let no `#[allow]` open: it has the workspace's lints with `unsafe_code` \
         lowered to \"deny\" (and must keep `missing_docs = \"deny\"`, checked here)",
    ),
    (
        "tracekit-alloc",
        "giving jemalloc's freed pages back is a `mallctl` call, unsafe code that the workspace's \
         `unsafe_code = \"forbid\"` would let no `#[allow]` open: it has the workspace's lints with `unsafe_code` \
         lowered to \"deny\" (and must keep `missing_docs = \"deny\"`, checked here)",
    ),
];

/// Rule 3: the library crates, which do no I/O of their own: they take
/// bytes or a caller's reader (`std::io::Read`, as the engine's
/// `Loader::read_from`) and give back values; their parallelism is rayon's
/// (`Parallelism::Rayon`), on the caller's pool.
const LIBRARY_CRATES: &[&str] = &[
    "tracekit-events",
    "tracekit-sourcemaps",
    "tracekit-cpuprofile",
    "tracekit-meta",
    "tracekit-samples",
    "tracekit-page",
    "tracekit-timeline",
    "tracekit-system",
    "tracekit-causes",
    "tracekit-renderer",
    "tracekit-engine",
    "tracekit-views",
    "tracekit-export",
    "tracekit-insights",
    "tracekit-agent",
    "tracekit",
    "tracekit-tables",
    "tracekit-diff",
];

/// Rule 3: what a library crate may not use, and what to do instead.
const FORBIDDEN_IO: &[(&str, &str)] = &[
    ("std::fs", "take the bytes or a `std::io::Read`/`Write` from the caller"),
    ("File::open", "take the bytes or a `std::io::Read` from the caller"),
    ("File::create", "take a `std::io::Write` from the caller"),
    ("std::net", "leave the network to the front ends"),
    (
        "std::process",
        "return an error instead of exiting; leave processes to the front ends",
    ),
    (
        "thread::spawn",
        "use rayon (`Parallelism::Rayon`), on the caller's pool",
    ),
    (
        "thread::scope",
        "use rayon (`Parallelism::Rayon`), on the caller's pool",
    ),
    (
        "thread::Builder",
        "use rayon (`Parallelism::Rayon`), on the caller's pool",
    ),
    ("println!", "return the text, or report through `tracing`"),
    ("print!", "return the text, or report through `tracing`"),
    (
        "eprintln!",
        "return an error or a diagnostic, or report through `tracing`",
    ),
    (
        "eprint!",
        "return an error or a diagnostic, or report through `tracing`",
    ),
    ("io::stdout", "take a `std::io::Write` from the caller"),
    (
        "io::stderr",
        "return an error or a diagnostic, or report through `tracing`",
    ),
    ("io::stdin", "take a `std::io::Read` from the caller"),
    ("std::env", "take an option from the caller"),
    ("env::var", "take an option from the caller"),
];

/// Rule 3: the I/O that library crates do by design: the file, the
/// forbidden name as listed in [`FORBIDDEN_IO`], and why. Every entry must
/// still be used.
///
/// `tracekit-tables` is the I/O crate of the front ends (the CLI's and the
/// Python package's `export`, and their `load_file`): reading trace files by
/// path and writing Parquet files is what its named APIs are for. The rest
/// of it (the table builders) does none.
const IO_ALLOWED: &[(&str, &str, &str)] = &[
    (
        "crates/tables/src/lib.rs",
        "std::fs",
        "`load_file` reads a trace file by its path, for the front ends",
    ),
    (
        "crates/tables/src/lib.rs",
        "File::open",
        "`load_file` reads a trace file by its path, for the front ends",
    ),
    (
        "crates/tables/src/export.rs",
        "std::fs",
        "the Parquet export lists the input directories, reads the traces and writes OUT_DIR/*.parquet",
    ),
    (
        "crates/tables/src/export.rs",
        "File::create",
        "the Parquet export writes OUT_DIR/*.parquet",
    ),
    (
        "crates/tables/src/export.rs",
        "thread::scope",
        "the Parquet export's workers load traces while the calling thread writes them in input order; they \
         block on a Condvar to bound memory, which rayon's pool threads must not",
    ),
];

/// Rule 4: the files that may `allow(missing_docs)`, and why.
const MISSING_DOCS_ALLOWED: &[(&str, &str)] = &[
    (
        "benches/benches/analyze.rs",
        "criterion_group!/criterion_main! generate undocumented public functions",
    ),
    (
        "benches/benches/parse.rs",
        "criterion_group!/criterion_main! generate undocumented public functions",
    ),
    (
        "benches/benches/renderer.rs",
        "criterion_group!/criterion_main! generate undocumented public functions",
    ),
    (
        "benches/benches/views.rs",
        "criterion_group!/criterion_main! generate undocumented public functions",
    ),
];

/// Rule 5: the most lines a source file may have.
const MAX_FILE_LINES: usize = 800;

/// Rule 5: the files over [`MAX_FILE_LINES`] lines today, with their line
/// count then: known, to be split. (A file's inline `#[cfg(test)]` module
/// counts; moving it to a `tests.rs` file is one way to split.)
const LONG_FILES: &[(&str, usize)] = &[];

/// Rule 6: the most lines a function may have, from its `fn` line to its
/// closing brace.
const MAX_FN_LINES: usize = 120;

/// Rule 6: the functions over [`MAX_FN_LINES`] lines today (file, name,
/// lines then): known, to be split.
const LONG_FNS: &[(&str, &str, usize)] = &[];

// ---------------------------------------------------------------------------
// The rules.
// ---------------------------------------------------------------------------

#[test]
fn layers() {
    let ws = workspace();
    let mut errors = Vec::new();
    let names: BTreeSet<&str> = ws.members.iter().map(|m| m.name.as_str()).collect();
    for member in &ws.members {
        let manifest = member.manifest_path();
        let Some(row) = LAYERS.iter().find(|l| l.name == member.name) else {
            errors.push(format!(
                "{manifest}:1: [layers] the workspace crate `{}` is not in the layer table: add it to `LAYERS` in \
                 crates/tidy/tests/tidy.rs, with the workspace crates it may depend on",
                member.name
            ));
            continue;
        };
        let MayUse::Only(allowed) = row.may_use else {
            continue;
        };
        for dep in member.normal_dependencies() {
            if !names.contains(dep.package.as_str()) || allowed.contains(&dep.package.as_str()) {
                continue;
            }
            let line = member.dependency_line(&dep.key);
            let may = if allowed.is_empty() {
                "no workspace crate".to_owned()
            } else {
                allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
            };
            errors.push(format!(
                "{manifest}:{line}: [layers] `{}` ({}) may not depend on `{}`; it may use {may}. Remove the \
                 dependency (go through a crate it may use, or move the code down a layer), or, if the layers \
                 change, change `LAYERS` in crates/tidy/tests/tidy.rs",
                member.name, row.layer, dep.package
            ));
        }
    }
    report("layers", errors);
}

#[test]
fn lints() {
    let ws = workspace();
    let mut errors = Vec::new();
    for member in &ws.members {
        let manifest = member.manifest_path();
        let lints = member.manifest.get("lints").and_then(toml::Value::as_table);
        let inherits = lints.and_then(|l| l.get("workspace")).and_then(toml::Value::as_bool) == Some(true);
        let exception = OWN_LINTS.iter().find(|(name, _)| *name == member.name);
        match (inherits, exception) {
            (true, None) => {}
            (false, None) => errors.push(format!(
                "{manifest}:1: [lints] `{}` does not inherit the workspace lints: add `[lints]` with \
                 `workspace = true` to its Cargo.toml (or, if it cannot, add it to `OWN_LINTS` in \
                 crates/tidy/tests/tidy.rs with the reason)",
                member.name
            )),
            (true, Some(_)) => errors.push(format!(
                "{manifest}:1: [lints] `{}` now inherits the workspace lints: remove it from `OWN_LINTS` in \
                 crates/tidy/tests/tidy.rs",
                member.name
            )),
            (false, Some(_)) => {
                // Its own lints, if any, must still deny missing docs (rule 4).
                let level = lints
                    .and_then(|l| l.get("rust"))
                    .and_then(|r| r.get("missing_docs"))
                    .and_then(toml::Value::as_str);
                if lints.is_some() && level != Some("deny") {
                    errors.push(format!(
                        "{manifest}:1: [lints] `{}` has its own lints without `missing_docs = \"deny\"` in \
                         `[lints.rust]`: add it, as the workspace's",
                        member.name
                    ));
                }
            }
        }
    }
    for (name, _) in OWN_LINTS {
        if !ws.members.iter().any(|m| m.name == *name) {
            errors.push(format!(
                "crates/tidy/tests/tidy.rs: [lints] `{name}` in `OWN_LINTS` is no workspace member: remove it"
            ));
        }
    }
    report("lints", errors);
}

#[test]
fn no_io_in_library_crates() {
    let ws = workspace();
    let mut errors = Vec::new();
    let mut used = vec![false; IO_ALLOWED.len()];
    for file in &ws.files {
        if !LIBRARY_CRATES.contains(&file.member.as_str()) || !file.in_src || file.is_test {
            continue;
        }
        for (offset, what) in io_uses(&file.code) {
            let line = file.line_of(offset);
            if file.is_test_line(line) {
                continue;
            }
            if let Some(i) = IO_ALLOWED.iter().position(|(f, w, _)| *f == file.path && *w == what) {
                used[i] = true;
                continue;
            }
            let fix = FORBIDDEN_IO.iter().find(|(w, _)| *w == what).map_or("", |(_, fix)| fix);
            errors.push(format!(
                "{}:{line}: [no-io] `{what}` in the library crate `{}`: library crates do no I/O and spawn no \
                 threads; {fix}. If this is the crate's I/O by design, add (\"{}\", \"{what}\", why) to \
                 `IO_ALLOWED` in crates/tidy/tests/tidy.rs",
                file.path, file.member, file.path
            ));
        }
    }
    for (i, (path, what, _)) in IO_ALLOWED.iter().enumerate() {
        if !used[i] {
            errors.push(format!(
                "{path}: [no-io] the allowed `{what}` is no longer used there: remove (\"{path}\", \"{what}\", ...) \
                 from `IO_ALLOWED` in crates/tidy/tests/tidy.rs"
            ));
        }
    }
    report("no-io", errors);
}

#[test]
fn docs() {
    let ws = workspace();
    let mut errors = Vec::new();
    let level = ws
        .root
        .get("workspace")
        .and_then(|w| w.get("lints"))
        .and_then(|l| l.get("rust"))
        .and_then(|r| r.get("missing_docs"))
        .and_then(toml::Value::as_str);
    if level != Some("deny") {
        errors.push(
            "Cargo.toml:1: [docs] `[workspace.lints.rust]` must set `missing_docs = \"deny\"`: every public item \
             is documented"
                .to_owned(),
        );
    }
    let mut used = vec![false; MISSING_DOCS_ALLOWED.len()];
    for file in &ws.files {
        for offset in find_word(&file.code, "missing_docs") {
            let line_start = file.code[..offset].rfind('\n').map_or(0, |i| i + 1);
            let before = &file.code[line_start..offset];
            if !(before.contains("allow(") || before.contains("expect(")) {
                continue;
            }
            if let Some(i) = MISSING_DOCS_ALLOWED.iter().position(|(f, _)| *f == file.path) {
                used[i] = true;
                continue;
            }
            errors.push(format!(
                "{}:{}: [docs] `allow(missing_docs)`: every public item is documented; remove the attribute and \
                 write the docs (`///`, and `//!` for the crate)",
                file.path,
                file.line_of(offset)
            ));
        }
    }
    for (i, (path, _)) in MISSING_DOCS_ALLOWED.iter().enumerate() {
        if !used[i] {
            errors.push(format!(
                "{path}: [docs] no longer allows missing_docs: remove it from `MISSING_DOCS_ALLOWED` in \
                 crates/tidy/tests/tidy.rs"
            ));
        }
    }
    report("docs", errors);
}

#[test]
fn file_size() {
    let ws = workspace();
    let mut errors = Vec::new();
    for file in ws.files.iter().filter(|f| f.sized()) {
        let lines = file.text.lines().count();
        let known = LONG_FILES.iter().find(|(p, _)| *p == file.path);
        match known {
            None if lines > MAX_FILE_LINES => errors.push(format!(
                "{}:{lines}: [file-size] {lines} lines, over {MAX_FILE_LINES}: split it into modules (or move its \
                 tests to a `tests.rs` file)",
                file.path
            )),
            Some((_, then)) if lines <= MAX_FILE_LINES => errors.push(format!(
                "{}: [file-size] now {lines} lines (was {then}), at most {MAX_FILE_LINES}: remove it from \
                 `LONG_FILES` in crates/tidy/tests/tidy.rs",
                file.path
            )),
            _ => {}
        }
    }
    for (path, _) in LONG_FILES {
        if !ws.files.iter().any(|f| f.path == *path && f.sized()) {
            errors.push(format!(
                "{path}: [file-size] no longer exists: remove it from `LONG_FILES` in crates/tidy/tests/tidy.rs"
            ));
        }
    }
    report("file-size", errors);
}

#[test]
fn fn_size() {
    let ws = workspace();
    let mut errors = Vec::new();
    let mut seen = vec![false; LONG_FNS.len()];
    for file in ws.files.iter().filter(|f| f.sized() && !f.is_test) {
        for f in functions(&file.code) {
            let line = file.line_of(f.start);
            if file.is_test_line(line) {
                continue;
            }
            let lines = file.line_of(f.end) - line + 1;
            let known = LONG_FNS.iter().position(|(p, n, _)| *p == file.path && *n == f.name);
            if let Some(i) = known {
                seen[i] |= lines > MAX_FN_LINES;
            } else if lines > MAX_FN_LINES {
                errors.push(format!(
                    "{}:{line}: [fn-size] `fn {}` is {lines} lines, over {MAX_FN_LINES}: split it into smaller \
                     functions",
                    file.path, f.name
                ));
            }
        }
    }
    for (i, (path, name, then)) in LONG_FNS.iter().enumerate() {
        if !seen[i] {
            errors.push(format!(
                "{path}: [fn-size] `fn {name}` (was {then} lines) is no longer over {MAX_FN_LINES} lines: remove it \
                 from `LONG_FNS` in crates/tidy/tests/tidy.rs"
            ));
        }
    }
    report("fn-size", errors);
}

fn report(rule: &str, errors: Vec<String>) {
    assert!(
        errors.is_empty(),
        "tidy: {} violation(s) of the rule `{rule}`:\n{}\n",
        errors.len(),
        errors.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The workspace, read once.
// ---------------------------------------------------------------------------

struct Workspace {
    root: toml::Table,
    members: Vec<Member>,
    files: Vec<SourceFile>,
}

struct Member {
    name: String,
    /// Relative to the workspace root, with `/`.
    dir: String,
    manifest_text: String,
    manifest: toml::Table,
}

struct Dependency {
    /// Its key in the manifest.
    key: String,
    /// The package it names (`package = ...`, or the key).
    package: String,
}

struct SourceFile {
    /// Relative to the workspace root, with `/`.
    path: String,
    member: String,
    text: String,
    /// The text with comments and string and char literals blanked out
    /// (newlines kept).
    code: String,
    /// Under the crate's `src/`.
    in_src: bool,
    /// An integration test, a `tests.rs` file or a `#[cfg(test)] mod name;`.
    is_test: bool,
    /// Generated or vendored.
    is_foreign: bool,
    /// The line ranges (1-based, inclusive) of its `#[cfg(test)]` items.
    test_ranges: Vec<(usize, usize)>,
    /// The offsets of the line starts of `code`.
    line_starts: Vec<usize>,
}

impl Member {
    fn manifest_path(&self) -> String {
        format!("{}/Cargo.toml", self.dir)
    }

    fn normal_dependencies(&self) -> Vec<Dependency> {
        let mut tables = vec![self.manifest.get("dependencies")];
        if let Some(targets) = self.manifest.get("target").and_then(toml::Value::as_table) {
            tables.extend(targets.values().map(|t| t.get("dependencies")));
        }
        let mut deps = Vec::new();
        for table in tables.into_iter().flatten().filter_map(toml::Value::as_table) {
            for (key, value) in table {
                let package = value.get("package").and_then(toml::Value::as_str).unwrap_or(key);
                deps.push(Dependency {
                    key: key.clone(),
                    package: package.to_owned(),
                });
            }
        }
        deps
    }

    /// The line of the dependency `key` in a `[dependencies]` table.
    fn dependency_line(&self, key: &str) -> usize {
        let mut in_dependencies = false;
        for (i, line) in self.manifest_text.lines().enumerate() {
            let line = line.trim();
            if line.starts_with('[') {
                if line == format!("[dependencies.{key}]") {
                    return i + 1;
                }
                in_dependencies = line == "[dependencies]" || line.ends_with(".dependencies]");
                continue;
            }
            if in_dependencies {
                if let Some(rest) = line.strip_prefix(key) {
                    if rest.starts_with([' ', '=', '.']) {
                        return i + 1;
                    }
                }
            }
        }
        1
    }
}

impl SourceFile {
    /// The 1-based line of a byte offset of `code`.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&s| s <= offset)
    }

    fn is_test_line(&self, line: usize) -> bool {
        self.test_ranges.iter().any(|&(a, b)| (a..=b).contains(&line))
    }

    /// Whether rules 5 and 6 look at it.
    fn sized(&self) -> bool {
        !self.is_test && !self.is_foreign
    }
}

fn workspace() -> &'static Workspace {
    static WORKSPACE: OnceLock<Workspace> = OnceLock::new();
    WORKSPACE.get_or_init(read_workspace)
}

fn workspace_root() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.ancestors()
        .nth(2)
        .expect("crates/tidy is two levels under the workspace root")
        .to_path_buf()
}

fn read_toml(path: &Path) -> (String, toml::Table) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table = text
        .parse::<toml::Table>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (text, table)
}

fn read_workspace() -> Workspace {
    let root_dir = workspace_root();
    let (_, root) = read_toml(&root_dir.join("Cargo.toml"));
    let patterns = root
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
        .expect("the root Cargo.toml lists `workspace.members`");
    let mut dirs = Vec::new();
    for pattern in patterns.iter().filter_map(toml::Value::as_str) {
        if let Some(parent) = pattern.strip_suffix("/*") {
            let entries = std::fs::read_dir(root_dir.join(parent)).expect("a members directory");
            let mut found: Vec<String> = entries
                .filter_map(Result::ok)
                .filter(|e| e.path().join("Cargo.toml").is_file())
                .map(|e| format!("{parent}/{}", e.file_name().to_string_lossy()))
                .collect();
            found.sort();
            dirs.extend(found);
        } else {
            assert!(
                !pattern.contains('*'),
                "tidy reads only `dir` and `dir/*` members, not `{pattern}`"
            );
            dirs.push(pattern.to_owned());
        }
    }
    let mut members = Vec::new();
    let mut files = Vec::new();
    for dir in dirs {
        let (manifest_text, manifest) = read_toml(&root_dir.join(&dir).join("Cargo.toml"));
        let name = manifest
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(toml::Value::as_str)
            .unwrap_or_else(|| panic!("{dir}/Cargo.toml has no package name"))
            .to_owned();
        let mut paths = Vec::new();
        walk(&root_dir.join(&dir), &mut paths);
        paths.sort();
        let mut member_files: Vec<SourceFile> = paths.iter().map(|p| read_source(&root_dir, &dir, &name, p)).collect();
        mark_test_modules(&mut member_files);
        files.extend(member_files);
        members.push(Member {
            name,
            dir,
            manifest_text,
            manifest,
        });
    }
    Workspace { root, members, files }
}

/// The `.rs` files under `dir`, not in `target/`, `node_modules/` or hidden
/// directories.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                walk(&path, out);
            }
        } else if kind.is_file() && name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn read_source(root: &Path, member_dir: &str, member: &str, path: &Path) -> SourceFile {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let relative = path.strip_prefix(root).expect("under the root");
    let relative = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let in_member = relative[member_dir.len() + 1..].to_owned();
    let code = strip(&text);
    let mut line_starts = vec![0];
    line_starts.extend(code.match_indices('\n').map(|(i, _)| i + 1));
    let head: String = text.lines().take(5).collect();
    SourceFile {
        in_src: in_member.starts_with("src/"),
        is_test: in_member.split('/').any(|c| c == "tests") || in_member.ends_with("/tests.rs"),
        is_foreign: head.contains("@generated") || in_member.split('/').any(|c| c == "vendor"),
        test_ranges: Vec::new(),
        path: relative,
        member: member.to_owned(),
        text,
        code,
        line_starts,
    }
}

/// Finds the `#[cfg(test)]` items of every file, and marks the files of the
/// `#[cfg(test)] mod name;` modules as tests.
fn mark_test_modules(files: &mut [SourceFile]) {
    let mut test_files = Vec::new();
    for file in files.iter_mut() {
        let mut ranges = Vec::new();
        for (start, end, module) in cfg_test_items(&file.code) {
            ranges.push((file.line_of(start), file.line_of(end)));
            if let Some(module) = module {
                // `a/lib.rs`, `a/main.rs`, `a/mod.rs`: `a/name.rs`; `a/b.rs`: `a/b/name.rs`.
                let (dir, stem) = file.path.rsplit_once('/').unwrap_or(("", &file.path));
                let stem = stem.trim_end_matches(".rs");
                let dir = if ["lib", "main", "mod"].contains(&stem) {
                    dir.to_owned()
                } else {
                    format!("{dir}/{stem}")
                };
                test_files.push(format!("{dir}/{module}.rs"));
                test_files.push(format!("{dir}/{module}/mod.rs"));
            }
        }
        file.test_ranges = ranges;
    }
    for file in files.iter_mut() {
        if test_files.contains(&file.path) {
            file.is_test = true;
        }
    }
}

// ---------------------------------------------------------------------------
// A little Rust lexing.
// ---------------------------------------------------------------------------

/// The source with its comments and the contents of its string and char
/// literals replaced by spaces (one per char; newlines kept, so lines stay
/// lines), so that what remains is code.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        // `b'x'` is a byte literal, `x'a` no char literal.
        let prev_ident = match i.checked_sub(1).map(|p| chars[p]) {
            Some('b') => i >= 2 && is_ident_char(chars[i - 2]),
            Some(p) => is_ident_char(p),
            None => false,
        };
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && !prev_ident_before_raw(&chars, i) && matches!(next, Some('#' | '"')) {
            // A raw string r"..." or r#"..."# (br"..." too: the b stays).
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            out.extend(&chars[i..=j]);
            i = j + 1;
            while i < chars.len() {
                if chars[i] == '"' && (1..=hashes).all(|k| chars.get(i + k) == Some(&'#')) {
                    out.extend(&chars[i..=i + hashes]);
                    i += hashes + 1;
                    break;
                }
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            if i < chars.len() {
                out.push('"');
                i += 1;
            }
        } else if c == '\'' && !prev_ident && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A char literal (not a lifetime): 'x', '\n', '\u{1F600}', '\''.
            out.push('\'');
            i += 1;
            let mut first = true;
            while i < chars.len() && (first || chars[i] != '\'') {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                first = false;
            }
            if i < chars.len() {
                out.push('\'');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Whether the `r` at `i` is the end of an identifier rather than a raw
/// string's prefix (`br` is a prefix too).
fn prev_ident_before_raw(chars: &[char], i: usize) -> bool {
    match i.checked_sub(1).map(|p| chars[p]) {
        Some('b' | 'c') => i >= 2 && is_ident_char(chars[i - 2]),
        Some(p) => is_ident_char(p),
        None => false,
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The offsets of `word` in `code`, not inside a longer identifier.
fn find_word(code: &str, word: &str) -> Vec<usize> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let starts_ident = word.bytes().next().is_some_and(ident);
    let ends_ident = word.bytes().last().is_some_and(ident);
    code.match_indices(word)
        .map(|(i, _)| i)
        .filter(|&i| !(starts_ident && i > 0 && ident(bytes[i - 1])))
        .filter(|&i| !(ends_ident && bytes.get(i + word.len()).is_some_and(|&b| ident(b))))
        .collect()
}

/// The uses of [`FORBIDDEN_IO`] in `code`: offset and name. `use std::{fs,
/// ..}` counts as `std::fs` (and so for `net`, `process`, `env`).
fn io_uses(code: &str) -> Vec<(usize, &'static str)> {
    let mut uses = Vec::new();
    for (what, _) in FORBIDDEN_IO {
        uses.extend(find_word(code, what).into_iter().map(|i| (i, *what)));
    }
    for open in find_word(code, "std::{") {
        let start = open + "std::{".len();
        let end = matching(code.as_bytes(), start - 1).unwrap_or(code.len());
        for (what, module) in [
            ("std::fs", "fs"),
            ("std::net", "net"),
            ("std::process", "process"),
            ("std::env", "env"),
        ] {
            // `fs` directly in the group, not `io::..` etc.
            for i in find_word(&code[start..end], module) {
                let before = code[start..start + i].trim_end();
                if before.ends_with('{') || before.ends_with(',') {
                    uses.push((start + i, what));
                }
            }
        }
    }
    uses.sort_unstable();
    uses.dedup();
    uses
}

/// The offset of the bracket closing the one at `open` (`{`, `(` or `[`).
fn matching(code: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

fn skip_whitespace(code: &[u8], mut i: usize) -> usize {
    while code.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

fn word_at(code: &[u8], i: usize) -> &str {
    let end = code[i..]
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .map_or(code.len(), |n| i + n);
    std::str::from_utf8(&code[i..end]).unwrap_or("")
}

/// The items under `#[cfg(test)]`: start and end offsets, and the module's
/// name if it is a `mod name;`. An item (`mod`, `fn`, `impl`, `use`, ...)
/// ends at its first `;` or at the end of its first `{}` block; a field or
/// statement at its `,` or `;`.
fn cfg_test_items(code: &str) -> Vec<(usize, usize, Option<String>)> {
    const ITEMS: &[&str] = &[
        "mod",
        "fn",
        "impl",
        "struct",
        "enum",
        "union",
        "trait",
        "static",
        "const",
        "use",
        "type",
        "unsafe",
        "async",
        "extern",
        "macro_rules",
    ];
    let bytes = code.as_bytes();
    let mut items = Vec::new();
    let starts = code
        .match_indices("#[cfg(test)]")
        .chain(code.match_indices("#[cfg(all(test,"));
    for (start, _) in starts {
        // Skip the attributes.
        let mut i = start;
        loop {
            i = skip_whitespace(bytes, i);
            if bytes.get(i) == Some(&b'#') {
                let open = i + bytes[i..].iter().position(|&b| b == b'[').unwrap_or(0);
                i = matching(bytes, open).map_or(bytes.len(), |close| close + 1);
            } else {
                break;
            }
        }
        let mut k = i;
        if word_at(bytes, k) == "pub" {
            k = skip_whitespace(bytes, k + 3);
            if bytes.get(k) == Some(&b'(') {
                k = matching(bytes, k).map_or(k, |close| skip_whitespace(bytes, close + 1));
            }
        }
        let keyword = word_at(bytes, k);
        let is_item = ITEMS.contains(&keyword);
        let mut module = None;
        if keyword == "mod" {
            let name_at = skip_whitespace(bytes, k + 3);
            let name = word_at(bytes, name_at);
            if bytes.get(skip_whitespace(bytes, name_at + name.len())) == Some(&b';') {
                module = Some(name.to_owned());
            }
        }
        let mut depth = 0usize;
        let mut end = bytes.len();
        while i < bytes.len() {
            match bytes[i] {
                b'(' | b'[' => depth += 1,
                b')' | b']' | b'}' if depth == 0 => {
                    end = i;
                    break;
                }
                b')' | b']' => depth -= 1,
                b'{' if depth == 0 => {
                    let close = matching(bytes, i).unwrap_or(bytes.len() - 1);
                    if is_item {
                        end = close;
                        break;
                    }
                    i = close;
                }
                b';' if depth == 0 => {
                    end = i;
                    break;
                }
                b',' if depth == 0 && !is_item => {
                    end = i;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        items.push((start, end, module));
    }
    items
}

/// A function with a body: its name, the offset of its `fn` and of its
/// closing brace.
struct Function {
    name: String,
    start: usize,
    end: usize,
}

/// The functions with a body in `code` (nested ones too).
fn functions(code: &str) -> Vec<Function> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for start in find_word(code, "fn") {
        let name_at = skip_whitespace(bytes, start + 2);
        let name = word_at(bytes, name_at);
        if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
            continue; // `fn(..)` types, `$name` in macros.
        }
        // The body's `{`, unless a `;` ends the signature first.
        let mut depth = 0usize;
        let mut body = None;
        for (i, &b) in bytes.iter().enumerate().skip(name_at) {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth = depth.saturating_sub(1),
                b';' | b'}' if depth == 0 => break,
                b'{' if depth == 0 => {
                    body = Some(i);
                    break;
                }
                _ => {}
            }
        }
        if let Some(end) = body.and_then(|open| matching(bytes, open)) {
            found.push(Function {
                name: name.to_owned(),
                start,
                end,
            });
        }
    }
    found
}
