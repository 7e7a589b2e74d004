"""The CLI's maintenance verbs (expire-snapshots, remove-orphan-files) against a table written
by the Python API, through the installed ``paimon-rowid`` (as tests/test_cli.py)."""
from __future__ import annotations

import os
import time

import pytest

import ours
from test_cli import _cli, _run

pytestmark = pytest.mark.native


@pytest.fixture
def table(warehouse):
    """db.t (id, name) with three 10-row commits."""
    ours.three_commit_table(warehouse)
    return warehouse


def _lines(out: str) -> dict:
    return dict(line.split(": ", 1) for line in out.splitlines())


def test_cli_expires_snapshots(table):
    run = _cli(table, "expire-snapshots", "db.t", "--retain-min", "1", "--older-than-ms",
               str(2 ** 62), "--max-deletes", "1")
    assert run.returncode == 0, run.stderr
    got = _lines(run.stdout)
    assert got["snapshots expired"] == "1" and got["earliest snapshot"] == "2"
    run = _cli(table, "expire-snapshots", "db.t", "--retain-min", "1", "--older-than-ms",
               str(2 ** 62))
    assert _lines(run.stdout)["earliest snapshot"] == "3"
    assert _cli(table, "read", "db.t", "--columns", "id").stdout.count("\n") == 31


def test_cli_removes_orphan_files(table):
    dead = os.path.join(table, "db.db", "t", "bucket-0", "data-dead-0.parquet")
    with open(dead, "wb") as out:
        out.write(b"junk")
    future = str(int(time.time() * 1000) + 60_000)
    dry = _cli(table, "remove-orphan-files", "db.t", "--older-than-ms", future, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"would delete: {dead}" in dry.stdout.splitlines()
    assert "orphan files found (dry run): 1" in dry.stdout and os.path.exists(dead)
    run = _cli(table, "remove-orphan-files", "db.t", "--older-than-ms", future)
    assert f"deleted: {dead}" in run.stdout.splitlines() and not os.path.exists(dead)
    assert "orphan files deleted: 1" in run.stdout


@pytest.mark.parametrize("args, message", [
    (["expire-snapshots", "db.t", "--retain-min", "0"], "retain_min must be at least 1"),
    (["expire-snapshots", "db.t", "--retain-min", "x"], "--retain-min: 'x' is not an integer"),
    (["expire-snapshots", "db.t", "--retain-max", "99999999999"], "out of range"),
    (["remove-orphan-files", "db.t", "--older-than-ms", "soon"], "is not an integer"),
])
def test_cli_refuses_bad_options(table, args, message):
    run = _cli(table, *args)
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert message in run.stderr and run.stdout == ""


def test_cli_usage_names_the_maintenance_verbs(table):
    run = _run(table)  # a warehouse where the verb should be
    assert run.returncode == 2
    assert "expire-snapshots" in run.stderr and "remove-orphan-files" in run.stderr
