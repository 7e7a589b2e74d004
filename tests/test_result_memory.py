"""Whole results (``TableRead.to_arrow``, ``read_by_row_id``) hand each column to Python with
its own lifetime: a caller that keeps only ``_ROW_ID`` of a result frees the payload columns
when it drops the rest (the seed's backfill keeps ``_ROW_ID`` for its update while the BLOB
payloads it read are no longer needed). Through one Arrow C stream all columns of a batch
share one release, so the payloads would stay allocated until ``_ROW_ID`` goes too. Contents
and errors are the same as the streamed read's."""
from __future__ import annotations

import gc

import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("pic", pa.large_binary())])
ROWS = 4000
PAYLOAD = 2048  # 8 MB of BLOB payloads, ~0.3 MB of names


@pytest.fixture
def warehouse(tmp_path):
    wh = str(tmp_path / "wh")
    t = ours.create_table(wh, "t", SCHEMA, DE)
    for start in (0, ROWS // 2):
        ids = range(start, start + ROWS // 2)
        ours.write(t, pa.table({
            "id": pa.array(ids, pa.int64()),
            "name": [f"name-{i:06d}-" + "x" * 40 for i in ids],
            "pic": pa.array([bytes([i % 251]) * PAYLOAD for i in ids], pa.large_binary())},
            schema=SCHEMA))
    return wh


@pytest.fixture
def table(warehouse):
    return ours.catalog(warehouse).get_table("db.t").copy({"blob-as-descriptor": "false"})


def _allocated_after(fn) -> int:
    """Bytes still allocated from Arrow's default pool (the native module's too) once only
    the `_ROW_ID` column of `fn()`'s result is kept; the column is checked, then dropped."""
    gc.collect()
    before = pa.total_allocated_bytes()
    result = fn()
    assert result.nbytes > ROWS * PAYLOAD
    row_ids = result.column("_ROW_ID")
    del result
    gc.collect()
    held = pa.total_allocated_bytes() - before
    assert sorted(row_ids.to_pylist()) == list(range(ROWS))
    return held


def _scan(table, projection):
    builder = table.new_read_builder().with_projection(projection)
    return builder, builder.new_scan().plan().splits()


def test_to_arrow_column_outlives_the_rest(table):
    builder, splits = _scan(table, ["pic", "name", "_ROW_ID"])
    held = _allocated_after(lambda: builder.new_read().to_arrow(splits))
    assert held < ROWS * 64, f"{held} bytes held by a kept _ROW_ID column"


def test_read_by_row_id_column_outlives_the_rest(warehouse):
    from paimon_rowid.row_id_jobs import read_by_row_id
    ids = pa.table({"_ROW_ID": pa.array(range(ROWS), pa.int64())})
    held = _allocated_after(lambda: read_by_row_id(
        "db.t", ids, {"warehouse": warehouse}, projection=["pic", "name"],
        dynamic_options={"blob-as-descriptor": "false"}))
    assert held < ROWS * 64, f"{held} bytes held by a kept _ROW_ID column"


def test_whole_result_equals_the_stream(table):
    """to_arrow (column by column) and to_arrow_batch_reader (one stream) give the same table,
    also with a predicate that removes rows and for an empty result (typed, no rows)."""
    builder, splits = _scan(table, ["id", "pic", "_ROW_ID"])
    whole = builder.new_read().to_arrow(splits)
    streamed = builder.new_read().to_arrow_batch_reader(splits).read_all()
    assert whole.schema == streamed.schema and whole.equals(streamed)
    assert whole.num_rows == ROWS
    pb = builder.new_predicate_builder()
    for predicate, rows in ((pb.less_than("id", 10), 10), (pb.less_than("id", -1), 0)):
        builder.with_filter(predicate)
        whole = builder.new_read().to_arrow(splits)
        assert whole.schema == streamed.schema and whole.num_rows == rows
        assert whole.equals(builder.new_read().to_arrow_batch_reader(splits).read_all())


def test_whole_result_errors_as_the_stream(table, warehouse):
    """A read that fails part way (a damaged data file) raises the same exception type with
    the same message whether it is read whole or streamed."""
    builder, splits = _scan(table, ["id", "name", "_ROW_ID"])
    victim = sorted(p for p in ours.files(warehouse) if p.endswith(".parquet"))[-1]
    with open(victim, "r+b") as f:
        f.seek(4)
        f.write(b"\xff" * 256)  # the first column chunk's pages
    with pytest.raises(Exception) as streamed:
        builder.new_read().to_arrow_batch_reader(splits).read_all()
    with pytest.raises(Exception) as whole:
        builder.new_read().to_arrow(splits)
    assert isinstance(whole.value, OSError)
    assert type(whole.value) is type(streamed.value)
    assert str(whole.value) == str(streamed.value)
