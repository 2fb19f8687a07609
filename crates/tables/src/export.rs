//! The tables of many traces as Parquet files, one per table
//! (`OUT_DIR/tracks.parquet`, ...), zstd-compressed: `tracekit export`
//! and the Python package's `tracekit.export`.
//!
//! Traces load in parallel, one per worker thread, and their rows are
//! written in input order, so that the files are the same whatever the
//! number of workers. Memory is bounded: a worker does not start a trace
//! more than [`ExportOptions::window`] traces ahead of the one being
//! written, so at most that many traces' tables are held at once. A trace
//! that cannot be read or loaded is reported to the caller and gets its
//! row in `diagnostics`; the batch goes on.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use tracekit::{AnalyzeOptions, SourceMaps};

use crate::{Table, TraceError};

/// One trace to export: where to read it, and its name in the `trace`
/// column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// The path as given (a file found in a directory: the directory as
    /// given joined with the file's path inside it).
    pub name: String,
}

/// The file names a directory's traces have: `.json`, `.cpuprofile`, with
/// `.gz` or not (any case).
pub fn is_trace_file_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
    lower.ends_with(".json") || lower.ends_with(".cpuprofile")
}

/// The traces that `paths` name: a file as it is (whatever its name; if it
/// does not exist, loading it fails and is reported), a directory's trace
/// files ([`is_trace_file_name`]) below it, recursively, sorted by path,
/// hidden entries (`.name`) left out. A directory that cannot be listed,
/// or that holds no trace file, is an error, and the others are still
/// found.
pub fn find_inputs(paths: &[PathBuf]) -> (Vec<Input>, Vec<TraceError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if !path.is_dir() {
            inputs.push(Input {
                path: path.clone(),
                name: path.display().to_string(),
            });
            continue;
        }
        let mut found = Vec::new();
        // Iterative: a deep tree of directories needs no deep stack.
        let mut dirs = vec![path.clone()];
        while let Some(dir) = dirs.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) => {
                    errors.push(TraceError::io(&dir.display().to_string(), &e));
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(e) => {
                        errors.push(TraceError::io(&dir.display().to_string(), &e));
                        continue;
                    }
                };
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with('.') {
                    continue;
                }
                let child = entry.path();
                // Symbolic links are followed (`is_dir` reads through them).
                if child.is_dir() {
                    dirs.push(child);
                } else if is_trace_file_name(&name) {
                    found.push(child);
                }
            }
        }
        if found.is_empty() {
            // Not an empty answer: a directory given is meant to hold traces.
            errors.push(TraceError::other(
                &path.display().to_string(),
                "load error: no traces",
                "no trace files in this directory (.json or .cpuprofile, gzipped or not, at any depth)",
            ));
        }
        found.sort();
        inputs.extend(found.into_iter().map(|p| Input {
            name: p.display().to_string(),
            path: p,
        }));
    }
    (inputs, errors)
}

/// How to export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// The tables to write, each to `NAME.parquet`.
    pub tables: Vec<Table>,
    /// How to load each trace (its parallelism is ignored: traces load
    /// one per worker, sequentially; the page handlers are added when a
    /// page table is written, [`crate::load_options`]).
    pub analyze: AnalyzeOptions,
    /// Worker threads loading traces (at least 1).
    pub jobs: usize,
    /// How many traces may be loaded or waiting to be written at once
    /// (at least `jobs`): the bound on memory, in traces.
    pub window: usize,
    /// Source maps applied to each trace before its tables are built,
    /// after the maps an enhanced trace carries (`docs/sourcemaps.md`);
    /// none applied when `None`.
    pub source_maps: Option<SourceMaps>,
}

impl ExportOptions {
    /// The default tables ([`Table::DEFAULT`]), default loading, a worker
    /// per core, a window of two traces per worker.
    pub fn new() -> ExportOptions {
        let jobs = std::thread::available_parallelism().map_or(1, usize::from);
        ExportOptions {
            tables: Table::DEFAULT.to_vec(),
            analyze: AnalyzeOptions::default(),
            jobs,
            window: 2 * jobs,
            source_maps: None,
        }
    }
}

impl ExportOptions {
    /// These tables (each once, in [`Table`]'s order).
    pub fn with_tables(mut self, tables: impl IntoIterator<Item = Table>) -> ExportOptions {
        let mut tables: Vec<Table> = tables.into_iter().collect();
        tables.sort();
        tables.dedup();
        self.tables = tables;
        self
    }

    /// `jobs` workers (at least 1), with a window of two traces per worker.
    pub fn with_jobs(mut self, jobs: usize) -> ExportOptions {
        self.jobs = jobs.max(1);
        self.window = 2 * self.jobs;
        self
    }
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions::new()
    }
}

/// What became of one trace, told to the caller in input order.
#[derive(Debug)]
pub struct TraceDone<'a> {
    /// Its position in the inputs.
    pub index: usize,
    /// The input.
    pub input: &'a Input,
    /// Bytes of its file (compressed, for gzip).
    pub file_bytes: u64,
    /// Bytes of its JSON (0 when it failed).
    pub json_bytes: u64,
    /// Why it gave no tables.
    pub error: Option<&'a TraceError>,
    /// What went wrong with its source maps, once each.
    pub source_map_problems: &'a [String],
}

/// What an export did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Traces exported (failed ones included).
    pub traces: usize,
    /// The traces that could not be read or loaded, in input order.
    pub failed: Vec<TraceError>,
    /// Bytes of the files read.
    pub file_bytes: u64,
    /// Bytes of JSON loaded.
    pub json_bytes: u64,
    /// Rows written, per table written.
    pub rows: Vec<(Table, u64)>,
}

/// One Parquet file per table, written a trace at a time.
pub struct ParquetTables {
    writers: Vec<(Table, PathBuf, ArrowWriter<File>)>,
    rows: Vec<u64>,
}

/// zstd at level 3: about as fast to write as level 1 and a few percent
/// smaller on these tables' repeated strings.
fn writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap_or_default()))
        // Row groups of up to a million rows: large enough for readers'
        // scans, small enough to bound the writer's buffer.
        .set_max_row_group_row_count(Some(1 << 20))
        .set_created_by(format!("tracekit {}", env!("CARGO_PKG_VERSION")))
        .build()
}

impl ParquetTables {
    /// Creates `OUT_DIR/NAME.parquet` for each table (and `out_dir` if
    /// needed).
    pub fn create(out_dir: &Path, tables: &[Table]) -> Result<ParquetTables, String> {
        std::fs::create_dir_all(out_dir)
            .map_err(|e| format!("{}: cannot create the directory: {e}", out_dir.display()))?;
        let mut writers = Vec::new();
        for table in tables {
            let path = out_dir.join(format!("{}.parquet", table.name()));
            let file = File::create(&path).map_err(|e| format!("{}: cannot create the file: {e}", path.display()))?;
            let writer = ArrowWriter::try_new(file, table.schema(), Some(writer_properties()))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            writers.push((*table, path, writer));
        }
        let rows = vec![0; writers.len()];
        Ok(ParquetTables { writers, rows })
    }

    /// Appends the rows of one trace (a batch per table, in the order of
    /// the tables given to [`ParquetTables::create`]; others are ignored).
    pub fn write(&mut self, batches: &[(Table, RecordBatch)]) -> Result<(), String> {
        for (table, batch) in batches {
            if batch.num_rows() == 0 {
                continue;
            }
            if let Some(i) = self.writers.iter().position(|(t, ..)| t == table) {
                let (_, path, writer) = &mut self.writers[i];
                writer
                    .write(batch)
                    .map_err(|e| format!("{}: writing: {e}", path.display()))?;
                self.rows[i] += batch.num_rows() as u64;
            }
        }
        Ok(())
    }

    /// Appends the `diagnostics` row of a trace that gave no tables (when
    /// `diagnostics` is written; the other tables have no row for it).
    pub fn write_error(&mut self, error: &TraceError) -> Result<(), String> {
        self.write(&[(Table::Diagnostics, crate::error_row(&error.trace, error))])
    }

    /// Finishes the files (their footers), and tells the rows of each.
    pub fn finish(self) -> Result<Vec<(Table, u64)>, String> {
        let mut out = Vec::new();
        for ((table, path, writer), rows) in self.writers.into_iter().zip(self.rows) {
            writer
                .close()
                .map_err(|e| format!("{}: writing: {e}", path.display()))?;
            out.push((table, rows));
        }
        Ok(out)
    }
}

/// The outcome of one trace: its tables, or why there are none.
pub(crate) struct Outcome {
    file_bytes: u64,
    json_bytes: u64,
    tables: Result<Vec<(Table, RecordBatch)>, TraceError>,
    source_map_problems: Vec<String>,
}

impl Outcome {
    /// The outcome of a trace whose export panicked with `panic`.
    fn panicked(input: &Input, panic: &(dyn std::any::Any + Send)) -> Outcome {
        let what = panic
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("no message");
        Outcome {
            file_bytes: 0,
            json_bytes: 0,
            tables: Err(TraceError::other(
                &input.name,
                "internal error",
                format!("tracekit panicked: {what}"),
            )),
            source_map_problems: Vec::new(),
        }
    }
}

pub(crate) fn export_one(input: &Input, options: &ExportOptions) -> Outcome {
    let file_bytes = std::fs::metadata(&input.path).map_or(0, |m| m.len());
    // The page handlers run only when a page table is written.
    let analyze =
        crate::load_options(&options.analyze, &options.tables).with_parallelism(tracekit::Parallelism::Sequential);
    match crate::load_file(&input.path, &input.name, &analyze) {
        Ok(mut analysis) => {
            let source_map_problems = options
                .source_maps
                .as_ref()
                .map(|maps| apply_source_maps(&mut analysis, maps))
                .unwrap_or_default();
            Outcome {
                file_bytes,
                json_bytes: analysis.input_bytes() as u64,
                tables: options
                    .tables
                    .iter()
                    .map(|t| Ok((*t, t.build(&analysis, &input.name)?)))
                    .collect(),
                source_map_problems,
            }
        }
        Err(e) => Outcome {
            file_bytes,
            json_bytes: 0,
            tables: Err(e),
            source_map_problems: Vec::new(),
        },
    }
}

/// Applies the maps `analysis` carries, then `maps`; their problems.
fn apply_source_maps(analysis: &mut tracekit::Analysis, maps: &SourceMaps) -> Vec<String> {
    let carried = analysis.embedded_source_maps();
    let report = match (carried.is_empty(), maps.is_empty()) {
        (true, true) => return Vec::new(),
        (true, false) => analysis.apply_source_maps(maps),
        (false, _) => {
            let mut all = carried;
            all.append(maps.clone());
            analysis.apply_source_maps(&all)
        }
    };
    report.problems
}

/// The shared state of the workers and the writer.
struct Queue {
    /// The next input a worker takes.
    next_to_start: usize,
    /// The next input the writer writes.
    next_to_write: usize,
    /// Finished inputs not yet written, by index.
    done: BTreeMap<usize, Outcome>,
    /// The writer failed: workers stop.
    stopped: bool,
}

/// Exports `inputs` into `out_dir` (see the module's documentation),
/// after a `diagnostics` row for each of `unlisted` (the directories
/// [`find_inputs`] could not list, which are also in
/// [`Summary::failed`]). `on_trace` is called on the calling thread for each trace once its rows
/// are written, in input order. `Err` only when the output cannot be
/// written; traces that fail are in [`Summary::failed`].
pub fn export(
    inputs: &[Input],
    unlisted: &[TraceError],
    out_dir: &Path,
    options: &ExportOptions,
    on_trace: impl FnMut(&TraceDone<'_>),
) -> Result<Summary, String> {
    export_each(inputs, unlisted, out_dir, options, on_trace, export_one)
}

/// [`export`], with `one` making each trace's outcome.
pub(crate) fn export_each(
    inputs: &[Input],
    unlisted: &[TraceError],
    out_dir: &Path,
    options: &ExportOptions,
    mut on_trace: impl FnMut(&TraceDone<'_>),
    one: impl Fn(&Input, &ExportOptions) -> Outcome + Sync,
) -> Result<Summary, String> {
    let mut files = ParquetTables::create(out_dir, &options.tables)?;
    let jobs = options.jobs.clamp(1, inputs.len().max(1));
    let window = options.window.max(jobs);
    let queue = Mutex::new(Queue {
        next_to_start: 0,
        next_to_write: 0,
        done: BTreeMap::new(),
        stopped: false,
    });
    let changed = Condvar::new();
    let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
    let mut summary = Summary {
        traces: inputs.len(),
        ..Summary::default()
    };
    for error in unlisted {
        files.write_error(error)?;
    }
    summary.failed.extend(unlisted.iter().cloned());
    let written = std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let index = {
                    let mut q = lock();
                    while !q.stopped && q.next_to_start < inputs.len() && q.next_to_start >= q.next_to_write + window {
                        q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
                    }
                    if q.stopped || q.next_to_start >= inputs.len() {
                        return;
                    }
                    q.next_to_start += 1;
                    q.next_to_start - 1
                };
                let input = &inputs[index];
                // A panic (a defect of ours) is the trace's error: else the
                // writer would wait for this outcome forever.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| one(input, options)))
                    .unwrap_or_else(|panic| Outcome::panicked(input, panic.as_ref()));
                lock().done.insert(index, outcome);
                changed.notify_all();
            });
        }
        let result = (|| {
            for (index, input) in inputs.iter().enumerate() {
                let outcome = {
                    let mut q = lock();
                    loop {
                        if let Some(outcome) = q.done.remove(&index) {
                            q.next_to_write = index + 1;
                            break outcome;
                        }
                        q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
                    }
                };
                changed.notify_all();
                summary.file_bytes += outcome.file_bytes;
                summary.json_bytes += outcome.json_bytes;
                let failed = match outcome.tables {
                    Ok(batches) => {
                        files.write(&batches)?;
                        false
                    }
                    Err(error) => {
                        files.write_error(&error)?;
                        summary.failed.push(error);
                        true
                    }
                };
                on_trace(&TraceDone {
                    index,
                    input,
                    file_bytes: outcome.file_bytes,
                    json_bytes: outcome.json_bytes,
                    error: if failed { summary.failed.last() } else { None },
                    source_map_problems: &outcome.source_map_problems,
                });
            }
            Ok::<(), String>(())
        })();
        if result.is_err() {
            lock().stopped = true;
            changed.notify_all();
        }
        result
    });
    written?;
    summary.rows = files.finish()?;
    Ok(summary)
}
