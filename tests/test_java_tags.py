"""Tags and rollback against Java Paimon (docs/tags.md): one JVM batch. Java reads the tags we
write (plain and with a retention); Java's rollback and ours of the same table leave the same
snapshots, tags, rows and data files (Java 1.4.2 deletes no data file, nor do we by
default); Java reads the table we rolled back."""
from __future__ import annotations

import os
import shutil

import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytestmark = [pytest.mark.native, pytest.mark.java]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


def _batch(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": [f"n{i}" for i in range(start, start + n)]}, schema=SCHEMA)


def _state(root: str):
    table_dir = os.path.join(root, "db.db", "t")
    snapshots = sorted(n for n in os.listdir(os.path.join(table_dir, "snapshot"))
                       if n.startswith("snapshot-"))
    tags = sorted(os.listdir(os.path.join(table_dir, "tag")))
    data = sorted(os.path.relpath(os.path.join(d, n), table_dir)
                  for d, _, names in os.walk(table_dir) for n in names
                  if n.endswith(".parquet"))
    return snapshots, tags, data


def test_java_reads_our_tags_and_rolls_back_as_we_do(java, warehouse, tmp_path):
    from paimon_rowid import update_by_row_id
    table = create_table(warehouse, "t", SCHEMA, DE)
    write(table, _batch(0, 10))
    write(table, _batch(10, 10))
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([3], pa.int64()), "name": ["u"]}),
                     {"warehouse": warehouse}, update_cols=["name"])
    write(table, _batch(20, 10))
    table.create_tag("on2", 2)
    table.create_tag("on3", 3, time_retained="1 d")
    table.create_tag("on4")
    theirs = str(tmp_path / "theirs")
    shutil.copytree(warehouse, theirs)

    table.rollback_to(2)
    from java import _load_dump
    cmds = [
        java.dump_cmd(theirs, "db.t", projection=["id", "name"], tag="on3"),  # with retention
        java.dump_cmd(theirs, "db.t", projection=["id", "name"], tag="on2"),
        java.rollback_cmd(theirs, "db.t", 2),
        java.dump_cmd(warehouse, "db.t", projection=["id", "name", "_ROW_ID"]),
        java.dump_cmd(theirs, "db.t", projection=["id", "name", "_ROW_ID"]),
    ]
    results = java.run_all(cmds)
    on3, on2, _, ours_after, java_after = (
        _load_dump(cmd, r) if cmd["cmd"] == "dump" else None for cmd, r in zip(cmds, results))
    assert sorted(on3.rows)[3] == [3, "u"] and len(on3.rows) == 20
    assert sorted(on2.rows)[3] == [3, "n3"] and len(on2.rows) == 20
    assert ours_after.rows == java_after.rows and len(ours_after.rows) == 20
    # Java's rollback and ours leave the same snapshots, tags and data files.
    assert _state(warehouse) == _state(theirs)
    assert _state(warehouse)[1] == ["tag-on2"]
    rb = catalog(theirs).get_table("db.t").new_read_builder()
    got = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    assert sorted(got["id"].to_pylist()) == list(range(20))
