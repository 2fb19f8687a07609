"""Shared fixtures of the tests: the `tracekit` command to compare with
(TRACEKIT_CLI) and the repository's fixtures (TRACEKIT_ROOT), set by
crates/cli/tests/python_package.rs, which builds and installs the wheel."""

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("TRACEKIT_ROOT", Path(__file__).resolve().parents[3]))
CLI = os.environ.get("TRACEKIT_CLI", "tracekit")
RECORDED = sorted((ROOT / "fixtures" / "traces").iterdir())


def cli(*args: str) -> subprocess.CompletedProcess:
    """Runs the tracekit command; its status, stdout and stderr as text."""
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def cli_node_counts(path, *extra: str):
    """Track nodes per (pid, tid) of `tracekit tracks --format json`."""
    import json

    run = cli("tracks", str(path), "--format", "json", "-q", *extra)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    return {
        (p["pid"], t["tid"]): len(t["nodes"])
        for p in doc["processes"]
        for t in p["threads"]
    }


def _id(text: str):
    """A pid or tid as the tables hold it: a number, else the text."""
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def cli_info_counts(path, *extra: str):
    """`{(pid, tid): (nodes, JS calls)}` of the threads `tracekit info`
    lists in the processes DevTools shows."""
    run = cli("info", str(path), "-q", *extra)
    assert run.returncode == 0, run.stderr
    counts = {}
    pid = None
    for line in run.stdout.splitlines():
        process = re.match(r"process (\S+)", line)
        if process:
            shown = "[not shown by DevTools]" not in line
            pid = _id(process.group(1))
            continue
        thread = re.match(
            r"\s+thread (\S+?):? .*?(\d+) nodes? \(\d+ events?, (\d+) JS calls?\)", line
        )
        if thread and shown:
            counts[(pid, _id(thread.group(1)))] = (int(thread.group(2)), int(thread.group(3)))
    assert counts, run.stdout
    return counts


@pytest.fixture(scope="session")
def recorded():
    return RECORDED
