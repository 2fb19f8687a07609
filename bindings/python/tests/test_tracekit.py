"""The Python package against the tracekit command: the same tracks, the
same dump, the same error messages; tables as pyarrow, pandas, Polars;
the Parquet export; the DevTools engine chosen with ``devtools``."""

import gzip
import json
import os
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import tracekit
from conftest import RECORDED, ROOT, cli, cli_info_counts, cli_node_counts


PAGE_LOAD = ROOT / "fixtures/traces/page-load.json.gz"
PAGE_TABLES = (
    "requests",
    "navigations",
    "layout_shifts",
    "interactions",
    "user_timings",
    "initiators",
    "warnings",
    "scripts",
    "insights",
)


def node_counts(table: pa.Table):
    pids = table.column("pid").to_pylist()
    tids = table.column("tid").to_pylist()
    return dict(Counter(zip(pids, tids)))


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
@pytest.mark.parametrize("all_processes", [False, True])
def test_tracks_are_the_commands(path, all_processes):
    trace = tracekit.load(path, all_processes=all_processes)
    tracks = trace.tracks()
    extra = ["--all-processes"] if all_processes else []
    assert node_counts(tracks) == cli_node_counts(path, *extra)
    assert set(tracks.column("trace").to_pylist()) == {str(path)}
    conformance = cli("tracks", str(path), "--format", "conformance", "-q", *extra)
    assert conformance.returncode == 0, conformance.stderr
    if not all_processes:
        assert trace.conformance() == conformance.stdout


def test_every_table_has_its_schema():
    trace = tracekit.load(ROOT / "fixtures/traces/main-thread.json.gz", all_handlers=True)
    assert tracekit.DEFAULT_TABLES == ("tracks", "calls", "samples", "threads", "diagnostics")
    assert tracekit.TABLES == tracekit.DEFAULT_TABLES + PAGE_TABLES
    for name in tracekit.TABLES:
        table = getattr(trace, name)()
        assert isinstance(table, pa.Table)
        assert table.schema == tracekit.schema(name)
        assert table.equals(trace.table(name))
        if name in ("tracks", "calls", "samples", "threads"):
            assert table.num_rows > 0, name
    with pytest.raises(ValueError, match="no table 'nodes'"):
        trace.table("nodes")


def test_path_bytes_and_gzip_agree():
    path = ROOT / "fixtures/traces/node-work.cpuprofile.gz"
    by_path = tracekit.load(str(path)).tracks()
    raw = path.read_bytes()
    for source in [raw, gzip.decompress(raw), bytearray(raw), memoryview(raw)]:
        trace = tracekit.load(source)
        assert trace.name == "<bytes>"
        assert trace.tracks().drop_columns(["trace"]).equals(by_path.drop_columns(["trace"]))
    named = tracekit.load(raw, name="run-1")
    assert set(named.tracks().column("trace").to_pylist()) == {"run-1"}
    assert tracekit.load(path).kind == "CpuProfile"
    with pytest.raises(TypeError, match="expected a path"):
        tracekit.load(42)


def test_errors_carry_the_commands_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"name": "x", "ph')
    not_a_trace = tmp_path / "nothing.json"
    not_a_trace.write_text('{"nothing": true}')
    missing = tmp_path / "missing.json"
    for path in [bad, not_a_trace, missing, tmp_path]:
        run = cli("tracks", str(path))
        assert run.returncode == 1
        with pytest.raises(tracekit.TraceError) as raised:
            tracekit.load(path)
        assert run.stderr == f"tracekit: {raised.value}\n"
    with pytest.raises(tracekit.TraceError, match=r"^<bytes>: byte 0: "):
        tracekit.load(b"nonsense")
    assert issubclass(tracekit.TraceError, Exception)


def test_samples_belong_to_js_calls():
    trace = tracekit.load(ROOT / "fixtures/traces/main-thread.json.gz")
    samples = trace.samples().to_pandas()
    tracks = trace.tracks().to_pandas()
    attributed = samples.dropna(subset=["node"])
    assert len(attributed) > 0
    joined = attributed.merge(
        tracks, on=["pid", "tid", "node"], suffixes=("_sample", "_call")
    )
    assert len(joined) == len(attributed)
    assert (joined["kind"] == "js").all()
    assert (joined["name_sample"] == joined["name_call"]).all()
    assert ((joined["ts_us_call"] <= joined["ts_us_sample"])
            & (joined["ts_us_sample"] < joined["ts_us_call"] + joined["dur_us"])).all()


def test_pandas_and_polars():
    import polars as pl

    trace = tracekit.load(ROOT / "fixtures/traces/main-thread.json.gz")
    df = trace.tracks().to_pandas()
    top = (df[df.kind == "js"].groupby("name")["self_us"].sum()
           .sort_values(ascending=False))
    lf = pl.from_arrow(trace.tracks())
    top_pl = (lf.filter(pl.col("kind") == "js").group_by("name")
              .agg(pl.col("self_us").sum()).sort("self_us", descending=True))
    assert top.index[0] == top_pl["name"][0]
    assert top.iloc[0] == pytest.approx(top_pl["self_us"][0])
    calls = pl.from_arrow(trace.calls())
    assert calls.filter(pl.col("parent").is_null())["depth"].max() == 0


def test_export(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    out = tmp_path / "out"
    summary = tracekit.export([ROOT / "fixtures/traces", bad], out, jobs=2)
    assert summary["traces"] == len(RECORDED) + 1
    assert summary["failed"] == [str(tracekit_error(bad))]
    assert sorted(os.listdir(out)) == sorted(f"{t}.parquet" for t in tracekit.DEFAULT_TABLES)
    tracks = pq.read_table(out / "tracks.parquet")
    assert tracks.num_rows == summary["rows"]["tracks"]
    for path in RECORDED:
        mine = tracks.filter(pa.compute.equal(tracks["trace"], str(path)))
        assert node_counts(mine) == cli_node_counts(path)
    diagnostics = pq.read_table(out / "diagnostics.parquet").to_pylist()
    errors = [d for d in diagnostics if d["kind"] == "error"]
    assert [(e["trace"], e["first_example"]) for e in errors] == [
        (str(bad), str(tracekit_error(bad)))
    ]
    only = tracekit.export(str(RECORDED[0]), tmp_path / "only", tables=["threads"])
    assert list(only["rows"]) == ["threads"]
    page = tracekit.export(str(PAGE_LOAD), tmp_path / "page", tables=["requests", "user_timings"])
    assert page["rows"]["requests"] == 13
    assert page["rows"]["user_timings"] > 0
    with pytest.raises(ValueError):
        tracekit.export([], tmp_path / "x", tables=["nodes"])


MAIN_THREAD = ROOT / "fixtures/traces/main-thread.json.gz"


def test_page_tables():
    """The page tables of the recorded page load: its 13 requests as
    `tracekit network` lists them, its navigation's metrics, its layout
    shifts, interactions and user timings."""
    trace = tracekit.load(PAGE_LOAD, all_handlers=True)
    requests = trace.requests()
    assert requests.schema == tracekit.schema("requests")
    run = cli("network", str(PAGE_LOAD), "--format", "json", "-q")
    assert run.returncode == 0, run.stderr
    network = json.loads(run.stdout)
    assert len(network) == 13
    assert requests.column("url").to_pylist() == [r["url"] for r in network]
    assert requests.column("status").to_pylist() == [r["status"] for r in network]
    [nav] = trace.navigations().to_pylist()
    assert 0 < nav["fcp_us"] <= nav["lcp_us"] < nav["load_us"]
    assert nav["lcp_image"].startswith("http://a.test:")
    shifts = trace.layout_shifts().to_pylist()
    worst = [s for s in shifts if s["cluster_score"] == nav["cls"]]
    assert len(worst) == nav["cls_shifts"] > 0
    assert sum(s["score"] for s in worst) == pytest.approx(nav["cls"])
    interactions = trace.interactions().to_pylist()
    assert max(i["dur_us"] for i in interactions if not i["nested"]) == nav["inp_us"]
    timings = trace.user_timings().to_pylist()
    kinds = {t["kind"] for t in timings}
    assert {"mark", "measure"} <= kinds, kinds
    assert "tk:head:start" in {t["name"] for t in timings}
    plain = tracekit.load(PAGE_LOAD)
    for name in PAGE_TABLES:
        with pytest.raises(ValueError, match="all_handlers=True"):
            getattr(plain, name)()
    with pytest.raises(ValueError, match="all_handlers=True"):
        plain.data()


def test_why_tables():
    """The initiators, warnings and scripts of the recorded page load:
    the warnings `tracekit info` counts, timer fires initiated by timer
    installs, the scripts `info` counts."""
    trace = tracekit.load(PAGE_LOAD, all_handlers=True)
    for name in ("initiators", "warnings", "scripts"):
        assert getattr(trace, name)().schema == tracekit.schema(name)
    warnings = trace.warnings().to_pylist()
    kinds = Counter(w["label"] for w in warnings)
    assert kinds == {"long task": 5, "idle callback over time": 1, "long interaction": 2}
    assert {w["warning"] for w in warnings} == {"LONG_TASK", "IDLE_CALLBACK_OVER_TIME", "LONG_INTERACTION"}
    run = cli("info", str(PAGE_LOAD), "-q")
    assert "  warnings: 5 long tasks, 1 idle callback over time, 2 long interactions\n" in run.stdout
    initiators = trace.initiators().to_pylist()
    timers = [i for i in initiators if i["kind"] == "timer" and i["name"] == "TimerFire"]
    assert timers and all(i["initiator_name"] == "TimerInstall" for i in timers)
    tracks = trace.tracks().to_pylist()
    names = {(t["pid"], t["tid"], t["node"]): t["name"] for t in tracks}
    for i in initiators:
        if i["initiator_node"] is not None:
            key = (i["initiator_pid"], i["initiator_tid"], i["initiator_node"])
            assert names[key] == i["initiator_name"]
    scripts = trace.scripts().to_pylist()
    assert len(scripts) == 13
    assert not any(s["has_source_map"] for s in scripts)
    assert "  scripts: 13 (0 with a source map, 13 without)\n" in run.stdout


def test_insights_table_is_the_insights_command():
    """One row per insight of each set, as `tracekit insights --format json`
    has them: the navigation's slow click fails its INP breakdown."""
    trace = tracekit.load(PAGE_LOAD, all_handlers=True)
    table = trace.insights()
    assert table.schema == tracekit.schema("insights")
    rows = table.to_pylist()
    doc = json.loads(cli("insights", str(PAGE_LOAD), "--format", "json").stdout)
    assert len(rows) == sum(len(s["model"]) + len(s["modelErrors"]) for s in doc["insights"])
    for s in doc["insights"]:
        for key, model in s["model"].items():
            row = next(r for r in rows if r["set"] == s["id"] and r["insight"] == key)
            assert row["state"] == model["state"] and row["title"] == model["title"]
    inp = next(r for r in rows if r["insight"] == "INPBreakdown" and r["navigation"] is not None)
    assert inp["state"] == "fail"


def test_diff_is_the_diff_command():
    """`tracekit.diff` gives the rows of `tracekit diff --format json`, for a
    pair of page traces and for several runs per side."""
    mobile = ROOT / "fixtures/traces/page-load-mobile.json.gz"
    base = tracekit.load(PAGE_LOAD, all_handlers=True)
    new = tracekit.load(mobile, all_handlers=True)
    table = tracekit.diff(base, new)
    doc = json.loads(cli("diff", str(PAGE_LOAD), str(mobile), "--format", "json").stdout)
    rows = table.to_pylist()
    assert len(rows) == len(doc["rows"]) > 50
    for row, expected in zip(rows, doc["rows"]):
        assert (row["kind"], row["thread"], row["name"], row["quantity"]) == tuple(expected["key"].values())
        assert (row["unit"], row["base"], row["new"], row["changed"]) == (
            expected["unit"], expected["base"], expected["new"], expected["changed"])
    assert rows[0]["kind"] == "page" and rows[0]["name"] == "FCP"
    assert any(r["kind"] == "third-party" for r in rows)
    requests = next(r for r in rows if r["name"] == "Requests")
    assert (requests["unit"], requests["base"]) == ("count", 13)
    # Several runs per side: the slowed function first, with its statistics.
    runs = lambda side: sorted((ROOT / "fixtures/diff" / side).glob("*.cpuprofile.gz"))
    slow = tracekit.diff([tracekit.load(p) for p in runs("node-base")], [tracekit.load(p) for p in runs("node-slow")])
    top = slow.to_pylist()[0]
    assert top["name"].startswith("render ") and top["quantity"] == "self" and top["changed"]
    assert top["ci_low"] > 0 and top["p_adjusted"] < 0.05 and top["cliffs_delta"] > 0.9
    with pytest.raises(TypeError, match="list of them"):
        tracekit.diff(base, "x")
    with pytest.raises(ValueError, match="cannot compare a Chrome trace with a CPU profile"):
        tracekit.diff(base, tracekit.load(runs("node-base")[0]))


def test_data_is_the_data_command():
    trace = tracekit.load(PAGE_LOAD, all_handlers=True)
    run = cli("data", str(PAGE_LOAD), "-q")
    assert run.returncode == 0, run.stderr
    assert trace.data() == json.loads(run.stdout)
    run = cli("data", str(PAGE_LOAD), "--handler", "UserTimings", "--format", "conformance", "-q")
    only = trace.data(handlers=["UserTimings"], format="conformance")
    assert only == json.loads(run.stdout)
    assert list(only["handlers"]) == ["UserTimings"]
    assert "UserTimings" in tracekit.Trace.data_handlers()
    with pytest.raises(ValueError, match="no handler named 'Nope'"):
        trace.data(handlers=["Nope"])
    with pytest.raises(ValueError, match="format"):
        trace.data(format="yaml")


def js_counts(table: pa.Table):
    js = table.filter(pc.equal(table["kind"], "js"))
    return node_counts(js)


def test_devtools_names_the_engine_whose_answers_are_given():
    assert tracekit.DEVTOOLS == ("2026-06", "2026-10")
    assert tracekit.DEVTOOLS_DEFAULT == "2026-10"
    default = tracekit.load(MAIN_THREAD).tracks()
    tracks = {d: tracekit.load(MAIN_THREAD, devtools=d).tracks() for d in tracekit.DEVTOOLS}
    assert default.equals(tracks["2026-10"])
    assert not tracks["2026-06"].equals(tracks["2026-10"])
    js = {}
    for devtools, table in tracks.items():
        info = cli_info_counts(MAIN_THREAD, "--devtools", devtools)
        assert node_counts(table) == {k: nodes for k, (nodes, _) in info.items() if nodes}, devtools
        js[devtools] = js_counts(table)
        assert js[devtools] == {k: calls for k, (_, calls) in info.items() if calls}, devtools
    # The engines build different JS calls from the same samples.
    assert sum(js["2026-06"].values()) != sum(js["2026-10"].values())
    for devtools in tracekit.DEVTOOLS:
        golden = (ROOT / "fixtures/expected" / devtools / "main-thread.json").read_text()
        dump = tracekit.load(MAIN_THREAD, devtools=devtools).conformance()
        assert dump.strip() == golden.strip(), devtools


def test_devtools_reaches_bytes_tables_and_the_export(tmp_path):
    from tracekit import _tracekit

    content = MAIN_THREAD.read_bytes()
    for devtools in tracekit.DEVTOOLS:
        expected = tracekit.load(MAIN_THREAD, devtools=devtools).tracks().drop_columns(["trace"])
        by_bytes = _tracekit.table_of_bytes(content, "t", "tracks", devtools=devtools)
        assert by_bytes.drop_columns(["trace"]).equals(expected), devtools
        summary = tracekit.export(MAIN_THREAD, tmp_path / devtools, tables=["tracks"], devtools=devtools)
        exported = pq.read_table(tmp_path / devtools / "tracks.parquet")
        assert summary["rows"]["tracks"] == expected.num_rows, devtools
        assert js_counts(exported) == js_counts(expected), devtools


def test_an_unknown_devtools_raises_value_error_naming_the_engines(tmp_path):
    import inspect

    from tracekit import _tracekit
    from tracekit.spark import load as spark_load

    message = r"^devtools: no DevTools engine '2026-11'; the engines are '2026-06', '2026-10'$"
    with pytest.raises(ValueError, match=message):
        tracekit.load(MAIN_THREAD, devtools="2026-11")
    with pytest.raises(ValueError, match=message):
        tracekit.export(MAIN_THREAD, tmp_path / "out", devtools="2026-11")
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match=message):
        _tracekit.table_of_bytes(b"[]", "t", "tracks", devtools="2026-11")
    # Refused on the driver, before Spark is asked for anything.
    with pytest.raises(ValueError, match=message):
        spark_load(None, [str(MAIN_THREAD)], devtools="2026-11")
    for function in [tracekit.load, tracekit.export, _tracekit.table_of_bytes, spark_load]:
        default = inspect.signature(function).parameters["devtools"].default
        assert default == tracekit.DEVTOOLS_DEFAULT, function
    with pytest.raises(TypeError):
        tracekit.load(MAIN_THREAD, devtools=2026)


def tracekit_error(path: Path) -> tracekit.TraceError:
    with pytest.raises(tracekit.TraceError) as raised:
        tracekit.load(path)
    return raised.value


def test_readme_examples(tmp_path, monkeypatch):
    """The README's Python examples run (on a fixture)."""
    readme = (ROOT / "bindings/python/README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in readme.split("```python\n")[1:]]
    assert blocks
    monkeypatch.chdir(tmp_path)
    fixture = ROOT / "fixtures/traces/main-thread.json.gz"
    (tmp_path / "trace.json.gz").write_bytes(fixture.read_bytes())
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces/a.json.gz").write_bytes(fixture.read_bytes())
    maps = ROOT / "fixtures/sourcemaps"
    (tmp_path / "profile.cpuprofile").write_bytes((maps / "bundle.cpuprofile").read_bytes())
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist/bundle.js.map").write_bytes((maps / "bundle.js.map").read_bytes())
    for block in blocks:
        if "spark" in block:
            continue
        exec(compile(block, "README.md", "exec"), {})


SOURCEMAPS = ROOT / "fixtures/sourcemaps"


def declared_functions():
    """The function names fixtures/sourcemaps/src declares."""
    names = set()
    for path in (SOURCEMAPS / "src").iterdir():
        for piece in path.read_text().split("function ")[1:]:
            names.add(piece.split("(")[0].strip())
    return names


def top_sampled(trace: "tracekit.Trace", n: int = 5):
    """The JS functions most often on top of the samples, most first."""
    counts = Counter(
        name for name in trace.samples().column("name").to_pylist()
        if name and not name.startswith("(")
    )
    return [name for name, _ in counts.most_common(n)]


@pytest.mark.parametrize("bundle", ["bundle", "bundle-nocontent"])
def test_source_maps_give_the_sources_names(bundle):
    source = declared_functions()
    assert {"runPrimes", "sieveOfEratosthenes"} <= source
    profile = SOURCEMAPS / f"{bundle}.cpuprofile"
    map_path = SOURCEMAPS / f"{bundle}.js.map"
    minified = tracekit.load(profile)
    assert minified.source_maps is None
    assert all(len(name) == 1 for name in top_sampled(minified)), top_sampled(minified)
    map_bytes = map_path.read_bytes()
    # A path, the directory, a (name, bytes) pair and a dict: one answer.
    for given in ([map_path], [str(SOURCEMAPS)], [(f"{bundle}.js.map", map_bytes)],
                  {f"https://cdn.test/{bundle}.js.map": map_bytes}):
        trace = tracekit.load(profile, source_maps=given)
        names = top_sampled(trace)
        assert len(names) >= 4 and set(names) <= source, (given, names)
        report = trace.source_maps
        assert report["frames_renamed"] >= 4, report
        if given != [str(SOURCEMAPS)]:  # whose other maps match no script: problems
            assert report["problems"] == [], report
    calls = tracekit.load(profile, source_maps=[map_path]).calls().column("script_url").to_pylist()
    assert any(url.endswith("src/primes.js") for url in calls if url), set(calls)


def test_a_broken_or_unnamed_map_is_a_problem_not_an_error():
    profile = SOURCEMAPS / "bundle.cpuprofile"
    trace = tracekit.load(profile, source_maps=[SOURCEMAPS / "broken/bundle.js.map"])
    assert all(len(name) == 1 for name in top_sampled(trace))
    assert len(trace.source_maps["problems"]) == 1, trace.source_maps
    # Bytes alone have no name: the map (without `file`) finds no script.
    unnamed = tracekit.load(profile, source_maps=[(SOURCEMAPS / "bundle.js.map").read_bytes()])
    assert unnamed.source_maps["frames_resolved"] == 0
    with pytest.raises(TypeError, match="source_maps"):
        tracekit.load(profile, source_maps="bundle.js.map")
    with pytest.raises(OSError, match="nowhere.js.map"):
        tracekit.load(profile, source_maps=[SOURCEMAPS / "nowhere.js.map"])


def test_an_enhanced_trace_carries_its_maps():
    enhanced = SOURCEMAPS / "enhanced-trace.json"
    names = set(tracekit.load(enhanced, source_maps=[]).tracks().column("name").to_pylist())
    assert "render" in names and "a" not in names, names
    plain = set(tracekit.load(enhanced).tracks().column("name").to_pylist())
    assert "a" in plain and "render" not in plain, plain
