//! What the views are computed over ([`ViewOptions`]), and the computing
//! of each selected thread's views for a dump ([`per_thread`]): in the
//! order of the tracks dump, on the caller's thread or on rayon's pool.

use tracekit_engine::query::Query;
use tracekit_engine::{Analysis, Id, Millis, Parallelism, ThreadTrack};

use crate::{thread_views_to_depth, GroupBy, ThreadViews, ViewError, Window};

/// What the views are computed over, and how: the [`Query`] (its
/// threads, window and levels; the views keep every duration), the
/// grouping, and whether threads may be computed on other cores. The
/// default is every thread, the whole trace, every level, no grouping, on
/// the caller's thread.
///
/// ```
/// use tracekit::query::{Query, Window};
/// use tracekit::views::{GroupBy, ViewOptions};
/// use tracekit::Millis;
/// let query = Query::new().with_window(Window::new(Millis(100.0), Millis(250.0))?).with_levels(3)?;
/// let options = ViewOptions::new().query(query).group_by(GroupBy::Category);
/// assert_eq!(options.query.levels(), Some(3));
/// # Ok::<(), tracekit::query::QueryError>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ViewOptions {
    /// The threads (checked with [`Query::validate`]: a thread query that
    /// names none computes none), the selected range (`None`: the trace
    /// bounds) and the levels (rows of depth < levels; `None`: all).
    pub query: Query,
    /// The panel's "Group by".
    pub group_by: GroupBy,
    /// The most nodes a thread's Bottom-Up may have (`None`:
    /// [`tracekit_engine::DEFAULT_MAX_NODES`]); past them, the views fail
    /// ([`ViewError::TooManyNodes`]).
    pub max_nodes: Option<usize>,
    /// [`Parallelism::Rayon`]: threads are computed (and written) on
    /// rayon's pool; the output is the same.
    pub parallelism: Parallelism,
    /// How [`write_text`](crate::write_text) writes its rows (the other
    /// dumps have every row, URLs whole).
    pub text: TextRows,
}

/// Which rows the text of the views writes, and how.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct TextRows {
    /// Only the first N rows of each thread (`None`: all).
    pub top: Option<usize>,
    /// Only the rows whose total is at least this many ms, a row left out
    /// taking the rows under it along (`None`: all).
    pub min_total: Option<Millis>,
    /// URLs whole; else short (`app.js:1:19`, with the host when it is not
    /// the process' own: [`tracekit_engine::support::short_url`]).
    pub full_urls: bool,
}

impl TextRows {
    /// Every row, URLs short.
    pub fn new() -> TextRows {
        TextRows::default()
    }

    /// Only the first `n` rows of each thread.
    pub fn top(mut self, n: Option<usize>) -> Self {
        self.top = n;
        self
    }

    /// Only the rows whose total is at least `min`.
    pub fn min_total(mut self, min: Option<Millis>) -> Self {
        self.min_total = min;
        self
    }

    /// URLs whole.
    pub fn full_urls(mut self, full: bool) -> Self {
        self.full_urls = full;
        self
    }
}

impl ViewOptions {
    /// The default options.
    pub fn new() -> ViewOptions {
        ViewOptions::default()
    }

    /// The threads, window and levels of `query`.
    pub fn query(mut self, query: Query) -> Self {
        self.query = query;
        self
    }

    /// The grouping.
    pub fn group_by(mut self, group_by: GroupBy) -> Self {
        self.group_by = group_by;
        self
    }

    /// The most nodes a thread's Bottom-Up may have.
    pub fn max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = Some(max_nodes);
        self
    }

    /// Whether threads may be computed on other cores.
    pub fn parallelism(mut self, parallelism: Parallelism) -> Self {
        self.parallelism = parallelism;
        self
    }

    /// The rows of the text, and how it writes them.
    pub fn text(mut self, text: TextRows) -> Self {
        self.text = text;
        self
    }
}

/// Computes the views of each thread `options` selects and hands them to
/// `write`, which makes that thread's piece of a dump; the pieces come
/// back in the order of the tracks dump, whatever the parallelism.
pub(crate) fn per_thread<W>(
    analysis: &Analysis,
    options: &ViewOptions,
    window: Window,
    write: W,
) -> Result<Vec<String>, ViewError>
where
    W: Fn(Id, Id, &ThreadTrack, &ThreadViews) -> String + Sync,
{
    options.group_by.check(analysis)?;
    let only = options.query.kept_threads(analysis);
    let selected: Vec<(Id, Id, &ThreadTrack)> = threads(analysis)
        .filter(|(pid, tid, _)| only.as_ref().is_none_or(|o| o.contains(&(*pid, *tid))))
        .collect();
    let levels = options.query.levels();
    let piece = |&(pid, tid, track): &(Id, Id, &ThreadTrack)| {
        let max_nodes = options.max_nodes.unwrap_or(tracekit_engine::DEFAULT_MAX_NODES);
        let views = thread_views_to_depth(analysis, track, window, levels, options.group_by, max_nodes)?;
        Ok(write(pid, tid, track, &views))
    };
    match options.parallelism {
        Parallelism::Sequential => selected.iter().map(piece).collect(),
        Parallelism::Rayon => {
            use rayon::prelude::*;
            // Largest threads first, so that a big thread does not start
            // last; the pieces are put back in order after.
            let mut order: Vec<usize> = (0..selected.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(selected[i].2.nodes.len()));
            let mut pieces: Vec<(usize, String)> = order
                .into_par_iter()
                .with_max_len(1)
                .map(|i| piece(&selected[i]).map(|p| (i, p)))
                .collect::<Result<_, _>>()?;
            pieces.sort_by_key(|(i, _)| *i);
            Ok(pieces.into_iter().map(|(_, p)| p).collect())
        }
    }
}

/// The threads of the tracks, in the order of the tracks dump.
pub(crate) fn threads(analysis: &Analysis) -> impl Iterator<Item = (Id, Id, &ThreadTrack)> {
    analysis.threads().map(|t| (t.pid(), t.tid(), t.track()))
}
