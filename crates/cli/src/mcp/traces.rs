//! The traces the MCP server reads: a path checked against the server's
//! roots (symlinks resolved, so no link leads out of them), and the loaded
//! analyses kept in a cache bounded by memory, loaded again when their
//! file changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tracekit::insights::InsightSets;
use tracekit::{Analysis, AnalyzeOptions, Parallelism};

use crate::input::{load, Input};

/// Where the server may read.
#[derive(Debug, Clone)]
pub struct Roots {
    /// The directories, canonical.
    dirs: Vec<PathBuf>,
}

impl Roots {
    /// The roots of `dirs`, each resolved; an error names one that does
    /// not exist.
    pub fn new(dirs: &[PathBuf]) -> Result<Roots, String> {
        let dirs = dirs
            .iter()
            .map(|d| {
                d.canonicalize()
                    .map_err(|e| format!("the root {} cannot be used: {e}", d.display()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Roots { dirs })
    }

    /// The file `path` names (relative to the first root), resolved, if
    /// it is a file under a root; else the one line saying why not.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let given = Path::new(path);
        let joined = match (given.is_absolute(), self.dirs.first()) {
            (false, Some(first)) => first.join(given),
            _ => given.to_path_buf(),
        };
        let real = joined
            .canonicalize()
            .map_err(|e| format!("{path}: cannot be read: {e}"))?;
        if !self.dirs.iter().any(|d| real.starts_with(d)) {
            let roots: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
            return Err(format!(
                "{path}: outside the server's roots ({}); give a trace under one of them",
                roots.join(", ")
            ));
        }
        if !real.is_file() {
            return Err(format!("{path}: not a file"));
        }
        Ok(real)
    }
}

/// A trace loaded for the tools: the analysis (with every handler, the
/// events' details and what grouping reads), and its insight sets, made
/// when a tool first asks for them.
pub struct Loaded {
    /// The analysis.
    pub analysis: Analysis,
    /// The pool its insights are computed on.
    pool: Option<Arc<rayon::ThreadPool>>,
    sets: std::sync::OnceLock<Result<InsightSets, String>>,
    /// chrome-devtools-mcp's summary, written once (from the cached sets
    /// it still took 0.29 s on a 700 MB trace).
    summary: std::sync::OnceLock<Result<String, String>>,
}

impl Loaded {
    /// chrome-devtools-mcp's performance summary, written once.
    pub fn summary(&self) -> Result<&str, String> {
        self.summary
            .get_or_init(|| {
                let sets = self.sets()?;
                Ok(tracekit::agent::trace_summary(
                    &self.analysis,
                    sets,
                    &tracekit::agent::Throttling::default(),
                ))
            })
            .as_ref()
            .map(String::as_str)
            .map_err(Clone::clone)
    }

    /// The insight sets (DevTools' insights), made once.
    pub fn sets(&self) -> Result<&InsightSets, String> {
        self.sets
            .get_or_init(|| {
                let sets = match &self.pool {
                    Some(pool) => pool.install(|| tracekit::insights::compute_with(&self.analysis, Parallelism::Rayon)),
                    None => tracekit::insights::compute(&self.analysis),
                };
                sets.map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// A loaded trace and what its file was when loaded.
struct Entry {
    analysis: Arc<Loaded>,
    stamp: Stamp,
    /// The estimate of its memory: its input's bytes.
    bytes: usize,
    /// When it was last used (a counter), for evicting the least recent.
    used: u64,
}

/// What tells that a file changed: its length and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

fn stamp(path: &Path) -> Result<Stamp, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: cannot be read: {e}", path.display()))?;
    Ok(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
    })
}

/// The loaded traces, by canonical path. An analysis is counted as its
/// input's size in bytes (what tracekit keeps of a trace with every
/// handler is a fraction of it, 0.3 to 1.2 times on the bench trace's
/// sizes): past `budget` bytes, the least recently used are dropped.
pub struct TraceCache {
    entries: Mutex<HashMap<PathBuf, Entry>>,
    budget: usize,
    clock: std::sync::atomic::AtomicU64,
    /// `--source-maps`, applied to each trace loaded (`None`:
    /// `--no-source-maps`).
    source_maps: Option<tracekit::SourceMaps>,
    /// The pool traces are loaded and their insights computed on (all
    /// cores), shared by the requests; `None` if it could not be made
    /// (then on the request's own thread).
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl TraceCache {
    /// An empty cache of at most `budget` bytes (one trace is kept even if
    /// larger).
    pub fn new(budget: usize) -> TraceCache {
        TraceCache {
            entries: Mutex::new(HashMap::new()),
            budget,
            clock: std::sync::atomic::AtomicU64::new(0),
            source_maps: None,
            pool: crate::cli::pool(None).ok().flatten().map(Arc::new),
        }
    }

    /// The same cache, applying `maps` (and the maps a trace carries) to
    /// each trace it loads; none with `None`.
    pub fn with_source_maps(mut self, maps: Option<tracekit::SourceMaps>) -> TraceCache {
        self.source_maps = maps;
        self
    }

    /// The analysis of the file at `path` (canonical), with every handler:
    /// from the cache when its file has not changed, else loaded (the
    /// one-line error of the command when it cannot be).
    pub fn get(&self, path: &Path) -> Result<Arc<Loaded>, String> {
        let now = stamp(path)?;
        let tick = self.clock.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(entry) = self.lock().get_mut(path) {
            if entry.stamp == now {
                entry.used = tick;
                return Ok(Arc::clone(&entry.analysis));
            }
        }
        let input = Input::new(path);
        // What every tool reads: the handlers' data (the page, the
        // insights), the events' details (the agent's call trees name
        // them) and what grouping by URL or frame reads; no source maps of
        // the trace's, as chrome-devtools-mcp reads none.
        let parallelism = if self.pool.is_some() {
            Parallelism::Rayon
        } else {
            Parallelism::Sequential
        };
        let options = AnalyzeOptions::default()
            .with_all_handlers(true)
            .with_details(true)
            .with_group_args(true)
            .with_trace_source_maps(false)
            .with_parallelism(parallelism);
        // On the pool, whose thread the reading lends to it while it waits.
        let loaded = match &self.pool {
            Some(pool) => pool.install(|| load(&input, &options, true)),
            None => load(&input, &options, true),
        };
        let mut analysis = loaded
            .map_err(|error| crate::error::CliError::Load {
                file: input.name(),
                error,
            })
            .map_err(|e| e.to_string())?
            .analysis;
        if let Some(maps) = &self.source_maps {
            // Their problems go to stderr, the client's log.
            crate::sourcemaps::apply_given(maps, &input, &mut analysis, false, true);
        }
        let bytes = analysis.input_bytes();
        let analysis = Arc::new(Loaded {
            analysis,
            pool: self.pool.clone(),
            sets: std::sync::OnceLock::new(),
            summary: std::sync::OnceLock::new(),
        });
        let mut entries = self.lock();
        entries.insert(
            path.to_path_buf(),
            Entry {
                analysis: Arc::clone(&analysis),
                stamp: now,
                bytes,
                used: tick,
            },
        );
        evict(&mut entries, self.budget, path);
        Ok(analysis)
    }

    /// How many traces are loaded.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Entry>> {
        // A panic while holding the lock leaves a map that is still whole.
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Drops the least recently used traces but `keep` until the rest fit in
/// `budget` bytes.
fn evict(entries: &mut HashMap<PathBuf, Entry>, budget: usize, keep: &Path) {
    loop {
        let total: usize = entries.values().map(|e| e.bytes).sum();
        if total <= budget {
            return;
        }
        let oldest = entries
            .iter()
            .filter(|(p, _)| p.as_path() != keep)
            .min_by_key(|(_, e)| e.used)
            .map(|(p, _)| p.clone());
        match oldest {
            Some(p) => {
                entries.remove(&p);
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tracekit-mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    const TRACE: &str = r#"[{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"CrRendererMain"}},{"name":"RunTask","ph":"X","ts":1,"dur":5000,"pid":1,"tid":2}]"#;

    #[test]
    fn paths_outside_the_roots_and_through_links_are_refused() {
        let dir = temp("roots");
        let inside = dir.join("in");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(inside.join("a.json"), TRACE).unwrap();
        std::fs::write(dir.join("secret.json"), TRACE).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("secret.json"), inside.join("link.json")).unwrap();
        let roots = Roots::new(std::slice::from_ref(&inside)).unwrap();
        assert!(roots.resolve("a.json").is_ok());
        assert!(roots.resolve(inside.join("a.json").to_str().unwrap()).is_ok());
        for bad in ["../secret.json", dir.join("secret.json").to_str().unwrap(), "link.json"] {
            let e = roots.resolve(bad).unwrap_err();
            assert!(e.contains("outside the server's roots"), "{bad}: {e}");
        }
        assert!(roots.resolve("missing.json").unwrap_err().contains("cannot be read"));
        assert!(roots.resolve(".").unwrap_err().ends_with("not a file"));
        assert!(Roots::new(&[dir.join("nope")]).is_err());
    }

    #[test]
    fn the_cache_reloads_a_changed_file_and_stays_in_its_budget() {
        let dir = temp("cache");
        let (a, b) = (dir.join("a.json"), dir.join("b.json"));
        std::fs::write(&a, TRACE).unwrap();
        std::fs::write(&b, TRACE).unwrap();
        let cache = TraceCache::new(TRACE.len() + 10);
        let first = cache.get(&a).unwrap();
        assert!(
            Arc::ptr_eq(&first, &cache.get(&a).unwrap()),
            "a second read is the cached one"
        );
        // Another trace: the budget holds one, the older goes.
        cache.get(&b).unwrap();
        assert_eq!(cache.len(), 1);
        // A changed file is loaded again.
        let longer = TRACE.replace("5000", "7000000");
        std::fs::write(&b, &longer).unwrap();
        let again = cache.get(&b).unwrap();
        assert!(again.analysis.bounds().max.0 > 7_000_000.0);
        std::fs::write(&a, "not a trace").unwrap();
        assert!(cache.get(&a).is_err());
    }

    #[test]
    fn a_cached_trace_keeps_its_summary() {
        let dir = temp("summary");
        let a = dir.join("a.json");
        std::fs::write(&a, TRACE).unwrap();
        let cache = TraceCache::new(1 << 20);
        let first = cache.get(&a).unwrap().summary().unwrap().as_ptr();
        let loaded = cache.get(&a).unwrap();
        assert_eq!(loaded.summary().unwrap().as_ptr(), first, "written once");
        assert!(loaded
            .summary()
            .unwrap()
            .starts_with("## Summary of Performance trace findings"));
    }

    #[test]
    fn the_cache_applies_its_source_maps_to_each_trace() {
        let profile = crate::sourcemaps::tests_fixture("bundle.cpuprofile");
        let mut maps = tracekit::SourceMaps::new();
        maps.add(
            "bundle.js.map",
            &std::fs::read(crate::sourcemaps::tests_fixture("bundle.js.map")).unwrap(),
        );
        let names = |cache: &TraceCache| -> Vec<String> {
            let loaded = cache.get(&profile).unwrap();
            let strings = loaded.analysis.strings();
            loaded
                .analysis
                .process_tracks()
                .values()
                .flat_map(|p| p.threads.values())
                .flat_map(|t| &t.js_frames)
                .map(|f| strings.resolve(f.call_frame.function_name).to_owned())
                .collect()
        };
        let mapped = names(&TraceCache::new(1 << 30).with_source_maps(Some(maps)));
        assert!(mapped.iter().any(|n| n == "runPrimes"), "{mapped:?}");
        let plain = names(&TraceCache::new(1 << 30));
        assert!(
            plain.iter().any(|n| n == "h") && !plain.iter().any(|n| n == "runPrimes"),
            "{plain:?}"
        );
    }
}
