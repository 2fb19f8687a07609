"""Type stubs of the extension module (src/lib.rs)."""

import os
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import pyarrow

__version__: str

DEVTOOLS_DEFAULT: DevToolsVersion
"""The DevTools engine followed when ``devtools`` is left out."""

TableName = Literal[
    "tracks",
    "calls",
    "samples",
    "threads",
    "diagnostics",
    "requests",
    "navigations",
    "layout_shifts",
    "interactions",
    "user_timings",
    "initiators",
    "warnings",
    "scripts",
]
DevToolsVersion = Literal["2026-06", "2026-10"]
"""A DevTools engine: ``"2026-10"``, today's Performance panel (the engine
of chrome-devtools-mcp 1.11.0), or ``"2026-06"``,
``@paulirish/trace_engine`` 0.0.65 (as Lighthouse 13.5 pins it)."""
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

class TraceError(Exception):
    """A trace that cannot be read or loaded. ``str(error)`` is the line
    the ``tracekit`` command prints after ``tracekit: ``: ``TRACE: WHAT``,
    with the byte offset when known."""

class Trace:
    """A loaded trace: the Performance panel's tracks of each thread."""

    @property
    def name(self) -> str:
        """The trace's name in the tables' ``trace`` column."""
    @property
    def kind(self) -> Literal["ChromeTrace", "CpuProfile", "SelfProfiling"]:
        """What the input is."""
    def tracks(self) -> pyarrow.Table:
        """One row per track node (trace event or JS call) of every thread."""
    def calls(self) -> pyarrow.Table:
        """The Call Tree (top-down) of every thread over the whole trace."""
    def samples(self) -> pyarrow.Table:
        """One row per CPU sample, with the track node it belongs to."""
    def threads(self) -> pyarrow.Table:
        """One row per thread with tracks."""
    def diagnostics(self) -> pyarrow.Table:
        """What was skipped, repaired or done differently while loading."""
    def requests(self) -> pyarrow.Table:
        """One row per network request. Needs ``load(..., all_handlers=True)``
        (else ``ValueError``), as the other page tables and ``data``."""
    def navigations(self) -> pyarrow.Table:
        """One row per navigation of the main frame, with its metrics (FCP,
        LCP, DCL, load, TBT, CLS, INP and their ratings)."""
    def layout_shifts(self) -> pyarrow.Table:
        """One row per layout shift, with its cluster and navigation."""
    def interactions(self) -> pyarrow.Table:
        """One row per interaction: input delay, processing, presentation
        delay, nested or not."""
    def user_timings(self) -> pyarrow.Table:
        """One row per performance mark, measure, console timing and
        ``console.timeStamp``."""
    def initiators(self) -> pyarrow.Table:
        """One row per event with an initiator: the event, its initiator
        (on a track or not) and the kind of link (timer, animation frame,
        style recalc, layout invalidation, flow, async call...)."""
    def warnings(self) -> pyarrow.Table:
        """One row per warning of an entry: ``LONG_TASK``,
        ``FORCED_REFLOW``, ``IDLE_CALLBACK_OVER_TIME``,
        ``LONG_INTERACTION``, with the panel's words."""
    def scripts(self) -> pyarrow.Table:
        """One row per script of V8's source rundown: URL, frame, source
        map URL (as written and resolved), inline, length, request."""
    def insights(self) -> pyarrow.Table:
        """One row per insight of each insight set (DevTools' verdicts):
        set, URL, insight, title, category, state, savings, wasted bytes,
        related events, or the error that kept it from being computed."""
    def data(
        self,
        handlers: Optional[Sequence[str]] = None,
        format: Literal["json", "conformance"] = "json",
    ) -> Dict[str, Any]:
        """The data of DevTools' handlers as ``tracekit data`` writes it
        (docs/data.md), parsed: ``{"handlers": {NAME: DATA}, ...}``. Needs
        ``all_handlers=True``. ``handlers``: the names to give (default:
        all, ``Trace.data_handlers()``); ``format``: ``"json"`` (exact) or
        ``"conformance"`` (DevTools' comparison dump)."""
    @staticmethod
    def data_handlers() -> List[str]:
        """The names of the handlers ``data`` gives."""
    def table(self, name: TableName) -> pyarrow.Table:
        """The table named ``name``."""
    @property
    def source_maps(self) -> Optional[SourceMapReport]:
        """What ``load``'s ``source_maps`` did, or ``None`` without them."""
    def conformance(self) -> str:
        """The tracks as ``tracekit tracks --format conformance`` prints them."""

def load(
    source: Source,
    all_processes: bool = False,
    name: Optional[str] = None,
    devtools: DevToolsVersion = "2026-10",
    all_handlers: bool = False,
    source_maps: Optional[SourceMapsArg] = None,
) -> Trace:
    """Loads a trace from a path or bytes (gzipped or not); raises
    ``TraceError``. ``all_processes``: also the processes DevTools drops.
    ``name``: the ``trace`` column (default: the path as given, or
    ``<bytes>``). ``devtools``: the DevTools engine whose answers to give
    where engines differ; another name raises ``ValueError``.
    ``all_handlers``: also run DevTools' page handlers, which the page
    tables (``requests``, ``navigations``, ``layout_shifts``,
    ``interactions``, ``user_timings``, ``initiators``, ``warnings``,
    ``scripts``) and ``data`` need. ``source_maps``: source maps giving
    the JavaScript functions their original names, files and lines in
    every table (docs/sourcemaps.md): paths (``.map`` files, or
    directories searched for them, as ``--source-maps``), bytes, or
    ``(name, bytes)`` pairs (the name, a URL or a file name, is how a map
    finds its script), or a dict ``{name: bytes}``; applied after the maps
    an enhanced trace carries (``source_maps=[]``: those only), with every
    handler run. ``Trace.source_maps`` says what they did."""

SourceMapsArg = Union[
    Sequence[Union[str, "os.PathLike[str]", bytes, Tuple[str, bytes]]], Mapping[str, bytes]
]
"""What ``load``'s ``source_maps`` takes."""

class SourceMapReport(TypedDict):
    """What applying source maps did."""

    frames_resolved: int
    """Frames given an original location (with or without a name)."""
    frames_renamed: int
    """Of those, frames given an original name."""
    frames_unmapped: int
    """Frames of a script some map was found for, whose position it did not map."""
    maps_used: List[str]
    """The maps that served a frame, by the name they were given under."""
    problems: List[str]
    """A map that did not parse, matched nothing, or a script whose map was not given."""

class ExportSummary(TypedDict):
    traces: int
    failed: List[str]
    file_bytes: int
    json_bytes: int
    rows: Dict[str, int]

def diff(
    base: Union[Trace, Sequence[Trace]],
    new: Union[Trace, Sequence[Trace]],
    alpha: float = 0.05,
    min_ms: float = 0.5,
) -> pyarrow.Table:
    """Compares ``base`` with ``new`` (each a ``Trace`` or a list of them:
    the runs of a side) as ``tracekit diff`` does: a row per key (``kind``,
    ``thread``, ``name``, ``quantity``, ``unit``, ``presence``, ``base``,
    ``new``, ``delta``, ``relative``, ``changed``, and with several runs
    ``p``, ``p_adjusted``, ``ci_low``, ``ci_high``, ``cliffs_delta``),
    changes first. Traces loaded with ``all_handlers=True`` add the page
    metrics, requests, bytes and third parties. Raises ``ValueError`` for
    sides that cannot be compared, ``TypeError`` for a side that is not
    traces."""
    ...

def export(
    paths: Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]]],
    out_dir: Union[str, "os.PathLike[str]"],
    tables: Optional[Sequence[TableName]] = None,
    all_processes: bool = False,
    jobs: Optional[int] = None,
    devtools: DevToolsVersion = "2026-10",
) -> ExportSummary:
    """Writes the tables of the traces (files, or directories of them) to
    ``out_dir/NAME.parquet``, loading them in parallel. Traces that fail
    are listed in ``failed`` and are rows of ``diagnostics``. ``devtools``
    as for ``load``."""

def schema(name: TableName) -> pyarrow.Schema:
    """The Arrow schema of a table."""

def table_of_bytes(
    content: bytes,
    name: str,
    table: TableName,
    all_processes: bool = False,
    devtools: DevToolsVersion = "2026-10",
) -> pyarrow.Table:
    """One table of a trace given as bytes; a trace that cannot be loaded
    gives no rows, but its error row in ``diagnostics``. ``devtools`` as
    for ``load``."""

def table_names() -> List[str]:
    """The tables' names."""

def default_table_names() -> List[str]:
    """The tables ``export`` writes by default (not the page tables)."""

def devtools_names() -> List[str]:
    """The DevTools engines ``devtools`` names, oldest first."""

def check_devtools(name: str) -> None:
    """Raises the ``ValueError`` of an unknown ``devtools`` name (what
    ``tracekit.spark.load`` checks on the driver)."""
