"""Traces per second of tracekit.spark in local mode.

    python benches/spark_traces.py DIR [N] [--master local[2]]

Loads the first N trace files of DIR (`cargo xtask variants` writes
varied ones: `variant-NNNN-*.json`; N a power of ten, given to Spark as
one glob, so that it lists the directory once rather than a path per
file) with `tracekit.spark.load` and counts the rows of each
trace (every trace is loaded, every row built and handed to Spark), then
runs a top-functions query; prints the time of each, after the JVM has
started (its start is timed apart)."""

import argparse
import os
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("n", type=int, nargs="?", default=100)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    files = sorted(str(p) for p in Path(args.dir).iterdir())[: args.n]
    size = sum(os.path.getsize(f) for f in files)
    digits = len(str(args.n)) - 1
    assert args.n == 10**digits and args.n <= 1000, "N: 10, 100 or 1000"
    glob = f"{args.dir}/variant-{'0' * (4 - digits)}{'[0-9]' * digits}-*"

    os.environ["PYSPARK_PYTHON"] = sys.executable
    started = time.monotonic()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
        .getOrCreate()
    )
    spark.range(1).count()
    print(f"JVM and session: {time.monotonic() - started:.1f} s")

    from tracekit.spark import load

    for what, query in [
        ("rows per trace", lambda df: df.groupBy("trace").count().collect()),
        ("top functions", lambda df: df.where("kind = 'js'").groupBy("name")
         .sum("self_us").orderBy("sum(self_us)", ascending=False).limit(10).collect()),
    ]:
        started = time.monotonic()
        rows = query(load(spark, glob))
        seconds = time.monotonic() - started
        print(f"{what}: {len(files)} traces, {size / 1e6:.0f} MB in {seconds:.1f} s: "
              f"{len(files) / seconds:.1f} traces/s, {size / 1e6 / seconds:.0f} MB/s ({len(rows)} rows)")
    spark.stop()


if __name__ == "__main__":
    main()
