//! `tracekit.diff`: two traces, or two sets of runs, compared as
//! `tracekit diff` compares them, as a `pyarrow.Table` with a row per key.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tracekit_diff::{compare, measure, Options, Report, Run};

use crate::{to_pyarrow_table, Trace};

/// The runs of one side: a `Trace` or a list of them, each measured.
fn side(py: Python<'_>, obj: &Bound<'_, PyAny>, which: &str) -> PyResult<Vec<Run>> {
    let traces: Vec<Bound<'_, Trace>> = if let Ok(one) = obj.cast::<Trace>() {
        vec![one.clone()]
    } else {
        obj.extract::<Vec<Bound<'_, Trace>>>()
            .map_err(|_| PyTypeError::new_err(format!("diff: {which} is a tracekit.Trace or a list of them")))?
    };
    traces
        .iter()
        .map(|t| {
            let trace = t.get();
            py.detach(|| measure(&trace.analysis, tracekit::DEFAULT_MAX_NODES))
                .map_err(|e| PyValueError::new_err(format!("{}: {e}", trace.name)))
        })
        .collect()
}

/// The report's rows as columns.
fn batch(report: &Report) -> PyResult<RecordBatch> {
    let rows = &report.rows;
    let text = |f: &dyn Fn(&tracekit_diff::Row) -> String| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let num = |f: &dyn Fn(&tracekit_diff::Row) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    let stat = |f: fn(&tracekit_diff::Stats) -> f64| move |r: &tracekit_diff::Row| r.stats.as_ref().map(f);
    let columns: Vec<(&str, ArrayRef, DataType, bool)> = vec![
        ("kind", text(&|r| json_name(&r.key.kind)), DataType::Utf8, false),
        ("thread", text(&|r| r.key.thread.clone()), DataType::Utf8, false),
        ("name", text(&|r| r.key.name.clone()), DataType::Utf8, false),
        ("quantity", text(&|r| json_name(&r.key.quantity)), DataType::Utf8, false),
        ("unit", text(&|r| json_name(&r.unit)), DataType::Utf8, false),
        ("presence", text(&|r| json_name(&r.presence)), DataType::Utf8, false),
        ("base", num(&|r| Some(r.base)), DataType::Float64, false),
        ("new", num(&|r| Some(r.new)), DataType::Float64, false),
        ("delta", num(&|r| Some(r.delta)), DataType::Float64, false),
        ("relative", num(&|r| r.relative), DataType::Float64, true),
        (
            "changed",
            Arc::new(BooleanArray::from(rows.iter().map(|r| r.changed).collect::<Vec<_>>())),
            DataType::Boolean,
            false,
        ),
        ("p", num(&stat(|s| s.p)), DataType::Float64, true),
        ("p_adjusted", num(&stat(|s| s.p_adjusted)), DataType::Float64, true),
        ("ci_low", num(&stat(|s| s.low)), DataType::Float64, true),
        ("ci_high", num(&stat(|s| s.high)), DataType::Float64, true),
        ("cliffs_delta", num(&stat(|s| s.cliffs_delta)), DataType::Float64, true),
    ];
    let schema = Schema::new(
        columns
            .iter()
            .map(|(n, _, t, nullable)| Field::new(*n, t.clone(), *nullable))
            .collect::<Vec<_>>(),
    );
    let arrays = columns.into_iter().map(|(_, a, _, _)| a).collect();
    RecordBatch::try_new(Arc::new(schema), arrays).map_err(|e| PyValueError::new_err(format!("diff: {e}")))
}

/// An enum of the report as the table names it: its JSON name.
fn json_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        other => format!("{other:?}"),
    }
}

/// Compares `base` with `new` (each a `Trace` or a list of `Trace`s: the
/// runs of a side), as `tracekit diff` does, and gives a `pyarrow.Table`,
/// a row per key (`kind`, `thread`, `name`, `quantity`, `unit`, ...):
/// changes first, by what moved most. Load the traces with
/// `all_handlers=True` for the page metrics, requests, bytes and third
/// parties. `alpha` and `min_ms` are `--alpha` and `--min-ms`.
#[pyfunction]
#[pyo3(signature = (base, new, alpha = 0.05, min_ms = 0.5))]
pub(crate) fn diff(
    py: Python<'_>,
    base: &Bound<'_, PyAny>,
    new: &Bound<'_, PyAny>,
    alpha: f64,
    min_ms: f64,
) -> PyResult<Py<PyAny>> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(PyValueError::new_err(format!(
            "diff: alpha is a number between 0 and 1, not {alpha}"
        )));
    }
    if min_ms.is_nan() || min_ms < 0.0 {
        return Err(PyValueError::new_err(format!(
            "diff: min_ms is 0 or more, not {min_ms}"
        )));
    }
    let (base, new) = (side(py, base, "base")?, side(py, new, "new")?);
    let report =
        compare(&base, &new, &Options { alpha, min_ms }).map_err(|e| PyValueError::new_err(format!("diff: {e}")))?;
    Ok(to_pyarrow_table(py, batch(&report)?)?.unbind())
}
