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


def test_routed_rows_do_not_keep_their_source_batches_alive(warehouse):
    """A source whose _ROW_ID column comes from a batch read through the C data interface (a
    backfill's input window, BLOB payloads and all) must not keep that batch alive until the
    commit: the update keeps copies of the rows it routes, so memory stays at one batch."""
    from paimon_rowid import CatalogFactory, Schema
    from paimon_rowid.row_id_jobs import update_by_row_id
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.w", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("payload", pa.string()), ("x", pa.float64())]),
        options=OPTS), False)
    table = catalog.get_table("db.w")
    rows, payload_bytes = 4000, 8 * 1024
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    write.write_arrow(pa.table({"id": pa.array(range(rows), pa.int64()),
                                "payload": [str(i % 10) * payload_bytes for i in range(rows)],
                                "x": [0.0] * rows}))
    builder.new_commit().commit(write.prepare_commit())

    read = table.new_read_builder().with_projection(["payload", "_ROW_ID"])
    splits = []
    from paimon_rowid import Range
    for start in range(0, rows, 250):  # 16 windows of 250 rows (~2 MB of payload each)
        splits += read.new_scan().with_row_ranges([Range(start, start + 249)]).plan().splits()
    schema = pa.schema([("_ROW_ID", pa.int64()), ("x", pa.float64())])
    peak = [0]

    def batches():
        for window in read.new_read().to_arrow_batch_reader(splits):
            peak[0] = max(peak[0], pa.total_allocated_bytes())
            yield pa.record_batch([window.column("_ROW_ID"),
                                   pa.array([1.5] * window.num_rows)], schema=schema)

    before = pa.total_allocated_bytes()
    update_by_row_id("db.w", pa.RecordBatchReader.from_batches(schema, batches()),
                     {"warehouse": warehouse}, update_cols=["x"])
    window_bytes = 250 * payload_bytes
    # Holding every window would reach rows * payload_bytes (~32 MB) above the start.
    assert peak[0] - before < 4 * window_bytes, (peak[0] - before, window_bytes)
    got = _read_x(catalog.get_table("db.w"))
    assert got == [1.5] * rows


def _read_x(table):
    builder = table.new_read_builder().with_projection(["x", "_ROW_ID"])
    out = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")
    return out.column("x").to_pylist()
