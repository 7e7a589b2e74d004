"""update_by_row_id with a streamed source larger than its memory budget: the routed rows are
spilled to Arrow IPC files (``paimon-rowid.update.memory-budget`` / ``spill-dir`` catalog
options) and the result is the same as without spilling; pypaimon reads it identically and
no spill file outlives the call, also when the update fails."""
from __future__ import annotations

import os
import random

import pyarrow as pa
import pytest

pytestmark = pytest.mark.native

OPTS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
GROUPS = 6
PER_GROUP = 500


def _table(warehouse):
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("s", pa.string()), ("x", pa.float64())]),
        options=OPTS), False)
    table = catalog.get_table("db.t")
    for g in range(GROUPS):
        ids = list(range(g * PER_GROUP, (g + 1) * PER_GROUP))
        builder = table.new_batch_write_builder()
        write = builder.new_write()
        write.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                    "s": [f"old-{i}" for i in ids],
                                    "x": [float(i) for i in ids]}))
        builder.new_commit().commit(write.prepare_commit())
    return table


def _stream(ids, batch_rows=97):
    """A RecordBatchReader over (_ROW_ID, s) in the given order, in small batches."""
    schema = pa.schema([("_ROW_ID", pa.int64()), ("s", pa.string())])

    def batches():
        for i in range(0, len(ids), batch_rows):
            chunk = ids[i:i + batch_rows]
            yield pa.record_batch([pa.array(chunk, pa.int64()),
                                   pa.array([f"new-{r}-" + "z" * (r % 50) for r in chunk])],
                                  schema=schema)
    return pa.RecordBatchReader.from_batches(schema, batches())


def _read(table):
    builder = table.new_read_builder().with_projection(["_ROW_ID", "id", "s", "x"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


@pytest.mark.parametrize("budget", ["1 kb", "64 kb", "0"])
def test_spilled_update_equals_in_memory_update(warehouse, tmp_path, oracle, budget):
    from paimon_rowid.row_id_jobs import update_by_row_id
    table = _table(warehouse)
    ids = random.Random(7).sample(range(GROUPS * PER_GROUP), 1800)  # unsorted, every group
    spill = tmp_path / "spill"
    spill.mkdir()
    options = {"warehouse": warehouse, "paimon-rowid.update.memory-budget": budget,
               "paimon-rowid.update.spill-dir": str(spill)}
    assert update_by_row_id("db.t", _stream(ids), options, update_cols=["s"]) == {
        "num_updated": len(ids)}
    assert os.listdir(spill) == []
    got = _read(table)
    touched = set(ids)
    expected = [f"new-{r}-" + "z" * (r % 50) if r in touched else f"old-{r}"
                for r in range(GROUPS * PER_GROUP)]
    assert got.column("s").to_pylist() == expected
    assert got.column("x").to_pylist() == [float(r) for r in range(GROUPS * PER_GROUP)]
    assert table.latest_snapshot()["id"] == GROUPS + 1
    theirs = oracle.read(warehouse, "db.t", projection=["_ROW_ID", "id", "s", "x"])
    assert theirs.sort_by("_ROW_ID").equals(got)


def test_failed_spilled_update_leaves_no_spill_and_no_file(warehouse, tmp_path):
    from paimon_rowid.row_id_jobs import update_by_row_id
    _table(warehouse)
    spill = tmp_path / "spill"
    spill.mkdir()
    before = sorted(os.path.join(r, n) for r, _, ns in os.walk(warehouse) for n in ns)
    ids = list(range(0, 2000)) + [1500]  # a duplicate arriving in a later spill file
    options = {"warehouse": warehouse, "paimon-rowid.update.memory-budget": "1 kb",
               "paimon-rowid.update.spill-dir": str(spill)}
    with pytest.raises(ValueError, match="Deduplicate the source"):
        update_by_row_id("db.t", _stream(ids), options, update_cols=["s"])
    assert os.listdir(spill) == []
    assert sorted(os.path.join(r, n) for r, _, ns in os.walk(warehouse) for n in ns) == before


def test_bad_memory_budget_is_a_clear_error(warehouse):
    from paimon_rowid.row_id_jobs import update_by_row_id
    _table(warehouse)
    with pytest.raises(ValueError, match="memory-budget"):
        update_by_row_id("db.t", _stream([1]), {"warehouse": warehouse,
                                                 "paimon-rowid.update.memory-budget": "lots"},
                         update_cols=["s"])
