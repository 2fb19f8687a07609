//! The extension module `tracekit._tracekit` of the Python package
//! `tracekit` (PyO3): loads traces into [`Trace`] objects whose tables
//! (`tracekit-tables`) reach Python as `pyarrow.Table`s through the Arrow
//! C stream interface, with no Python object per row; exports many traces
//! to Parquet. The Python API (`python/tracekit/`) wraps it; `README.md`
//! documents it.

mod diff;
mod sourcemaps;

use std::path::PathBuf;

use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_pyarrow::{IntoPyArrow, ToPyArrow};
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict};
use tracekit::{Analysis, AnalyzeOptions, DevTools};
use tracekit_tables::export::{export as export_tables, find_inputs, ExportOptions};
use tracekit_tables::{Table, TraceError as LoadFailure};

pyo3::create_exception!(
    tracekit,
    TraceError,
    PyException,
    "A trace that cannot be read or loaded; the message is the one line the `tracekit` command prints: `TRACE: WHAT` (with the byte offset when known)."
);

fn trace_error(e: &LoadFailure) -> PyErr {
    TraceError::new_err(e.to_string())
}

/// The table named `name`, or a `ValueError` listing them.
fn table_named(name: &str) -> PyResult<Table> {
    Table::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
        PyValueError::new_err(format!("no table '{name}'; the tables are {}", names.join(", ")))
    })
}

/// A record batch as a `pyarrow.Table`, through the C stream interface.
fn to_pyarrow_table<'py>(py: Python<'py>, batch: RecordBatch) -> PyResult<Bound<'py, PyAny>> {
    let schema = batch.schema();
    let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new([Ok(batch)], schema));
    reader.into_pyarrow(py)?.call_method0("read_all")
}

/// What `load` reads: a path (`str` or `os.PathLike`) or the bytes of a
/// trace.
enum Source {
    Path(PathBuf, String),
    Bytes(Vec<u8>),
}

fn source(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Ok(Source::Bytes(bytes.as_bytes().to_vec()));
    }
    if let Ok(bytes) = obj.cast::<PyByteArray>() {
        return Ok(Source::Bytes(bytes.to_vec()));
    }
    if let Ok(path) = obj.extract::<PathBuf>() {
        let name = path.display().to_string();
        return Ok(Source::Path(path, name));
    }
    if let Ok(view) = obj.call_method0("tobytes") {
        if let Ok(bytes) = view.cast::<PyBytes>() {
            return Ok(Source::Bytes(bytes.as_bytes().to_vec()));
        }
    }
    Err(PyTypeError::new_err(format!(
        "expected a path (str or os.PathLike) or bytes, got {}",
        obj.get_type().name()?
    )))
}

/// A loaded trace: the DevTools Performance panel's tracks of each
/// thread, and its tables.
#[pyclass(frozen, module = "tracekit")]
struct Trace {
    analysis: Analysis,
    name: String,
    /// What applying the `source_maps` of `load` did.
    source_maps: Option<tracekit::SourceMapReport>,
}

impl Trace {
    fn table(&self, py: Python<'_>, table: Table) -> PyResult<Py<PyAny>> {
        if table.needs_handlers() {
            self.check_handlers(&format!("the {table} table"))?;
        }
        let batch = py
            .detach(|| table.build(&self.analysis, &self.name))
            .map_err(|e| trace_error(&e))?;
        Ok(to_pyarrow_table(py, batch)?.unbind())
    }

    /// A `ValueError` when the trace was loaded without the page handlers,
    /// which `what` needs.
    fn check_handlers(&self, what: &str) -> PyResult<()> {
        if self.analysis.has_all_handlers() {
            Ok(())
        } else {
            Err(PyValueError::new_err(format!(
                "{what} needs the page handlers' data: load the trace with all_handlers=True"
            )))
        }
    }
}

#[pymethods]
impl Trace {
    /// The trace's name in the tables' `trace` column.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// What applying `load`'s `source_maps` did (`None` without them): a
    /// dict of `frames_resolved`, `frames_renamed`, `frames_unmapped`,
    /// `maps_used` and `problems` (a map that does not parse, matched
    /// nothing, or a script whose map was not given).
    #[getter]
    fn source_maps<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.source_maps
            .as_ref()
            .map(|report| sourcemaps::report_dict(py, report))
            .transpose()
    }

    /// What the input is: `ChromeTrace`, `CpuProfile` or `SelfProfiling`.
    #[getter]
    fn kind(&self) -> String {
        format!("{:?}", self.analysis.kind())
    }

    /// One row per track node (trace event or JS call) of every thread.
    fn tracks(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Tracks)
    }

    /// The Call Tree of every thread over the whole trace.
    fn calls(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Calls)
    }

    /// One row per CPU sample.
    fn samples(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Samples)
    }

    /// One row per thread with tracks.
    fn threads(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Threads)
    }

    /// What was skipped, repaired or done differently while loading.
    fn diagnostics(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Diagnostics)
    }

    /// One row per network request (`all_handlers=True`).
    fn requests(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Requests)
    }

    /// One row per navigation of the main frame, with its metrics
    /// (`all_handlers=True`).
    fn navigations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Navigations)
    }

    /// One row per layout shift, with its cluster (`all_handlers=True`).
    fn layout_shifts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::LayoutShifts)
    }

    /// One row per interaction, with its phases (`all_handlers=True`).
    fn interactions(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Interactions)
    }

    /// One row per performance mark, measure, console timing and time
    /// stamp (`all_handlers=True`).
    fn user_timings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::UserTimings)
    }

    /// One row per event with an initiator, and its initiator
    /// (`all_handlers=True`).
    fn initiators(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Initiators)
    }

    /// One row per warning of an entry: long task, forced reflow, ...
    /// (`all_handlers=True`).
    fn warnings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Warnings)
    }

    /// One row per script of V8's source rundown, with its source map
    /// (`all_handlers=True`).
    fn scripts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Scripts)
    }

    /// One row per insight of each insight set (DevTools' verdicts: state,
    /// savings, events; `all_handlers=True`; docs/insights.md).
    fn insights(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.table(py, Table::Insights)
    }

    /// The data of DevTools' handlers, as `tracekit data` writes it
    /// (`docs/data.md`), parsed: `{"handlers": {NAME: DATA}, ...}`. The
    /// trace must be loaded with `all_handlers=True`. `handlers`: the names
    /// to give (default: every handler); `format`: `json` (numbers and
    /// strings exact) or `conformance` (the dump compared with DevTools':
    /// numbers rounded to 0.001, long strings hashed).
    #[pyo3(signature = (handlers = None, format = "json"))]
    fn data(&self, py: Python<'_>, handlers: Option<Vec<String>>, format: &str) -> PyResult<Py<PyAny>> {
        let names = handlers.unwrap_or_default();
        if let Some(unknown) = names.iter().find(|n| !tracekit::data::HANDLERS.contains(&n.as_str())) {
            return Err(PyValueError::new_err(format!(
                "no handler named '{unknown}' (handlers: {})",
                tracekit::data::HANDLERS.join(", ")
            )));
        }
        let conformance = match format {
            "json" => false,
            "conformance" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "format: expected 'json' or 'conformance', not '{other}'"
                )))
            }
        };
        if self.analysis.handlers().is_some() {
            self.check_handlers("data()")?;
        }
        let only: Vec<&str> = names.iter().map(String::as_str).collect();
        let text = py
            .detach(|| {
                if conformance {
                    tracekit::insights::data_conformance(&self.analysis, &only)
                } else {
                    tracekit::insights::data_json(&self.analysis, &only)
                }
            })
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
    }

    /// The names of the handlers `data()` gives.
    #[staticmethod]
    fn data_handlers() -> Vec<&'static str> {
        tracekit::data::HANDLERS.to_vec()
    }

    /// The table named `name` (`tracks`, `calls`, `samples`, `threads`,
    /// `diagnostics`, `requests`, `navigations`, `layout_shifts`,
    /// `interactions`, `user_timings`, `initiators`, `warnings`,
    /// `scripts`).
    #[pyo3(name = "table")]
    fn table_by_name(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        self.table(py, table_named(name)?)
    }

    /// The tracks as `tracekit tracks --format conformance` prints them.
    fn conformance(&self, py: Python<'_>) -> String {
        py.detach(|| tracekit::output::conformance(&self.analysis))
    }

    fn __repr__(&self) -> String {
        let threads = self.analysis.threads().count();
        format!(
            "<tracekit.Trace {:?}: {:?}, {} threads>",
            self.name,
            self.analysis.kind(),
            threads
        )
    }
}

/// The engine named `name` (`DevTools::name`), or a `ValueError` listing
/// the names.
fn devtools_named(name: &str) -> PyResult<DevTools> {
    DevTools::from_name(name).ok_or_else(|| {
        let names: Vec<String> = DevTools::ALL.iter().map(|d| format!("'{}'", d.name())).collect();
        PyValueError::new_err(format!(
            "devtools: no DevTools engine '{name}'; the engines are {}",
            names.join(", ")
        ))
    })
}

/// The library's options from the keyword arguments; `devtools` names the
/// DevTools engine whose answers to give where engines differ. Its default
/// in the functions' signatures is a literal, which Python's `help()` and
/// `inspect.signature` show (an expression shows as `...`); the tests check
/// that it is `DEVTOOLS_DEFAULT`, [`DevTools::LATEST`]'s name.
fn options(all_processes: bool, devtools: &str) -> PyResult<AnalyzeOptions> {
    Ok(AnalyzeOptions::default()
        .with_all_processes(all_processes)
        .with_devtools(devtools_named(devtools)?))
}

/// Loads a trace from a path or from bytes (gzipped or not). `name` is
/// its name in the tables (default: the path as given, or `<bytes>`);
/// `devtools` the DevTools engine to answer as; `all_handlers` runs
/// DevTools' page handlers too, which the page tables and `data()` need.
/// `source_maps` (`docs/sourcemaps.md`): maps giving the JavaScript
/// functions their original names, applied after those an enhanced trace
/// carries; with them every handler runs, so that the scripts' source map
/// URLs are known.
#[pyfunction]
#[pyo3(signature = (source, all_processes = false, name = None, devtools = "2026-10", all_handlers = false, source_maps = None))]
fn load(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    all_processes: bool,
    name: Option<String>,
    devtools: &str,
    all_handlers: bool,
    source_maps: Option<&Bound<'_, PyAny>>,
) -> PyResult<Trace> {
    let maps = source_maps.map(sourcemaps::given).transpose()?;
    let options = options(all_processes, devtools)?.with_all_handlers(all_handlers || maps.is_some());
    let (analysis, name) = match crate::source(source)? {
        Source::Path(path, given) => {
            let name = name.unwrap_or(given);
            let loaded = py.detach(|| tracekit_tables::load_file(&path, &name, &options));
            (loaded.map_err(|e| trace_error(&e))?, name)
        }
        Source::Bytes(bytes) => {
            let name = name.unwrap_or_else(|| "<bytes>".to_owned());
            let loaded = py.detach(|| tracekit_tables::load_bytes(&bytes, &name, &options));
            (loaded.map_err(|e| trace_error(&e))?, name)
        }
    };
    let mut analysis = analysis;
    let source_maps = maps.map(|maps| py.detach(|| sourcemaps::apply(&mut analysis, maps)));
    Ok(Trace {
        analysis,
        name,
        source_maps,
    })
}

/// The table `table` of the trace in `content`, named `name`: for a
/// trace that cannot be loaded, no rows, and in `diagnostics` its error
/// row (as `tracekit export` writes it). What Spark's executors run.
#[pyfunction]
#[pyo3(signature = (content, name, table, all_processes = false, devtools = "2026-10"))]
fn table_of_bytes(
    py: Python<'_>,
    content: &[u8],
    name: &str,
    table: &str,
    all_processes: bool,
    devtools: &str,
) -> PyResult<Py<PyAny>> {
    let table = table_named(table)?;
    // The page handlers for a page table only.
    let options = tracekit_tables::load_options(&options(all_processes, devtools)?, &[table]);
    // A trace that cannot be loaded, or whose table cannot be made, is
    // its error row, as `tracekit export` writes it.
    let batch = py.detach(|| {
        tracekit_tables::load_bytes(content, name, &options)
            .and_then(|analysis| table.build(&analysis, name))
            .unwrap_or_else(|e| table.build_failed(name, &e))
    });
    Ok(to_pyarrow_table(py, batch)?.unbind())
}

/// The `pyarrow.Schema` of the table named `name`.
#[pyfunction]
fn schema(py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
    Ok(table_named(name)?.schema().as_ref().to_pyarrow(py)?.unbind())
}

/// Exports the traces (files, or directories of them) to one Parquet file
/// per table in `out_dir`, in parallel; returns a summary. Traces that
/// fail are listed in it and are rows of `diagnostics`; writing the
/// output failing raises `OSError`.
#[pyfunction]
#[pyo3(signature = (paths, out_dir, tables = None, all_processes = false, jobs = None, devtools = "2026-10"))]
fn export(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    out_dir: PathBuf,
    tables: Option<Vec<String>>,
    all_processes: bool,
    jobs: Option<usize>,
    devtools: &str,
) -> PyResult<Py<PyAny>> {
    let paths: Vec<PathBuf> = match paths.extract::<PathBuf>() {
        Ok(one) if !paths.is_instance_of::<pyo3::types::PyList>() => vec![one],
        _ => paths.extract()?,
    };
    let mut options = ExportOptions::new();
    if let Some(names) = tables {
        options = options.with_tables(names.iter().map(|n| table_named(n)).collect::<PyResult<Vec<_>>>()?);
    }
    options.analyze = self::options(all_processes, devtools)?;
    if let Some(jobs) = jobs {
        options = options.with_jobs(jobs);
    }
    let summary = py
        .detach(|| {
            let (inputs, unlisted) = find_inputs(&paths);
            export_tables(&inputs, &unlisted, &out_dir, &options, |_| {})
        })
        .map_err(pyo3::exceptions::PyOSError::new_err)?;
    let out = PyDict::new(py);
    out.set_item("traces", summary.traces)?;
    let failed: Vec<String> = summary.failed.iter().map(ToString::to_string).collect();
    out.set_item("failed", failed)?;
    out.set_item("file_bytes", summary.file_bytes)?;
    out.set_item("json_bytes", summary.json_bytes)?;
    let rows = PyDict::new(py);
    for (table, n) in &summary.rows {
        rows.set_item(table.name(), n)?;
    }
    out.set_item("rows", rows)?;
    Ok(out.into_any().unbind())
}

/// The names of the tables.
#[pyfunction]
fn table_names() -> Vec<&'static str> {
    Table::ALL.iter().map(|t| t.name()).collect()
}

/// The names of the tables `export` writes by default (not the page
/// tables).
#[pyfunction]
fn default_table_names() -> Vec<&'static str> {
    Table::DEFAULT.iter().map(|t| t.name()).collect()
}

/// Checks that `name` names a DevTools engine: the `ValueError` the
/// functions that take `devtools` raise, for callers that must check it
/// before handing it on (Spark's driver, for its executors).
#[pyfunction]
fn check_devtools(name: &str) -> PyResult<()> {
    devtools_named(name).map(|_| ())
}

/// The names of the DevTools engines `devtools` takes, oldest first.
#[pyfunction]
fn devtools_names() -> Vec<&'static str> {
    DevTools::ALL.iter().map(|d| d.name()).collect()
}

/// The module `tracekit._tracekit`.
#[pymodule]
fn _tracekit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Trace>()?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(export, m)?)?;
    m.add_function(wrap_pyfunction!(diff::diff, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(table_of_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(table_names, m)?)?;
    m.add_function(wrap_pyfunction!(default_table_names, m)?)?;
    m.add_function(wrap_pyfunction!(devtools_names, m)?)?;
    m.add_function(wrap_pyfunction!(check_devtools, m)?)?;
    m.add("DEVTOOLS_DEFAULT", DevTools::LATEST.name())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
