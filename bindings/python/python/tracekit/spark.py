"""tracekit inside Apache Spark: ``load(spark, paths)`` reads trace files
with Spark's ``binaryFile`` source (any filesystem the cluster has) and
turns each into the rows of a tracekit table inside the executors, with
``mapInArrow``. docs/spark.md shows how to run it on a cluster.

    >>> from tracekit.spark import load
    >>> tracks = load(spark, "s3://bucket/traces/*.json.gz")
    >>> tracks.where("kind = 'js'").groupBy("name").sum("self_us")

The executors need the ``tracekit`` package, in the same Python
(``PYSPARK_PYTHON``).
"""

from typing import Iterable, Iterator, List, Union

import pyarrow

from . import _tracekit

__all__ = ["load", "spark_schema"]

# Arrow batches handed back to Spark hold at most this many rows.
_BATCH_ROWS = 1 << 16


def spark_schema(table: str = "tracks"):
    """The ``pyspark.sql.types.StructType`` of a table."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(_tracekit.schema(table))


def _tables(table: str, all_processes: bool, devtools: str):
    def run(batches: Iterator[pyarrow.RecordBatch]) -> Iterator[pyarrow.RecordBatch]:
        from tracekit import _tracekit as native

        for batch in batches:
            paths = batch.column("path")
            contents = batch.column("content")
            for i in range(batch.num_rows):
                rows = native.table_of_bytes(
                    contents[i].as_py(),
                    paths[i].as_py(),
                    table,
                    all_processes,
                    devtools,
                )
                yield from rows.to_batches(max_chunksize=_BATCH_ROWS)

    return run


def load(
    spark,
    paths: Union[str, Iterable[str]],
    table: str = "tracks",
    all_processes: bool = False,
    recursive: bool = False,
    devtools: str = "2026-10",
):
    """A DataFrame of the table ``table`` (``tracks``, ``calls``,
    ``samples``, ``threads``, ``diagnostics``) of every trace that
    ``paths`` (a path, a glob, or a list of them) names; its ``trace``
    column is each file's path as Spark gives it. A file that cannot be
    loaded has no rows, except its error row in ``diagnostics``.
    ``recursive``: also the files in subdirectories of a directory.
    ``devtools``: the DevTools engine whose answers to give where engines
    differ (``tracekit.DEVTOOLS``)."""
    if table not in _tracekit.table_names():
        raise ValueError(
            f"no table {table!r}; the tables are {', '.join(_tracekit.table_names())}"
        )
    # Checked here rather than in the executors, where the error would
    # surface as a failed Spark task.
    _tracekit.check_devtools(devtools)
    names: List[str] = [paths] if isinstance(paths, str) else list(paths)
    reader = spark.read.format("binaryFile")
    if recursive:
        reader = reader.option("recursiveFileLookup", "true")
    files = reader.load(names).select("path", "content")
    return files.mapInArrow(
        _tables(table, all_processes, devtools), spark_schema(table)
    )
