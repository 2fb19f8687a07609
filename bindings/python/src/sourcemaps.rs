//! `load(..., source_maps=[...])`: the maps given as paths (files, or
//! directories searched for `.map` files, as the CLI's `--source-maps`),
//! bytes or `(name, bytes)` pairs, applied after an enhanced trace's own.

use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict};
use tracekit::{Analysis, SourceMapReport};

/// One map as given: its name (the path, or what the caller named it)
/// and its bytes, with its generated script's text when found beside it.
pub struct GivenMap {
    name: String,
    bytes: Vec<u8>,
    script: Option<String>,
}

/// The bytes of `obj` if it is `bytes` or a `bytearray`.
fn bytes_of(obj: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        return Some(bytes.as_bytes().to_vec());
    }
    obj.cast::<PyByteArray>().ok().map(|b| b.to_vec())
}

/// The `.map` files of `path`: itself if it is not a directory, else
/// those under it, in name order.
fn map_files(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        out.push(path.to_owned());
        return Ok(());
    }
    let mut dirs = vec![path.to_owned()];
    let mut found = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                dirs.push(entry.path());
            } else if entry.path().extension().is_some_and(|e| e == "map") {
                found.push(entry.path());
            }
        }
    }
    found.sort();
    out.extend(found);
    Ok(())
}

/// Reads the maps at `path` into `out`.
fn read_path(path: &Path, out: &mut Vec<GivenMap>) -> PyResult<()> {
    let error = |e: std::io::Error| PyOSError::new_err(format!("{}: {e}", path.display()));
    let mut files = Vec::new();
    map_files(path, &mut files).map_err(error)?;
    for file in files {
        let bytes = std::fs::read(&file).map_err(|e| PyOSError::new_err(format!("{}: {e}", file.display())))?;
        // The generated script beside its map lets the names be checked
        // as DevTools checks them.
        let script = if file.extension().is_some_and(|e| e == "map") {
            std::fs::read_to_string(file.with_extension("")).ok()
        } else {
            None
        };
        out.push(GivenMap {
            name: file.to_string_lossy().into_owned(),
            bytes,
            script,
        });
    }
    Ok(())
}

/// The maps of the `source_maps` argument: a list (or other iterable) of
/// paths, bytes and `(name, bytes)` pairs, or a dict from names to bytes.
/// A map given as bytes alone has no name: it matches a script by its
/// `file` only.
pub fn given(obj: &Bound<'_, PyAny>) -> PyResult<Vec<GivenMap>> {
    let mut out = Vec::new();
    if let Ok(dict) = obj.cast::<PyDict>() {
        for (name, map) in dict.iter() {
            let name: String = name.extract()?;
            let bytes = bytes_of(&map).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "source_maps['{name}']: expected bytes, got {}",
                    type_name(&map)
                ))
            })?;
            out.push(GivenMap {
                name,
                bytes,
                script: None,
            });
        }
        return Ok(out);
    }
    if obj.is_instance_of::<pyo3::types::PyString>() || bytes_of(obj).is_some() {
        return Err(PyTypeError::new_err(
            "source_maps: expected a list of paths, bytes or (name, bytes) pairs, or a dict {name: bytes}",
        ));
    }
    for item in obj.try_iter()? {
        let item = item?;
        if let Some(bytes) = bytes_of(&item) {
            out.push(GivenMap {
                name: String::new(),
                bytes,
                script: None,
            });
        } else if let Ok((name, map)) = item.extract::<(String, Bound<'_, PyAny>)>() {
            let bytes = bytes_of(&map).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "source_maps: the map of '{name}': expected bytes, got {}",
                    type_name(&map)
                ))
            })?;
            out.push(GivenMap {
                name,
                bytes,
                script: None,
            });
        } else if let Ok(path) = item.extract::<PathBuf>() {
            read_path(&path, &mut out)?;
        } else {
            return Err(PyTypeError::new_err(format!(
                "source_maps: expected a path, bytes or a (name, bytes) pair, got {}",
                type_name(&item)
            )));
        }
    }
    Ok(out)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// Applies the maps `analysis` carries, then `maps`.
pub fn apply(analysis: &mut Analysis, maps: Vec<GivenMap>) -> SourceMapReport {
    let mut all = analysis.embedded_source_maps();
    for map in maps {
        all.add(&map.name, &map.bytes);
        if let Some(script) = map.script {
            all.set_script(script);
        }
    }
    analysis.apply_source_maps(&all)
}

/// The report as a dict: `frames_resolved`, `frames_renamed`,
/// `frames_unmapped`, `maps_used`, `problems`.
pub fn report_dict<'py>(py: Python<'py>, report: &SourceMapReport) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("frames_resolved", report.frames_resolved)?;
    out.set_item("frames_renamed", report.frames_renamed)?;
    out.set_item("frames_unmapped", report.frames_unmapped)?;
    out.set_item("maps_used", report.maps_used.clone())?;
    out.set_item("problems", report.problems.clone())?;
    Ok(out)
}
