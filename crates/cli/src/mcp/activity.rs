//! The `main_thread_activity` tool's arguments and answer: the longest
//! tasks with their top functions, the bottom-up summary and the 3rd
//! parties of each insight set, or of a window.

use super::traces::Loaded;

/// What `main_thread_activity` is asked.
#[derive(Debug, Default, Clone, serde::Deserialize, schemars::JsonSchema)]
pub struct ActivityArgs {
    /// The trace file (a path under the server's roots).
    pub path: String,
    /// Only this window of the trace: START,END in the trace's µs, as the
    /// summary writes bounds and the texts write event times (e.g. an
    /// insight's relevant trace bounds). Default: each insight set.
    pub window: Option<String>,
}

/// The main thread activity, as `tracekit agent activity` prints it.
pub fn main_thread_activity(loaded: &Loaded, args: &ActivityArgs) -> Result<String, String> {
    let window = args
        .window
        .as_deref()
        .map(str::parse::<tracekit::agent::Window>)
        .transpose()
        .map_err(|e| format!("window: {e}"))?;
    let sets = loaded.sets()?;
    tracekit::agent::main_thread_activity(&loaded.analysis, sets, window).map_err(|e| e.to_string())
}
