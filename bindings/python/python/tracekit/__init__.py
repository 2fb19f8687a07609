"""tracekit: Chrome performance traces and JavaScript CPU profiles as Arrow
tables, with the answers of the DevTools Performance panel.

    >>> import tracekit
    >>> trace = tracekit.load("trace.json.gz")
    >>> trace.tracks().to_pandas()

``load`` reads a Chrome trace (JSON array or ``{traceEvents}``), a V8
``.cpuprofile`` or a JS Self-Profiling trace, gzipped or not, from a path
or bytes. A ``Trace``'s tables (``tracks``, ``calls``, ``samples``,
``threads``, ``diagnostics``; their columns are in docs/tables.md) are
``pyarrow.Table``s, handed over through the Arrow C data interface.
``export`` writes many traces' tables as Parquet files, loading them in
parallel; ``tracekit.spark.load`` runs tracekit inside Spark's executors.
"""

from ._tracekit import (
    Trace,
    TraceError,
    __version__,
    export,
    load,
    schema,
    table_names,
)

TABLES = tuple(table_names())
"""The tables' names, in their usual order."""

__all__ = ["TABLES", "Trace", "TraceError", "export", "load", "schema", "__version__"]
