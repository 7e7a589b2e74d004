"""paimon_rowid.expire_snapshots (docs/maintenance.md, "Snapshot expiration").

Error paths raise the documented exception and delete nothing. Compatibility: a table we
wrote and updated (partial-column files), expired, reads identically before and after in
ours, pypaimon and Java Paimon; a table pypaimon wrote and updated expires and pypaimon still
reads it the same.
"""
from __future__ import annotations

import os
import time
from typing import Dict, List

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("score", pa.int64())])
FAR_FUTURE = 2 ** 62  # every snapshot is old enough


def _files(root: str) -> List[str]:
    out = []
    for dirpath, _dirs, names in os.walk(root):
        out.extend(os.path.relpath(os.path.join(dirpath, n), root) for n in names)
    return sorted(out)


def _batch(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": [f"n{i}" for i in range(start, start + n)],
                     "score": pa.array([i * 10 for i in range(start, start + n)], pa.int64())},
                    schema=SCHEMA)


def _catalog(warehouse):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create({"warehouse": warehouse})


def _write(table, data: pa.Table) -> None:
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())
    write.close()


def _read(warehouse: str, snapshot_id=None) -> pa.Table:
    table = _catalog(warehouse).get_table("db.t")
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    builder = table.new_read_builder().with_projection(["id", "name", "score", "_ROW_ID"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


def _snapshot_ids(warehouse: str) -> List[int]:
    names = os.listdir(os.path.join(warehouse, "db.db", "t", "snapshot"))
    return sorted(int(n.split("-")[1]) for n in names if n.startswith("snapshot-"))


@pytest.fixture
def updated(warehouse):
    """db.t written by us in 3 commits and updated twice (partial-column files): 5 snapshots."""
    from paimon_rowid import Schema, update_by_row_id
    c = _catalog(warehouse)
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=DE), False)
    for start in (0, 10, 20):
        _write(c.get_table("db.t"), _batch(start, 10))
    opts = {"warehouse": warehouse}
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([1, 12, 25], pa.int64()),
                                       "name": ["x1", "x12", "x25"]}), opts, update_cols=["name"])
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([2, 12], pa.int64()),
                                       "score": pa.array([-2, -12], pa.int64())}), opts,
                     update_cols=["score"])
    return warehouse


def test_expires_by_count_and_reads_the_same(updated):
    from paimon_rowid import expire_snapshots
    before = {i: _read(updated, i) for i in _snapshot_ids(updated)}
    assert sorted(before) == [1, 2, 3, 4, 5]
    result = expire_snapshots("db.t", {"warehouse": updated}, retain_min=2,
                              older_than_ms=FAR_FUTURE)
    assert result["snapshots_expired"] == 3
    assert result["earliest_snapshot_id"] == 4
    assert result["manifest_files_deleted"] >= 6 and result["bytes_freed"] > 0
    assert result["data_files_deleted"] == 0  # appends and updates delete no file
    assert _snapshot_ids(updated) == [4, 5]
    for i in (4, 5):
        assert _read(updated, i).equals(before[i])
    again = expire_snapshots("db.t", {"warehouse": updated}, retain_min=2,
                             older_than_ms=FAR_FUTURE)
    assert again["snapshots_expired"] == 0


def test_defaults_keep_fresh_snapshots(updated):
    from paimon_rowid import expire_snapshots
    # snapshot.time-retained (1 h) keeps every snapshot just written, whatever the counts say.
    result = expire_snapshots("db.t", {"warehouse": updated}, retain_min=1)
    assert result["snapshots_expired"] == 0
    # retain_max forces expiration of young snapshots; max_deletes bounds one call.
    result = expire_snapshots("db.t", {"warehouse": updated}, retain_max=2, retain_min=1,
                              max_deletes=2)
    assert result["snapshots_expired"] == 2
    assert _snapshot_ids(updated) == [3, 4, 5]


def test_table_options_give_the_defaults(warehouse):
    from paimon_rowid import Schema, expire_snapshots
    c = _catalog(warehouse)
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options={
        **DE, "snapshot.num-retained.min": "2", "snapshot.time-retained": "1 ms"}), False)
    for start in (0, 10, 20, 30):
        _write(c.get_table("db.t"), _batch(start, 5))
    time.sleep(0.01)
    assert expire_snapshots("db.t", {"warehouse": warehouse})["snapshots_expired"] == 2
    assert _snapshot_ids(warehouse) == [3, 4]


@pytest.mark.parametrize("kwargs, error, text", [
    ({"retain_min": 0}, ValueError, "retain_min must be at least 1"),
    ({"retain_min": 3, "retain_max": 2}, ValueError, "retain_max (2) must be >= retain_min (3)"),
    ({"max_deletes": 0}, ValueError, "max_deletes must be at least 1"),
    ({"retain_min": "1"}, TypeError, "retain_min must be an int"),
    ({"retain_max": True}, TypeError, "retain_max must be an int"),
    ({"older_than_ms": 1.5}, TypeError, "older_than_ms must be an int"),
])
def test_bad_options_raise_and_delete_nothing(updated, kwargs, error, text):
    from paimon_rowid import expire_snapshots
    files = _files(updated)
    with pytest.raises(error) as info:
        expire_snapshots("db.t", {"warehouse": updated}, **{"older_than_ms": FAR_FUTURE, **kwargs})
    assert text in str(info.value)
    assert _files(updated) == files


def test_unknown_table_raises(updated):
    from paimon_rowid import TableNotExistException, expire_snapshots
    files = _files(updated)
    with pytest.raises(TableNotExistException):
        expire_snapshots("db.nope", {"warehouse": updated})
    assert _files(updated) == files


def test_a_tag_keeps_its_snapshot_readable(updated):
    from paimon_rowid import expire_snapshots
    table = _catalog(updated).get_table("db.t")
    table.create_tag("t2", 2)
    tagged = _read(updated, 2)
    expire_snapshots("db.t", {"warehouse": updated}, retain_min=1, older_than_ms=FAR_FUTURE)
    assert _snapshot_ids(updated) == [5]
    t = _catalog(updated).get_table("db.t").copy({"scan.tag-name": "t2"})
    builder = t.new_read_builder().with_projection(["id", "name", "score", "_ROW_ID"])
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")
    assert got.equals(tagged)


def _by_id(table: pa.Table) -> Dict[int, dict]:
    return {r["_ROW_ID"]: {k: v for k, v in r.items() if k != "_ROW_ID"}
            for r in table.to_pylist()}


def test_pypaimon_and_java_read_the_same_after_expiration(updated, oracle, java):
    from paimon_rowid import expire_snapshots
    ours_before = _read(updated)
    cols = ["id", "name", "score", "_ROW_ID"]
    theirs_before = oracle.read(updated, "db.t", projection=cols)
    java_before = java.dump(updated, "db.t", projection=cols)
    assert _by_id(theirs_before) == _by_id(ours_before)
    result = expire_snapshots("db.t", {"warehouse": updated}, retain_min=1,
                              older_than_ms=FAR_FUTURE)
    assert result["snapshots_expired"] == 4
    assert _read(updated).equals(ours_before)
    assert _by_id(oracle.read(updated, "db.t", projection=cols)) == _by_id(ours_before)
    java_after = java.dump(updated, "db.t", projection=cols)
    assert java_after.names == java_before.names
    assert java_after.rows == java_before.rows


def test_expires_a_table_pypaimon_wrote(warehouse, oracle):
    from paimon_rowid import expire_snapshots
    oracle.create_table(warehouse, "db.t", SCHEMA, options=DE)
    for start in (0, 10, 20):
        oracle.write(warehouse, "db.t", _batch(start, 10))
    oracle.update_by_row_id(warehouse, "db.t",
                            pa.table({"_ROW_ID": pa.array([3, 21], pa.int64()),
                                      "name": ["p3", "p21"]}), ["name"])
    cols = ["id", "name", "score", "_ROW_ID"]
    before = oracle.read(warehouse, "db.t", projection=cols)
    result = expire_snapshots("db.t", {"warehouse": warehouse}, retain_min=1,
                              older_than_ms=FAR_FUTURE)
    assert result["snapshots_expired"] == 3
    assert _snapshot_ids(warehouse) == [4]
    assert _by_id(oracle.read(warehouse, "db.t", projection=cols)) == _by_id(before)
    assert _by_id(_read(warehouse)) == _by_id(before)
