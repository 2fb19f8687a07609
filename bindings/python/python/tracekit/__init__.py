"""tracekit: Chrome performance traces and JavaScript CPU profiles as Arrow
tables, with the answers of the DevTools Performance panel.

    >>> import tracekit
    >>> trace = tracekit.load("trace.json.gz")
    >>> trace.tracks().to_pandas()

``load`` reads a Chrome trace (JSON array or ``{traceEvents}``), a V8
``.cpuprofile`` or a JS Self-Profiling trace, gzipped or not, from a path
or bytes. A ``Trace``'s tables (``tracks``, ``calls``, ``samples``,
``threads``, ``diagnostics``, and with ``load(..., all_handlers=True)``
the page tables ``requests``, ``navigations``, ``layout_shifts``,
``interactions``, ``user_timings``, ``initiators``, ``warnings``,
``scripts``; their columns are in docs/tables.md)
are ``pyarrow.Table``s, handed over through the Arrow C data interface;
``Trace.data`` is the data of DevTools' handlers (``tracekit data``).
``diff`` compares two traces, or two sets of runs, as ``tracekit diff``
does, in a table of changes. ``export`` writes many traces' tables as Parquet files, loading them in
parallel; ``tracekit.spark.load`` runs tracekit inside Spark's executors.
Each takes ``devtools``, the DevTools engine whose answers to give where
engines differ: ``"2026-10"`` (the default, today's Performance panel) or
``"2026-06"`` (``@paulirish/trace_engine`` 0.0.65).
"""

from ._tracekit import (
    DEVTOOLS_DEFAULT,
    Trace,
    TraceError,
    __version__,
    default_table_names,
    devtools_names,
    diff,
    export,
    load,
    schema,
    table_names,
)

TABLES = tuple(table_names())
"""The tables' names, in their usual order."""

DEFAULT_TABLES = tuple(default_table_names())
"""The tables ``export`` writes when ``tables`` is left out: all but the
page tables, which load DevTools' page handlers too."""

DEVTOOLS = tuple(devtools_names())
"""The DevTools engines ``devtools`` names, oldest first; the default is
``DEVTOOLS_DEFAULT``."""

__all__ = [
    "DEFAULT_TABLES",
    "DEVTOOLS",
    "DEVTOOLS_DEFAULT",
    "TABLES",
    "Trace",
    "TraceError",
    "diff",
    "export",
    "load",
    "schema",
    "__version__",
]
