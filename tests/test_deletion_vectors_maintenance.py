"""Maintenance on deletion-vector tables: expiration reclaims the index files (and index
manifests) only expired snapshots name and keeps the live ones; orphan cleaning keeps every
referenced index file and removes an unreferenced one; compaction rewrites groups with deleted
rows and moves their vectors to the compacted files, the deletes staying visible to us and to
pypaimon."""
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


def _split_groups(warehouse, layout="plain"):
    """Our DV table whose groups [0, 4] and [5, 9] each hold a base file and two partial
    files (two updates of ``b``)."""
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout])
    table = dv.our_table(warehouse, "db.t")
    for ids in ([0, 6], [1, 7]):
        update = table.new_batch_write_builder().new_update().with_update_type(["b"])
        table.new_batch_write_builder().new_commit().commit(update.update_by_arrow_with_row_id(
            pa.table({"_ROW_ID": pa.array(ids, pa.int64()), "b": ["u", "u"]})))
    return table


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
def test_compaction_moves_the_vectors_of_groups_with_deleted_rows(oracle, tmp_path, layout):
    """Groups with deleted rows are compacted too: the compacted file keeps every row (deleted
    ones included, so positions and row ids stay) and the group's vector moves to it, in one
    new index file per touched bucket that replaces the old ones. Ours and pypaimon read the
    same live rows; a later delete and update key on the compacted file."""
    from paimon_rowid import compact
    warehouse = str(tmp_path / "wh")
    _split_groups(warehouse, layout)
    dv.our_delete(warehouse, "db.t", [2, 8])  # vectors on both split groups' anchors
    before = dv.our_read(warehouse, "db.t", dv.ALL + ["_ROW_ID"])
    old_index = set(_index_files(warehouse))
    result = compact("db.t", {"warehouse": warehouse}, full=True)
    assert result["groups_compacted"] == 2
    assert dv.snapshot_json(warehouse, "db.t")["commitKind"] == "COMPACT"
    after = dv.our_read(warehouse, "db.t", dv.ALL + ["_ROW_ID"])
    dv.same(after, before, f"{layout}: compacted, read by ours")
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, "db.t",
                               {"full": {"projection": dv.ALL + ["_ROW_ID"]}})
    oracle.run_batch(reads)
    dv.same(dv.load_reads(outs)["full"], before, f"{layout}: compacted, read by pypaimon")
    # The live index files are new ones; the old ones are no longer referenced.
    assert set(_index_files(warehouse)) - old_index
    # Deletes and updates after the compaction key on the compacted file.
    dv.our_delete(warehouse, "db.t", [3])
    table = dv.our_table(warehouse, "db.t")
    update = table.new_batch_write_builder().new_update().with_update_type(["b"])
    table.new_batch_write_builder().new_commit().commit(update.update_by_arrow_with_row_id(
        pa.table({"_ROW_ID": pa.array([4], pa.int64()), "b": ["v"]})))
    rows = dv.by_row_id(dv.our_read(warehouse, "db.t", ["b", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS) if i not in (2, 3, 8)]
    assert [rows[i]["b"] for i in (0, 1, 4, 6, 7)] == ["u", "u", "v", "u", "u"]
    (tmp_path / "later").mkdir()
    reads, outs = dv.read_cmds(oracle, tmp_path / "later", warehouse, "db.t",
                               {"full": {"projection": dv.ALL + ["_ROW_ID"]}})
    oracle.run_batch(reads)
    dv.same(dv.load_reads(outs)["full"], dv.our_read(warehouse, "db.t", dv.ALL + ["_ROW_ID"]),
            f"{layout}: deleted and updated after compaction, read by pypaimon")


def test_compaction_of_groups_without_deleted_rows_leaves_the_vectors_alone(warehouse):
    from paimon_rowid import compact
    _split_groups(warehouse)
    dv.our_delete(warehouse, "db.t", [11])  # group [10, 12] is not compacted (one file)
    index = _index_files(warehouse)
    result = compact("db.t", {"warehouse": warehouse}, full=True)
    assert result["groups_compacted"] == 2
    assert _index_files(warehouse) == index
    rows = dv.by_row_id(dv.our_read(warehouse, "db.t", ["b", "_ROW_ID"]))
    assert sorted(rows) == [i for i in range(dv.NUM_ROWS) if i != 11]
