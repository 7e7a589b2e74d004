"""``TableUpdate.new_shard_updator`` (pypaimon 2.1.0, memo §2.7): scan-and-rewrite updates,
one shard of the file groups per worker.

pypaimon and ours double one column through 1, 2 and 5 shards on copies of one warehouse;
both engines read both results identically. Then the errors: too many rows, too few (where
we differ: pypaimon drops the partial group silently); deletion-vector tables, whose live rows
are updated in place.
"""
from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import dv_tables as dv

pytestmark = pytest.mark.native


def _updator(table, shard, shards, col="a"):
    update = table.new_batch_write_builder().new_update()
    update.with_read_projection([col])
    update.with_update_type([col])
    return update.new_shard_updator(shard, shards)


def _double(updator):
    for batch in updator.arrow_reader():
        doubled = pc.multiply(batch.column(0), 2).cast(batch.schema.field(0).type)
        updator.update_by_arrow_batch(pa.RecordBatch.from_arrays([doubled], names=["a"]))
    return updator.prepare_commit()


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
@pytest.mark.parametrize("shards", [1, 2, 5])
def test_same_result_as_pypaimon(oracle, tmp_path, layout, shards):
    theirs, ours_wh = str(tmp_path / "theirs"), str(tmp_path / "ours")
    dv.our_setup(theirs, "t", dv.LAYOUTS[layout], options=dv.DE)
    shutil.copytree(theirs, ours_wh)
    oracle.run({"cmd": "shard_double", "warehouse": theirs, "identifier": "db.t",
                "shards": shards, "col": "a"})
    table = dv.our_table(ours_wh, "db.t")
    messages = []
    for shard in range(shards):
        messages += _double(_updator(table, shard, shards))
    table.new_batch_write_builder().new_commit().commit(messages)
    dv.check_both_read_the_same(oracle, tmp_path, ours_wh, theirs, "db.t",
                                f"{layout}/{shards} shards")
    got = dv.our_read(ours_wh, "db.t", ["id", "a"])
    assert sorted(got.to_pylist(), key=lambda r: r["id"]) == [
        {"id": i, "a": 20 * i} for i in range(dv.NUM_ROWS)]


def test_shards_split_the_groups_by_count(warehouse):
    dv.our_setup(warehouse, "t", [], options=dv.DE)  # three groups: [0,4] [5,9] [10,12]
    table = dv.our_table(warehouse, "db.t")
    assert [_updator(table, s, 2).row_ranges for s in range(2)] == [
        [(0, 4), (5, 9)], [(10, 12)]]
    assert _updator(table, 3, 4).row_ranges == []


def test_writing_more_or_fewer_rows_than_read_raises(warehouse):
    dv.our_setup(warehouse, "t", [], options=dv.DE)
    table = dv.our_table(warehouse, "db.t")
    before = dv.files(warehouse)
    updator = _updator(table, 0, 1)
    with pytest.raises(RuntimeError, match="^No more row ranges to write"):
        updator.update_by_arrow_batch(pa.record_batch({"a": pa.array([1] * 14, pa.int32())}))
    fewer = _updator(table, 0, 1)
    fewer.update_by_arrow_batch(pa.record_batch({"a": pa.array([1] * 7, pa.int32())}))
    with pytest.raises(RuntimeError, match=r"row range \[5, 9\] got 2 of its 5 rows"):
        fewer.prepare_commit()
    # Files of completed groups were written but nothing was committed.
    fewer_messages = fewer._messages
    table.new_batch_write_builder().new_commit().abort(fewer_messages)
    updator_messages = updator._messages
    table.new_batch_write_builder().new_commit().abort(updator_messages)
    assert dv.files(warehouse) == before


@pytest.mark.parametrize("layout", list(dv.LAYOUTS))
@pytest.mark.parametrize("shards", [1, 2])
def test_deletion_vector_tables_update_the_live_rows(oracle, tmp_path, layout, shards):
    """The reader skips deleted rows; every row fed goes back to the live row it was read
    from (pypaimon fills each range by count, so there a row shifts into the neighbouring
    range or the partial range is dropped). Deleted rows stay deleted with their old values."""
    warehouse = str(tmp_path / "wh")
    dv.our_setup(warehouse, "t", dv.LAYOUTS[layout])
    # Row ids 2 and 3 (group [0, 4]), every row of group [10, 12], and row 7.
    dv.our_delete(warehouse, "db.t", [2, 3, 7, 10, 11, 12])
    table = dv.our_table(warehouse, "db.t")
    before = {r["_ROW_ID"]: r["a"] for r in dv.our_read(
        warehouse, "db.t", ["a", "_ROW_ID"]).to_pylist()}
    messages = []
    for shard in range(shards):
        messages += _double(_updator(table, shard, shards))
    table.new_batch_write_builder().new_commit().commit(messages)
    after = {r["_ROW_ID"]: r["a"] for r in dv.our_read(
        warehouse, "db.t", ["a", "_ROW_ID"]).to_pylist()}
    assert after == {rid: 2 * a for rid, a in before.items()}
    assert sorted(after) == [0, 1, 4, 5, 6, 8, 9]
    # pypaimon reads the same live rows and values.
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, "db.t",
                               {"full": {"projection": dv.ALL + ["_ROW_ID"]}})
    oracle.run_batch(reads)
    dv.same(dv.our_read(warehouse, "db.t", dv.ALL + ["_ROW_ID"]), dv.load_reads(outs)["full"],
            f"{layout}/{shards} shards read by pypaimon")


def test_deletion_vector_table_fed_too_many_rows_raises(warehouse):
    dv.our_setup(warehouse, "t", [])
    dv.our_delete(warehouse, "db.t", [0, 1, 2, 3, 4])  # the whole first group
    table = dv.our_table(warehouse, "db.t")
    before = dv.files(warehouse)
    updator = _updator(table, 0, 1)
    with pytest.raises(RuntimeError, match="^No more row ranges to write"):
        updator.update_by_arrow_batch(pa.record_batch({"a": pa.array([1] * 9, pa.int32())}))
    fewer = _updator(table, 0, 1)
    fewer.update_by_arrow_batch(pa.record_batch({"a": pa.array([1] * 6, pa.int32())}))
    with pytest.raises(RuntimeError, match=r"row range \[10, 12\] got 1 of its 3 rows"):
        fewer.prepare_commit()
    for u in (updator, fewer):
        table.new_batch_write_builder().new_commit().abort(u._messages)
    assert dv.files(warehouse) == before
