//! Frames resolved one after the other against a set of maps, each
//! position once, with what went wrong reported once per map.

use std::collections::HashMap;

use crate::map::Original;
use crate::set::SourceMaps;

/// A JavaScript frame as a CPU profile gives it, with what the trace says
/// of its script.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The script's URL.
    pub url: &'a str,
    /// The 0-based line of the function's start.
    pub line: u32,
    /// The 0-based column of the function's start.
    pub column: u32,
    /// The script's source map URL resolved against its URL, when known.
    pub source_map_url: Option<&'a str>,
    /// The script's source map URL as it declared it, when known: what an
    /// enhanced trace's maps are saved under.
    pub declared_source_map_url: Option<&'a str>,
    /// The script's text, when known.
    pub script: Option<&'a str>,
}

/// What applying a set of maps did: how many frames took original names
/// or locations, which maps served, and every problem, once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMapReport {
    /// Frames given an original location (with or without a name).
    pub frames_resolved: usize,
    /// Of those, frames given an original name.
    pub frames_renamed: usize,
    /// Frames of a script some map was found for, whose position it did
    /// not map.
    pub frames_unmapped: usize,
    /// The maps that served at least one frame, by the name they were
    /// given under.
    pub maps_used: Vec<String>,
    /// The problems, in the order met: a map that did not parse or that a
    /// frame was past the end of (once per map), a map that matched
    /// nothing, a script with a source map URL and no map (once per URL).
    pub problems: Vec<String>,
}

/// Resolves frames against a set of maps, remembering each script's map
/// and each position's answer.
#[derive(Debug)]
pub struct Resolver<'m> {
    maps: &'m SourceMaps,
    /// Each script URL's map, or none.
    by_script: HashMap<String, Option<usize>>,
    /// Each map's answer at a position.
    cache: HashMap<(usize, u32, u32), Option<Original>>,
    /// Whether each map served a frame, and whether it was reported.
    used: Vec<bool>,
    reported: Vec<bool>,
    missing_reported: std::collections::HashSet<String>,
    report: SourceMapReport,
}

impl<'m> Resolver<'m> {
    /// A resolver over `maps`.
    pub fn new(maps: &'m SourceMaps) -> Self {
        Resolver {
            maps,
            by_script: HashMap::new(),
            cache: HashMap::new(),
            used: vec![false; maps.len()],
            reported: vec![false; maps.len()],
            missing_reported: Default::default(),
            report: SourceMapReport::default(),
        }
    }

    /// Where `frame`'s function comes from, if a map says: `None` keeps
    /// the frame as it is (no map, a map that does not parse or does not
    /// reach the frame, no mapping with a source there).
    pub fn resolve(&mut self, frame: &Frame<'_>) -> Option<Original> {
        if frame.url.is_empty() {
            return None;
        }
        let index = self.map_of(frame)?;
        let key = (index, frame.line, frame.column);
        if let Some(known) = self.cache.get(&key) {
            return self.count(known.clone());
        }
        let answer = match self.maps.get(index) {
            Ok(map) => match map.resolve(
                frame.line,
                frame.column,
                frame.script.or(self.maps.script(index)),
                frame.source_map_url.or(Some(frame.url)),
            ) {
                Ok(answer) => answer,
                Err(problem) => {
                    self.problem(index, &problem.to_string());
                    None
                }
            },
            Err(problem) => {
                self.problem(index, &problem.to_string());
                None
            }
        };
        if answer.is_some() {
            self.used[index] = true;
        } else if self.maps.get(index).is_ok() {
            self.report.frames_unmapped += 1;
        }
        self.cache.insert(key, answer.clone());
        self.count(answer)
    }

    fn count(&mut self, answer: Option<Original>) -> Option<Original> {
        if let Some(original) = &answer {
            self.report.frames_resolved += 1;
            self.report.frames_renamed += usize::from(original.name.is_some());
        }
        answer
    }

    /// The map of the frame's script, found once per script URL; a script
    /// with a source map URL and no map is reported.
    fn map_of(&mut self, frame: &Frame<'_>) -> Option<usize> {
        if let Some(known) = self.by_script.get(frame.url) {
            return *known;
        }
        let found = self
            .maps
            .find_declared(frame.url, frame.source_map_url, frame.declared_source_map_url)
            .map(|(i, _)| i);
        if found.is_none() {
            if let Some(map_url) = frame.source_map_url {
                if self.missing_reported.insert(map_url.to_owned()) {
                    let shown = if map_url.starts_with("data:") {
                        "an inline data: URL"
                    } else {
                        map_url
                    };
                    self.report
                        .problems
                        .push(format!("{}: its source map {shown} was not given", frame.url));
                }
            }
        }
        self.by_script.insert(frame.url.to_owned(), found);
        found
    }

    fn problem(&mut self, index: usize, problem: &str) {
        if !std::mem::replace(&mut self.reported[index], true) {
            self.report
                .problems
                .push(format!("{}: {problem}", self.maps.name(index)));
        }
    }

    /// The report, with the maps that matched no script and were not
    /// already reported.
    pub fn finish(mut self) -> SourceMapReport {
        let matched: Vec<usize> = self.by_script.values().flatten().copied().collect();
        for index in 0..self.maps.len() {
            if self.used[index] {
                self.report.maps_used.push(self.maps.name(index).to_owned());
            } else if !matched.contains(&index) {
                match self.maps.get(index) {
                    Err(problem) => {
                        let problem = problem.to_string();
                        self.problem(index, &problem);
                    }
                    Ok(_) => self.problem(index, "matched no script of the profile"),
                }
            }
        }
        self.report
    }
}

#[cfg(test)]
mod tests;
