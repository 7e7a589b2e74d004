"""Maintenance on deletion-vector tables: expiration reclaims the index files (and index
manifests) only expired snapshots name and keeps the live ones; orphan cleaning keeps every
referenced index file and removes an unreferenced one; compaction leaves groups with deleted
rows alone and the deletes stay visible."""
from __future__ import annotations

import time

import pyarrow as pa
import pytest

import dv_tables as dv

pytestmark = pytest.mark.native


def _index_files(warehouse):
    return sorted(f for f in dv.files(warehouse) if f.startswith("db.db/t/index/"))


def test_expire_reclaims_replaced_index_files_only(warehouse):
    from paimon_rowid import expire_snapshots
    dv.our_setup(warehouse, "t", [])  # one bucket: the second delete replaces its file
    dv.our_delete(warehouse, "db.t", [1])
    first = _index_files(warehouse)
    dv.our_delete(warehouse, "db.t", [3, 5])  # replaces the bucket's index file
    assert len(_index_files(warehouse)) > len(first)
    expire_snapshots("db.t", {"warehouse": warehouse}, retain_max=1, retain_min=1)
    live = _index_files(warehouse)
    assert not set(first) & set(live), "the replaced index file is reclaimed"
    rows = dv.by_row_id(dv.our_read(warehouse, "db.t", ["id", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS) if i not in (1, 3, 5)]


def test_orphan_cleaning_keeps_referenced_index_files(warehouse):
    from paimon_rowid import remove_orphan_files
    dv.our_setup(warehouse, "t", [])
    dv.our_delete(warehouse, "db.t", [2])
    live = _index_files(warehouse)
    stray = dv.table_dir(warehouse, "db.t") / "index" / "index-00000000-stray-1"
    stray.write_bytes(b"\x01")
    remove_orphan_files("db.t", {"warehouse": warehouse},
                        older_than_ms=int(time.time() * 1000) + 60_000)
    assert not stray.exists()
    assert _index_files(warehouse) == live
    rows = dv.by_row_id(dv.our_read(warehouse, "db.t", ["id", "_ROW_ID"]))
    assert 2 not in rows and len(rows) == dv.NUM_ROWS - 1


def test_compaction_skips_groups_with_deleted_rows(warehouse):
    from paimon_rowid import compact
    dv.our_setup(warehouse, "t", [])
    table = dv.our_table(warehouse, "db.t")
    # Two updates split group [0, 4] and group [5, 9] into several files each.
    for ids in ([0, 6], [1, 7]):
        update = table.new_batch_write_builder().new_update().with_update_type(["b"])
        table.new_batch_write_builder().new_commit().commit(update.update_by_arrow_with_row_id(
            pa.table({"_ROW_ID": pa.array(ids, pa.int64()), "b": ["u", "u"]})))
    dv.our_delete(warehouse, "db.t", [2])  # a vector on group [0, 4]'s anchor
    result = compact("db.t", {"warehouse": warehouse}, full=True)
    assert result["groups_compacted"] == 1  # [5, 9] only
    rows = dv.by_row_id(dv.our_read(warehouse, "db.t", ["b", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS) if i != 2]
    assert [rows[i]["b"] for i in (0, 1, 6, 7)] == ["u"] * 4
