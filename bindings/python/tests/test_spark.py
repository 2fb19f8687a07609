"""tracekit.spark in local mode (pyspark from PyPI, local[2], the
machine's Java): the rows of each trace are the tracekit command's (with
each ``devtools`` engine), and the top functions by self time across
traces are DuckDB's answer over the Parquet export."""

import json
import os
import sys
import time
from pathlib import Path

import duckdb
import pytest

import tracekit
from conftest import RECORDED, ROOT, cli, cli_info_counts, cli_node_counts
from tracekit.spark import load


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("tracekit-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """The recorded fixtures and a file that is no trace."""
    bad = tmp_path_factory.mktemp("bad") / "bad.json"
    bad.write_text('{"traceEvents": 5}')
    return [*RECORDED, bad]


def by_file(rows):
    """`{file name: value}` of (Spark's file URI, value) pairs."""
    return {Path(uri.removeprefix("file:")).name: value for uri, value in rows}


def test_rows_per_trace_are_the_commands(spark, traces):
    started = time.monotonic()
    tracks = load(spark, [str(p) for p in traces])
    assert tracks.schema == tracekit.spark.spark_schema("tracks")
    counts = by_file(tracks.groupBy("trace").count().collect())
    expected = {p.name: sum(cli_node_counts(p).values()) for p in RECORDED}
    assert counts == expected
    per_thread = tracks.groupBy("trace", "pid", "tid").count().collect()
    for path in RECORDED:
        mine = {(r["pid"], r["tid"]): r["count"] for r in per_thread
                if r["trace"].endswith("/" + path.name)}
        assert mine == cli_node_counts(path), path.name
    seconds = time.monotonic() - started
    print(f"spark: {len(traces)} traces in {seconds:.1f} s")


def test_a_bad_file_is_a_diagnostics_row(spark, traces):
    diagnostics = load(spark, [str(p) for p in traces], table="diagnostics")
    errors = diagnostics.where("kind = 'error'").collect()
    assert [Path(e["trace"]).name for e in errors] == ["bad.json"]
    expected = cli("tracks", str(traces[-1])).stderr.removeprefix("tracekit: ").strip()
    assert errors[0]["first_example"].endswith(expected.split(": ", 1)[1])
    for table in ["calls", "samples", "threads"]:
        df = load(spark, [str(p) for p in traces], table=table)
        assert df.count() > 0, table
    with pytest.raises(ValueError, match="no table"):
        load(spark, [str(traces[0])], table="nodes")


def test_devtools_reaches_the_executors(spark):
    path = ROOT / "fixtures/traces/main-thread.json.gz"
    for devtools in tracekit.DEVTOOLS:
        tracks = load(spark, [str(path)], devtools=devtools)
        js = tracks.where("kind = 'js'").groupBy("pid", "tid").count().collect()
        info = cli_info_counts(path, "--devtools", devtools)
        expected = {k: calls for k, (_, calls) in info.items() if calls}
        assert {(r["pid"], r["tid"]): r["count"] for r in js} == expected, devtools


TOP_FUNCTIONS = """
select name, script_url, sum(self_us) as self_us, count(*) as calls
from {source} where kind = 'js'
group by name, script_url
order by self_us desc, name, script_url
limit 15
"""


def test_top_functions_are_duckdbs_over_the_export(spark, tmp_path):
    out = tmp_path / "parquet"
    run = cli("export", *[str(p) for p in RECORDED], "--parquet", str(out), "-q")
    assert run.returncode == 0, run.stderr
    expected = duckdb.sql(
        TOP_FUNCTIONS.format(source=f"'{out}/tracks.parquet'")
    ).fetchall()
    load(spark, [str(p) for p in RECORDED]).createOrReplaceTempView("tracks")
    got = [tuple(r) for r in spark.sql(TOP_FUNCTIONS.format(source="tracks")).collect()]
    assert len(got) == 15
    assert [(n, u, c) for n, u, _, c in got] == [(n, u, c) for n, u, _, c in expected]
    for (_, _, mine, _), (_, _, theirs, _) in zip(got, expected):
        assert mine == pytest.approx(theirs, rel=1e-12)
    print(json.dumps(got[:3]))
