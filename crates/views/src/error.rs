//! The views' error: what keeps the views of an analysis from being
//! computed.

use crate::GroupingError;
#[cfg(doc)]
use crate::ViewOptions;

/// Why the views of an analysis cannot be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViewError {
    /// A grouping the analysis was not made for.
    Grouping(GroupingError),
    /// A thread's Bottom-Up would have more nodes than the budget
    /// ([`ViewOptions::max_nodes`]): calls nested deep under many
    /// different callers make up to one node per call and caller, so a
    /// small trace can ask for gigabytes. Fewer levels
    /// ([`ViewOptions::query`]) build fewer.
    TooManyNodes {
        /// The thread, in words (its name, pid and tid).
        thread: String,
        /// The budget.
        max_nodes: usize,
    },
}

impl From<GroupingError> for ViewError {
    fn from(e: GroupingError) -> ViewError {
        ViewError::Grouping(e)
    }
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ViewError::Grouping(e) => e.fmt(f),
            ViewError::TooManyNodes { thread, max_nodes } => write!(
                f,
                "{thread}: its Bottom-Up tree would have more than {max_nodes} nodes (calls nested deep under many \
                 different callers)"
            ),
        }
    }
}

impl std::error::Error for ViewError {}
