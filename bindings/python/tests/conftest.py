"""Shared fixtures of the tests: the `tracekit` command to compare with
(TRACEKIT_CLI) and the repository's fixtures (TRACEKIT_ROOT), set by
crates/cli/tests/python_package.rs, which builds and installs the wheel."""

import os
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


@pytest.fixture(scope="session")
def recorded():
    return RECORDED
