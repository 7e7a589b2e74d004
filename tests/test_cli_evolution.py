"""The CLI's schema-evolution, tag and rollback verbs (alter, create-tag --time-retained,
rename-tag, replace-tag, tags, rollback) through the installed ``paimon-rowid``, as
tests/test_cli.py: results as lines and --json; refusals exit 2 and change nothing."""
from __future__ import annotations

import json

import pytest

import ours
from test_cli import _cli

pytestmark = pytest.mark.native


@pytest.fixture
def table(warehouse):
    """db.t (id, name) with three 10-row commits."""
    ours.three_commit_table(warehouse)
    return warehouse


def _ok(run):
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_cli_alter(table):
    out = _ok(_cli(table, "alter", "db.t", "--add-column", "score", "INT", "--rename-column",
                   "name", "title", "--set-option", "snapshot.num-retained.min=3"))
    assert "schema: 1" in out.splitlines() and "fields: id, title, score" in out.splitlines()
    got = json.loads(_ok(_cli(table, "alter", "db.t", "--drop-column", "score",
                              "--remove-option", "snapshot.num-retained.min", "--json")))
    assert got == {"table": "db.t", "schema_id": 2, "fields": ["id", "title"]}
    t = ours.catalog(table).get_table("db.t")
    assert "snapshot.num-retained.min" not in t.options
    rows = _ok(_cli(table, "read", "db.t", "--columns", "title")).splitlines()
    assert rows[0] == '"title","_ROW_ID"' and rows[1] == '"n0",0'


@pytest.mark.parametrize("args, message", [
    (["--drop-column", "nope"], "Column nope does not exist"),
    (["--add-column", "id", "INT"], "Column id already exists"),
    (["--add-column", "x", "NOT_A_TYPE"], "NOT_A_TYPE"),
    (["--set-option", "novalue"], "expected KEY=VALUE"),
    ([], "give at least one change"),
])
def test_cli_alter_refusals_write_nothing(table, args, message):
    before = ours.files(table)
    run = _cli(table, "alter", "db.t", *args)
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert ours.files(table) == before


def test_cli_tags_and_rollback(table):
    _ok(_cli(table, "create-tag", "db.t", "t1", "--snapshot", "1"))
    _ok(_cli(table, "create-tag", "db.t", "t3", "--time-retained", "1 d"))
    _ok(_cli(table, "rename-tag", "db.t", "t3", "t3b"))
    assert json.loads(_ok(_cli(table, "tags", "db.t", "--json"))) == ["t1", "t3b"]
    _ok(_cli(table, "replace-tag", "db.t", "t1", "--snapshot", "2"))
    assert ours.catalog(table).get_tag("db.t", "t1").snapshot.id == 2
    out = _ok(_cli(table, "rollback", "db.t", "--snapshot", "2", "--delete-unused-files"))
    assert "rolled back to snapshot: 2" in out and "tags deleted: t3b" in out
    assert "snapshots deleted: 1" in out and "data files deleted: 1" in out
    got = json.loads(_ok(_cli(table, "rollback", "db.t", "--tag", "t1", "--json")))
    assert got["snapshot_id"] == 2 and got["snapshots_deleted"] == 0
    t = ours.catalog(table).get_table("db.t")
    millis = t.snapshot(1).time_millis
    got = json.loads(_ok(_cli(table, "rollback", "db.t", "--timestamp-ms", str(millis),
                              "--json")))
    assert got["snapshot_id"] == 1 and got["tags_deleted"] == ["t1"]
    assert _ok(_cli(table, "read", "db.t", "--columns", "id")).count("\n") == 11


@pytest.mark.parametrize("args, message", [
    (["rollback", "db.t", "--snapshot", "9"], "Rollback snapshot '9' doesn't exist."),
    (["rollback", "db.t", "--tag", "nope"], "Tag 'nope' doesn't exist."),
    (["rollback", "db.t", "--timestamp-ms", "1"], "No snapshot found with timestamp"),
    (["rollback", "db.t"], "one of the arguments --snapshot --tag --timestamp-ms is required"),
    (["rollback", "db.t", "--snapshot", "1", "--tag", "x"], "not allowed with argument"),
    (["rename-tag", "db.t", "nope", "x"], "Tag 'nope' doesn't exist."),
    (["replace-tag", "db.t", "nope"], "Tag 'nope' doesn't exist."),
    (["create-tag", "db.t", "x", "--time-retained", "1 fortnight"], "Time interval unit"),
])
def test_cli_tag_and_rollback_refusals_change_nothing(table, args, message):
    before = ours.files(table)
    run = _cli(table, args[0], *args[1:])
    assert run.returncode == 2 and message in run.stderr, run.stderr
    assert ours.files(table) == before
