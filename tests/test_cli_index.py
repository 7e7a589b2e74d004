"""The CLI's ``index create|drop|list`` verbs against a table written by the Python API,
through the installed ``paimon-rowid`` (as tests/test_cli.py): what each prints, that the
index it builds answers lookups, and refusals (exit 2, nothing committed, no file left)."""
from __future__ import annotations

import json

import pyarrow as pa
import pytest

import ours
from test_cli import _run

pytestmark = pytest.mark.native

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("dt", pa.string())])


@pytest.fixture
def table(warehouse):
    """db.t (id, name, dt) partitioned by dt, two 20-row commits (dt "a", then "b")."""
    t = ours.create_table(warehouse, "t", SCHEMA, {"row-tracking.enabled": "true",
                                                   "data-evolution.enabled": "true"},
                          partition_keys=["dt"])
    for start in (0, 20):
        ours.write(t, pa.table({"id": pa.array(range(start, start + 20), pa.int64()),
                                "name": [f"n{i}" for i in range(start, start + 20)],
                                "dt": ["a" if start == 0 else "b"] * 20}))
    return warehouse


def _index(warehouse, action, *rest):
    return _run("index", action, warehouse, "db.t", *rest)


def test_cli_creates_lists_and_drops_indexes(table):
    import paimon_rowid
    run = _index(table, "create", "--column", "name", "--partition", "dt=a")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "added 1 btree index file(s) on name\n"
    run = _index(table, "create", "--column", "id", "--json", "--build-option",
                 "btree-index.bloom-filter.enabled=true")
    assert json.loads(run.stdout) == {"files_added": 2}  # one per partition
    assert json.loads(_index(table, "create", "--column", "id", "--json").stdout) == \
        {"files_added": 0}
    listed = _index(table, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    entries = [json.loads(line) for line in listed.stdout.splitlines()]
    assert sorted((e["column"], e["partition"]["dt"]) for e in entries) == \
        [("id", "a"), ("id", "b"), ("name", "a")]
    assert all(e["index_type"] == "btree" and e["row_count"] == 20 for e in entries)
    text = _index(table, "list").stdout.splitlines()
    assert len(text) == 3 and all(line.startswith("btree\t") for line in text)
    assert any(line.split("\t")[1:3] == ["name", "dt=a"] for line in text)
    # The index answers lookups.
    found = paimon_rowid.lookup_row_ids("db.t", ["n3", "n4"], "name", {"warehouse": table})
    assert sorted(found.column("name").to_pylist()) == ["n3", "n4"]
    dry = _index(table, "drop", "--column", "id", "--dry-run")
    assert dry.stdout == "would drop 2 btree index file(s) on id\n"
    assert len(_index(table, "list").stdout.splitlines()) == 3
    run = _index(table, "drop", "--column", "id", "--partition", "dt=b", "--json")
    assert json.loads(run.stdout) == {"files_dropped": 1, "dry_run": False}
    assert len(_index(table, "list").stdout.splitlines()) == 2


def test_cli_creates_and_drops_a_bitmap_index(table):
    import paimon_rowid
    run = _index(table, "create", "--column", "name", "--type", "bitmap", "--build-option",
                 "bitmap-index.dictionary-block-size=64")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "added 2 bitmap index file(s) on name\n"  # one per partition
    text = _index(table, "list").stdout.splitlines()
    assert len(text) == 2 and all(line.startswith("bitmap\tname\t") for line in text)
    found = paimon_rowid.lookup_row_ids("db.t", ["n3", "n24"], "name", {"warehouse": table})
    assert sorted(found.column("name").to_pylist()) == ["n24", "n3"]
    run = _index(table, "drop", "--column", "name", "--type", "bitmap", "--json")
    assert json.loads(run.stdout) == {"files_dropped": 2, "dry_run": False}
    assert _index(table, "list").stdout == ""


def test_cli_index_refusals_commit_nothing(table):
    snapshot = ours.catalog(table).get_table("db.t").latest_snapshot().id
    before = ours.files(table)
    for argv, message in (
            (("create", "--column", "nope"), "does not exist"),
            (("create", "--column", "name", "--type", "ivf"), "not supported"),
            (("create", "--column", "name", "--type", "bitmap", "--build-option",
              "bitmap-index.compression=zstd"), "bitmap-index.compression"),
            (("create", "--column", "name", "--partition", "zz=1"), "not a partition column"),
            (("create", "--column", "name", "--build-option",
              "btree-index.compression=lzo"), "lzo"),
            (("drop", "--column", "nope"), "does not exist")):
        run = _index(table, *argv)
        assert run.returncode == 2, (argv, run.stderr)
        assert message in run.stderr, (argv, run.stderr)
    bad = _index(table, "create", "--column", "name", "--partition", "dt")
    assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr  # argparse
    missing = _run("index", "list", table, "db.missing")
    assert missing.returncode == 2 and "db.missing" in missing.stderr
    assert ours.catalog(table).get_table("db.t").latest_snapshot().id == snapshot
    assert ours.files(table) == before
