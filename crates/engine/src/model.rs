//! The model a user walks: [`Analysis`]'s accessors, and the handles
//! they return ([`Process`], [`Thread`], [`Node`], [`Function`]), which
//! borrow the analysis so that names come back as text (a
//! [`Sym`](crate::Sym) means
//! something only with the analysis' [`Strings`]) and ids as the numbers
//! the outputs print.
//!
//! The handles are views, cheap to copy; the data they point to is the
//! tracks' own ([`ThreadTrack`], [`TrackNode`]), which
//! [`Thread::track`] and [`Node::raw`] give for code that works on it in
//! bulk (the aggregated views of `tracekit-views` take a [`ThreadTrack`]).

use std::fmt;

use tracekit_events::{Id, Micros, Phase, Strings};

pub use crate::diagnostics::Diagnostics;
use tracekit_meta::Bounds;
use tracekit_renderer::{JsFrame, NodeKind, NumberedThreads, ProcessTracks, ThreadTrack, TrackNode};

use crate::engine::Analysis;
use crate::loader::InputKind;
use crate::query::{find_threads, QueryError};
use crate::registry::{HandlerData, Registered};

/// What a function without a name is called in the outputs for people
/// (`tracks`, the flame chart), as DevTools calls it.
pub const ANONYMOUS: &str = "(anonymous)";

impl Analysis {
    /// What the input was.
    pub fn kind(&self) -> InputKind {
        self.kind
    }

    /// The span of the trace, in µs in the trace's clock: the earliest
    /// start and the latest end of its timed events (of the profile, for a
    /// profile on its own); [`Bounds::EMPTY`] (infinite) when it has none.
    /// The outputs count time from `bounds().min`.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// The strings the tracks' symbols ([`Sym`](crate::Sym)) stand for.
    pub fn strings(&self) -> &Strings {
        &self.strings
    }

    /// The processes with tracks, in DevTools' order (the order of the
    /// outputs). Only those DevTools shows, unless loaded with
    /// [`AnalyzeOptions::with_all_processes`](crate::AnalyzeOptions::with_all_processes).
    ///
    /// ```
    /// let trace = br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":7,"tid":8}]"#;
    /// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
    /// let pids: Vec<_> = analysis.processes().map(|p| p.pid()).collect();
    /// assert_eq!(pids, [7]);
    /// # Ok::<(), tracekit::LoadError>(())
    /// ```
    pub fn processes(&self) -> impl ExactSizeIterator<Item = Process<'_>> + '_ {
        self.processes.iter().map(move |(pid, tracks)| Process {
            analysis: self,
            pid: *pid,
            tracks,
        })
    }

    /// The process `pid`, if it has tracks: `analysis.process(19383)`.
    pub fn process(&self, pid: impl Into<Id>) -> Option<Process<'_>> {
        let (pid, tracks) = self.processes.get_key_value(&pid.into())?;
        Some(Process {
            analysis: self,
            pid: *pid,
            tracks,
        })
    }

    /// Every thread with tracks, process by process, in the order of the
    /// outputs.
    pub fn threads(&self) -> impl Iterator<Item = Thread<'_>> + '_ {
        self.processes().flat_map(|process| process.threads())
    }

    /// The thread `tid` of process `pid`, if it has tracks.
    pub fn thread(&self, pid: impl Into<Id>, tid: impl Into<Id>) -> Option<Thread<'_>> {
        self.process(pid)?.thread(tid)
    }

    /// The thread of a number, as the handlers' data name the threads of
    /// the entries they hold ([`ThreadNumber`](tracekit_page::ThreadNumber)).
    pub fn thread_by_number(&self, number: tracekit_page::ThreadNumber) -> Option<Thread<'_>> {
        let (pid, tid, track) = self.numbered_threads().thread(number)?;
        Some(Thread {
            analysis: self,
            pid,
            tid,
            track,
        })
    }

    /// The tracks with their threads numbered: what reads the entries the
    /// handlers' data name by place.
    pub fn numbered_threads(&self) -> NumberedThreads<'_> {
        NumberedThreads(&self.processes)
    }

    /// The threads a query names, as `tracekit tracks --thread` reads it:
    /// a thread name in any case (`crrenderermain`), or a part of the names
    /// of threads that all have that name (`Renderer`), or a tid as printed
    /// (`"19383"`). Several threads may share a name (workers, pools).
    ///
    /// ```
    /// let trace = br#"[
    /// {"name":"thread_name","ph":"M","pid":1,"tid":10,"args":{"name":"CrRendererMain"}},
    /// {"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":10}]"#;
    /// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
    /// let main = analysis.find_threads("main").unwrap()[0];
    /// assert_eq!((main.tid(), main.name()), (tracekit::Id::from(10), Some("CrRendererMain")));
    /// assert!(analysis.find_threads("gpu").is_err());
    /// # Ok::<(), tracekit::LoadError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`QueryError::NoThread`] when no thread matches (its message lists
    /// the threads there are), [`QueryError::AmbiguousThread`] when the
    /// query is part of several names.
    pub fn find_threads(&self, query: &str) -> Result<Vec<Thread<'_>>, QueryError> {
        let found = find_threads(self, query)?;
        Ok(found.iter().filter_map(|t| self.thread(t.pid, t.tid)).collect())
    }

    /// What was skipped, repaired or done differently from DevTools.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// How many events were read (0 for a profile on its own).
    pub fn event_count(&self) -> usize {
        self.event_count
    }

    /// The size of the input in bytes, decompressed.
    pub fn input_bytes(&self) -> usize {
        self.input_bytes
    }

    /// The trace's `metadata` object, as raw JSON text, when the trace is
    /// an object that has one.
    pub fn metadata(&self) -> Option<&str> {
        self.metadata.as_deref()
    }

    /// Whether the trace is generic: not recorded by Chrome's DevTools
    /// (no `TracingStartedInBrowser` or the like). DevTools then shows
    /// every process, and colours entries by name.
    pub fn is_generic(&self) -> bool {
        self.meta().is_some_and(|m| m.trace_is_generic)
    }

    /// The id of the page's main frame, from the trace's
    /// `TracingStartedInBrowser`.
    pub fn main_frame_id(&self) -> Option<&str> {
        let id = self.meta()?.main_frame_id?;
        Some(self.strings.resolve(id))
    }

    /// The URL the trace's metadata gives the frame `frame_id`, if any.
    pub fn frame_url(&self, frame_id: &str) -> Option<&str> {
        let meta = self.meta()?;
        let strings = &self.strings;
        let (_, by_process) = meta
            .renderer_processes_by_frame
            .iter()
            .find(|(frame, _)| frame.is_some_and(|f| strings.resolve(f) == frame_id))?;
        let url = by_process.values().flatten().find_map(|w| w.frame.url)?;
        Some(strings.resolve(url)).filter(|u| !u.is_empty())
    }

    /// Whether the tracks keep what grouping by URL, domain or frame reads
    /// of the events (loaded with
    /// [`AnalyzeOptions::with_group_args`](crate::AnalyzeOptions::with_group_args);
    /// always true of a profile on its own, which has no events).
    pub fn has_group_args(&self) -> bool {
        self.group_args
    }

    /// The tracks of every process built, in DevTools' order: the stored
    /// data, for the crates that work on threads in bulk (views, exports).
    pub fn process_tracks(&self) -> &crate::ProcessMap {
        &self.processes
    }

    /// What the Meta handler found; `None` for a profile on its own.
    pub fn meta(&self) -> Option<&tracekit_meta::MetaData> {
        self.handlers.as_ref().map(HandlerData::meta)
    }

    /// The data of every handler of the trace that keeps its data; `None`
    /// for a profile on its own, which no handler sees.
    pub fn handlers(&self) -> Option<&HandlerData> {
        self.handlers.as_ref()
    }

    /// The data of handler `H`, whichever it is: the one accessor for
    /// every handler (the typed ones are on [`HandlerData`]).
    ///
    /// ```
    /// let trace = br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":2}]"#;
    /// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
    /// let meta = analysis.data::<tracekit::MetaHandler>().unwrap();
    /// assert_eq!(meta.bounds.range().0, 5.0);
    /// # Ok::<(), tracekit::LoadError>(())
    /// ```
    pub fn data<H: Registered>(&self) -> Option<&H::Data> {
        H::data_in(self.handlers.as_ref()?)
    }

    /// The number of CPU samples of the profile of thread `tid` of process
    /// `pid`, whether or not that thread has tracks.
    pub fn profile_samples(&self, pid: Id, tid: Id) -> Option<usize> {
        self.profile_samples.get(&pid)?.get(&tid).copied()
    }

    /// The name of the process `pid` from the trace's `process_name`
    /// metadata (`Browser`, `GPU Process`, `Renderer`, ...), whether or
    /// not the process has tracks.
    pub fn process_name(&self, pid: Id) -> Option<&str> {
        let name = self.meta()?.process_names.get(&pid)?;
        Some(self.strings.resolve(*name)).filter(|n| !n.is_empty())
    }
}

/// A process with tracks (see [`Analysis::processes`]).
///
/// ```
/// let trace = br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":7,"tid":8},
///                  {"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":7,"tid":9}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// let process = analysis.process(7).unwrap();
/// let tids: Vec<u64> = process.threads().filter_map(|t| t.tid().as_u64()).collect();
/// assert_eq!(tids, [8, 9]);
/// assert_eq!((process.url(), process.is_on_main_frame()), (None, false));
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Process<'a> {
    analysis: &'a Analysis,
    pid: Id,
    tracks: &'a ProcessTracks,
}

impl<'a> Process<'a> {
    /// Its id, as the trace gives it: `process.pid() == 19383`.
    pub fn pid(&self) -> Id {
        self.pid
    }

    /// Its name from the trace's `process_name` metadata (`Renderer`,
    /// `Browser`, ...), if any.
    pub fn name(&self) -> Option<&'a str> {
        self.analysis.process_name(self.pid)
    }

    /// Its URL: the first valid URL of the frames it rendered, else that of
    /// the auction worklet it hosts.
    pub fn url(&self) -> Option<&'a str> {
        self.tracks.url.map(|u| self.analysis.strings.resolve(u))
    }

    /// Whether it rendered the page's main frame.
    pub fn is_on_main_frame(&self) -> bool {
        self.tracks.is_on_main_frame
    }

    /// Whether DevTools shows it (false only for the processes an analysis
    /// made with [`AnalyzeOptions::with_all_processes`](crate::AnalyzeOptions::with_all_processes) adds).
    pub fn kept_by_devtools(&self) -> bool {
        self.tracks.kept_by_devtools
    }

    /// The strings of its analysis.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn strings(&self) -> &'a Strings {
        &self.analysis.strings
    }

    /// Its threads with tracks, in DevTools' order.
    pub fn threads(&self) -> impl ExactSizeIterator<Item = Thread<'a>> + 'a {
        let (analysis, pid) = (self.analysis, self.pid);
        self.tracks.threads.iter().map(move |(tid, track)| Thread {
            analysis,
            pid,
            tid: *tid,
            track,
        })
    }

    /// Its thread `tid`, if it has tracks.
    pub fn thread(&self, tid: impl Into<Id>) -> Option<Thread<'a>> {
        let (tid, track) = self.tracks.threads.get_key_value(&tid.into())?;
        Some(Thread {
            analysis: self.analysis,
            pid: self.pid,
            tid: *tid,
            track,
        })
    }
}

impl fmt::Debug for Process<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Process")
            .field("pid", &self.pid)
            .field("name", &self.name())
            .field("url", &self.url())
            .field("threads", &self.tracks.threads.len())
            .finish()
    }
}

/// A thread with tracks: its call tree (trace events and the JS calls
/// built from its CPU samples, nested by time) and the functions of its
/// profile.
///
/// ```
/// let trace = br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":2},
///                  {"name":"Layout","ph":"X","ts":2,"dur":3,"pid":1,"tid":2}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// let thread = analysis.thread(1, 2).unwrap();
/// let lines: Vec<String> = thread
///     .nodes()
///     .map(|n| format!("{}{} {}", "  ".repeat(n.depth() as usize), n.name(), n.duration().0))
///     .collect();
/// assert_eq!(lines, ["RunTask 5", "  Layout 3"]);
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Thread<'a> {
    analysis: &'a Analysis,
    pid: Id,
    tid: Id,
    track: &'a ThreadTrack,
}

impl<'a> Thread<'a> {
    /// Its process's id.
    pub fn pid(&self) -> Id {
        self.pid
    }

    /// Its id, as the trace gives it: `thread.tid() == 19383`.
    pub fn tid(&self) -> Id {
        self.tid
    }

    /// The strings of its analysis.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn strings(&self) -> &'a Strings {
        &self.analysis.strings
    }

    /// Its id as the outputs print it (`19383`; a string id as it is).
    pub fn tid_text(&self) -> String {
        self.tid.to_js_string(&self.analysis.strings)
    }

    /// Its name from the trace's metadata (`CrRendererMain`), its tid when
    /// the metadata named it without a name; `None` without metadata.
    pub fn name(&self) -> Option<&'a str> {
        self.track.name.as_deref()
    }

    /// Its process.
    pub fn process(&self) -> Process<'a> {
        self.analysis.process(self.pid).expect("a thread's process has tracks")
    }

    /// Its tracks as they are stored, for code that works on them in bulk
    /// (the aggregated views of `tracekit-views` take them): the nodes in
    /// pre-order, names as symbols of [`Analysis::strings`].
    ///
    /// ```
    /// use tracekit::NodeKind;
    /// let trace = br#"[{"name":"RunTask","ph":"X","ts":1,"dur":5,"pid":1,"tid":2},
    ///                  {"name":"Layout","ph":"X","ts":2,"dur":3,"pid":1,"tid":2}]"#;
    /// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
    /// let track = analysis.thread(1, 2).unwrap().track();
    /// let layout = analysis.strings().lookup("Layout").unwrap();
    /// let layouts = track
    ///     .nodes
    ///     .iter()
    ///     .filter(|n| matches!(n.kind(), NodeKind::Event { name, .. } if name == layout))
    ///     .count();
    /// assert_eq!(layouts, 1);
    /// # Ok::<(), tracekit::LoadError>(())
    /// ```
    pub fn track(&self) -> &'a ThreadTrack {
        self.track
    }

    /// How many nodes its tree has.
    pub fn node_count(&self) -> usize {
        self.track.nodes.len()
    }

    /// Every node of its tree, depth first (pre-order): a node is followed
    /// by its descendants, children in time order. This is the way to
    /// visit the whole tree: it takes no stack, however deep the tree.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = Node<'a>> + DoubleEndedIterator + 'a {
        let thread = *self;
        (0..self.track.nodes.len()).map(move |index| Node { thread, index })
    }

    /// The node at `index` in [`Thread::nodes`]'s order.
    pub fn node(&self, index: usize) -> Option<Node<'a>> {
        (index < self.track.nodes.len()).then_some(Node { thread: *self, index })
    }

    /// The top-level nodes (tasks, mostly), in time order.
    pub fn roots(&self) -> Children<'a> {
        Children {
            thread: *self,
            next: 0,
            end: self.track.nodes.len(),
            depth: 0,
        }
    }

    /// The function of each JS call ([`Node::function`] for a node's),
    /// every node of the thread's CPU profile.
    pub fn functions(&self) -> impl ExactSizeIterator<Item = Function<'a>> + 'a {
        let strings = &self.analysis.strings;
        self.track
            .js_frames
            .iter()
            .map(move |frame| Function { strings, frame })
    }

    /// How many CPU samples its profile has (`None` without a profile).
    pub fn profile_sample_count(&self) -> Option<usize> {
        self.analysis.profile_samples.get(&self.pid)?.get(&self.tid).copied()
    }

    /// `Some(at_least)` when the thread was not built: its tree would
    /// have more nodes than
    /// [`AnalyzeOptions::max_nodes`](crate::AnalyzeOptions::max_nodes)
    /// allows (at least this many), and it has none.
    pub fn over_budget(&self) -> Option<usize> {
        self.track.over_budget
    }
}

impl fmt::Display for Thread<'_> {
    /// `CrRendererMain (tid 123)`, or `tid 123` for a thread without a
    /// name, as the outputs' messages name threads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tid = self.tid_text();
        match self.name() {
            // A thread without a name in its metadata is named by its tid.
            Some(name) if !name.is_empty() && name != tid => write!(f, "{name} (tid {tid})"),
            _ => write!(f, "tid {tid}"),
        }
    }
}

impl fmt::Debug for Thread<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Thread")
            .field("pid", &self.pid)
            .field("tid", &self.tid)
            .field("name", &self.name())
            .field("nodes", &self.node_count())
            .finish()
    }
}

/// A node of a thread's call tree: a trace event, or a JS call built from
/// CPU samples. Times are in microseconds, in the trace's clock
/// ([`Analysis::bounds`] is its span).
///
/// ```
/// let trace = br#"[{"name":"RunTask","cat":"toplevel","ph":"X","ts":10,"dur":5,"pid":1,"tid":2}]"#;
/// let analysis = tracekit::analyze_bytes(trace, &tracekit::AnalyzeOptions::default())?;
/// let task = analysis.thread(1, 2).unwrap().roots().next().unwrap();
/// assert_eq!((task.name(), task.category()), ("RunTask", Some("toplevel")));
/// assert_eq!((task.start().0, task.duration().to_millis().0, task.end().0), (10.0, 0.005, 15.0));
/// assert_eq!(task.self_time().map(|t| t.0), Some(5.0));
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Node<'a> {
    thread: Thread<'a>,
    index: usize,
}

impl<'a> Node<'a> {
    /// The node as it is stored.
    pub fn raw(&self) -> &'a TrackNode {
        &self.thread.track.nodes[self.index]
    }

    /// Its position in its thread's [`Thread::nodes`].
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its thread.
    pub fn thread(&self) -> Thread<'a> {
        self.thread
    }

    /// Its depth in the tree: 0 for the roots.
    pub fn depth(&self) -> u32 {
        self.raw().depth()
    }

    /// When it started.
    pub fn start(&self) -> Micros {
        self.raw().ts()
    }

    /// How long it lasted (0 for an instant event).
    pub fn duration(&self) -> Micros {
        self.raw().dur().unwrap_or(Micros::ZERO)
    }

    /// When it ended.
    pub fn end(&self) -> Micros {
        self.start() + self.duration()
    }

    /// Its duration less its children's; `None` where DevTools has none
    /// (an unclosed frame of a profile on its own).
    pub fn self_time(&self) -> Option<Micros> {
        self.raw().self_time()
    }

    /// Its name as `tracekit tracks` prints it: the event's name, or the
    /// function's ([`Function::name`]: `(anonymous)` for a function
    /// without one).
    pub fn name(&self) -> &'a str {
        match self.raw().kind() {
            NodeKind::Event { name, .. } => self.thread.analysis.strings.resolve(name),
            NodeKind::Call { .. } => self.function().map_or("?", |f| f.name()),
        }
    }

    /// Whether it is a JS call built from CPU samples (else a trace event).
    pub fn is_js_call(&self) -> bool {
        matches!(self.raw().kind(), NodeKind::Call { .. })
    }

    /// The category of a trace event (`None` for a JS call).
    pub fn category(&self) -> Option<&'a str> {
        match self.raw().kind() {
            NodeKind::Event { cat, .. } => Some(self.thread.analysis.strings.resolve(cat)),
            NodeKind::Call { .. } => None,
        }
    }

    /// The phase of a trace event: [`Phase::COMPLETE`] (`X`, begin/end
    /// pairs included) or [`Phase::INSTANT`] (`I`); `None` for a JS call.
    pub fn phase(&self) -> Option<Phase> {
        match self.raw().kind() {
            NodeKind::Event { ph, .. } => Some(ph),
            NodeKind::Call { .. } => None,
        }
    }

    /// The function of a JS call (`None` for a trace event).
    pub fn function(&self) -> Option<Function<'a>> {
        let frame = self.thread.track.js_frame(&self.raw().kind())?;
        Some(Function {
            strings: &self.thread.analysis.strings,
            frame,
        })
    }

    /// Its children, in time order. Finding them walks the node's subtree:
    /// to visit a whole tree, [`Thread::nodes`] is quicker (and takes no
    /// stack, where recursing over `children` takes a frame per level).
    pub fn children(&self) -> Children<'a> {
        Children {
            thread: self.thread,
            next: self.index + 1,
            end: self.subtree_end(),
            depth: self.depth() + 1,
        }
    }

    /// Its descendants, depth first (pre-order).
    pub fn descendants(&self) -> impl ExactSizeIterator<Item = Node<'a>> + 'a {
        let thread = self.thread;
        (self.index + 1..self.subtree_end()).map(move |index| Node { thread, index })
    }

    /// Its parent (`None` for a root): the nearest node before it one level
    /// less deep.
    pub fn parent(&self) -> Option<Node<'a>> {
        let depth = self.depth().checked_sub(1)?;
        let nodes = &self.thread.track.nodes[..self.index];
        let index = nodes.iter().rposition(|n| n.depth() == depth)?;
        Some(Node {
            thread: self.thread,
            index,
        })
    }

    /// The index after its last descendant.
    fn subtree_end(&self) -> usize {
        let depth = self.depth();
        let after = &self.thread.track.nodes[self.index + 1..];
        self.index + 1 + after.iter().position(|n| n.depth() <= depth).unwrap_or(after.len())
    }
}

impl fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("name", &self.name())
            .field("depth", &self.depth())
            .field("start", &self.start())
            .field("duration", &self.duration())
            .field("self_time", &self.self_time())
            .finish()
    }
}

/// The children of a node, or the roots of a thread, in time order
/// ([`Node::children`], [`Thread::roots`]).
#[derive(Clone)]
pub struct Children<'a> {
    thread: Thread<'a>,
    next: usize,
    end: usize,
    depth: u32,
}

impl<'a> Iterator for Children<'a> {
    type Item = Node<'a>;

    fn next(&mut self) -> Option<Node<'a>> {
        let nodes = &self.thread.track.nodes;
        while self.next < self.end {
            let index = self.next;
            self.next += 1;
            if nodes[index].depth() == self.depth {
                return Some(Node {
                    thread: self.thread,
                    index,
                });
            }
        }
        None
    }
}

/// A function of a thread's CPU profile: what a JS call runs.
///
/// ```
/// let profile = br#"{"nodes":[
///   {"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
///   {"id":2,"callFrame":{"functionName":"","scriptId":"7","url":"file:///app.js","lineNumber":2,"columnNumber":4}}],
///   "startTime":0,"endTime":300,"samples":[2,2],"timeDeltas":[100,100]}"#;
/// let analysis = tracekit::analyze_bytes(profile, &tracekit::AnalyzeOptions::default())?;
/// let call = analysis.threads().next().unwrap().roots().next().unwrap();
/// let function = call.function().unwrap();
/// assert_eq!((call.name(), function.function_name()), ("(anonymous)", ""));
/// assert_eq!((function.url(), function.line_number(), function.column_number()), ("file:///app.js", Some(2), Some(4)));
/// assert_eq!(function.location(), "file:///app.js:3:5");
/// # Ok::<(), tracekit::LoadError>(())
/// ```
#[derive(Clone, Copy)]
pub struct Function<'a> {
    strings: &'a Strings,
    frame: &'a JsFrame,
}

impl<'a> Function<'a> {
    /// The function as it is stored.
    pub fn raw(&self) -> &'a JsFrame {
        self.frame
    }

    /// Its name as the outputs for people print it: [`ANONYMOUS`]
    /// (`(anonymous)`) for a function without a name, as DevTools shows it.
    pub fn name(&self) -> &'a str {
        match self.function_name() {
            "" => ANONYMOUS,
            name => name,
        }
    }

    /// Its name as the profile gives it (`""` for an anonymous function),
    /// as the JSON outputs and the conformance dump write it.
    pub fn function_name(&self) -> &'a str {
        self.strings.resolve(self.frame.call_frame.function_name)
    }

    /// Its script's URL (`""` when none).
    pub fn url(&self) -> &'a str {
        self.strings.resolve(self.frame.call_frame.url)
    }

    /// Its script's id, as text.
    pub fn script_id(&self) -> &'a str {
        self.strings.resolve(self.frame.call_frame.script_id)
    }

    /// Its line in the script, 0-based as profiles count (`None` when
    /// unknown).
    pub fn line_number(&self) -> Option<u32> {
        whole(self.frame.call_frame.line_number)
    }

    /// Its column in the line, 0-based as profiles count (`None` when
    /// unknown).
    pub fn column_number(&self) -> Option<u32> {
        whole(self.frame.call_frame.column_number)
    }

    /// `URL:LINE:COLUMN` with the line and column counted from 1, as
    /// DevTools and `tracekit tracks` show them (an unknown line or column
    /// left out; empty when nothing is known).
    pub fn location(&self) -> String {
        let mut out = String::new();
        let frame = &self.frame.call_frame;
        write_js_location(&mut out, self.url(), frame.line_number, frame.column_number);
        out.trim_start().to_owned()
    }

    /// The id of its node in the CPU profile.
    pub fn node_id(&self) -> i64 {
        self.frame.node_id
    }
}

impl fmt::Debug for Function<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Function")
            .field("name", &self.name())
            .field("location", &self.location())
            .finish()
    }
}

/// A line or column as a whole number (profiles write -1 for "none").
fn whole(x: Option<f64>) -> Option<u32> {
    let x = x?;
    // Whole and within u32: exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&x)).then_some(x as u32)
}

/// ` URL:LINE:COLUMN` with the line and column counted from 1, as DevTools
/// shows them (profiles count from 0); an unknown (negative) line or
/// column is left out, and so is the whole location when nothing is known.
pub fn write_js_location(out: &mut String, url: &str, line: Option<f64>, column: Option<f64>) {
    let one_based = |x: Option<f64>| x.filter(|x| x.is_finite() && *x >= 0.0).map(|x| x + 1.0);
    let (line, column) = (one_based(line), one_based(column));
    if url.is_empty() && line.is_none() {
        return;
    }
    out.push(' ');
    out.push_str(url);
    if let Some(line) = line {
        out.push(':');
        tracekit_events::jsnum::write_js_number(out, line);
        if let Some(column) = column {
            out.push(':');
            tracekit_events::jsnum::write_js_number(out, column);
        }
    }
}
