//! `--source-maps`: the maps read from files and directories and applied
//! to an analysis, their problems printed as warnings.

use std::path::{Path, PathBuf};

use tracekit::{Analysis, SourceMaps};

use crate::args::SourceMapsArg;
use crate::error::CliError;
use crate::input::Input;

/// The `.map` files of `path`: itself if it is a file (whatever its
/// name), else the `.map` files under it, in name order.
fn map_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), CliError> {
    let error = |error| CliError::SourceMaps {
        path: path.to_owned(),
        error,
    };
    if !path.is_dir() {
        out.push(path.to_owned());
        return Ok(());
    }
    let mut dirs = vec![path.to_owned()];
    let mut found = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).map_err(error)? {
            let entry = entry.map_err(error)?;
            let entry_path = entry.path();
            if entry.file_type().map_err(error)?.is_dir() {
                dirs.push(entry_path);
            } else if entry_path.extension().is_some_and(|e| e == "map") {
                found.push(entry_path);
            }
        }
    }
    found.sort();
    out.extend(found);
    Ok(())
}

/// Reads the maps the arguments name into `maps`.
fn read(arg: &SourceMapsArg, maps: &mut SourceMaps) -> Result<(), CliError> {
    let mut files = Vec::new();
    for path in &arg.source_maps {
        map_files(path, &mut files)?;
    }
    for file in files {
        let bytes = std::fs::read(&file).map_err(|error| CliError::SourceMaps {
            path: file.clone(),
            error,
        })?;
        maps.add(&file.to_string_lossy(), &bytes);
        // The generated script beside its map (`bundle.js` of
        // `bundle.js.map`) lets the names be checked as DevTools checks
        // them; without it they are taken unchecked.
        if file.extension().is_some_and(|e| e == "map") {
            if let Ok(text) = std::fs::read_to_string(file.with_extension("")) {
                maps.set_script(text);
            }
        }
    }
    Ok(())
}

/// The maps the arguments name, read once for every input of a command;
/// `None` with `--no-source-maps`.
pub fn given(arg: &SourceMapsArg) -> Result<Option<SourceMaps>, CliError> {
    if arg.no_source_maps {
        return Ok(None);
    }
    let mut maps = SourceMaps::new();
    read(arg, &mut maps)?;
    Ok(Some(maps))
}

/// Applies to `analysis` the maps an enhanced trace carries (unless
/// `!embedded`: a dump compared with DevTools' engine, which does not
/// resolve names) and those the arguments name, nothing with
/// `--no-source-maps`; prints their problems as warnings unless `quiet`.
pub fn apply(
    arg: &SourceMapsArg,
    input: &Input,
    analysis: &mut Analysis,
    quiet: bool,
    embedded: bool,
) -> Result<(), CliError> {
    if let Some(maps) = given(arg)? {
        apply_given(&maps, input, analysis, quiet, embedded);
    }
    Ok(())
}

/// Applies the maps an enhanced trace carries (when `embedded`), then
/// `maps` (read by [`given`]), printing their problems unless `quiet`.
pub fn apply_given(maps: &SourceMaps, input: &Input, analysis: &mut Analysis, quiet: bool, embedded: bool) {
    let carried = if embedded {
        analysis.embedded_source_maps()
    } else {
        SourceMaps::new()
    };
    let report = match (carried.is_empty(), maps.is_empty()) {
        (true, true) => return,
        (true, false) => analysis.apply_source_maps(maps),
        (false, _) => {
            let mut all = carried;
            all.append(maps.clone());
            analysis.apply_source_maps(&all)
        }
    };
    if !quiet {
        for problem in &report.problems {
            eprintln!("tracekit: warning: {}: source maps: {problem}", input.name());
        }
    }
}

/// A file of `fixtures/sourcemaps/`, for the unit tests.
#[cfg(test)]
pub fn tests_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sourcemaps")
        .join(name)
}
