"""VECTOR (fixed_size_list) columns read back from files of many row groups: each group's
lists are joined and converted to fixed size once, and a filtered read joins its predicate
columns once; NULL and non-NULL rows, filters on the vector and on another column, and row
ranges all give the rows written."""
from __future__ import annotations

import glob
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ours

pytestmark = pytest.mark.native

DIM = 4
VECTOR = pa.list_(pa.float32(), DIM)
SCHEMA = pa.schema([("id", pa.int64()), ("v", VECTOR)])
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
      "file.block-size": "2 kb"}  # row groups of a few dozen rows
ROWS = 3000


def _vector(i):
    return None if i % 3 == 0 else [float(i), i + 0.5, -float(i), 0.25]


@pytest.fixture
def table(tmp_path):
    wh = str(tmp_path / "wh")
    t = ours.create_table(wh, "t", SCHEMA, DE)
    ours.write(t, pa.table({"id": pa.array(range(ROWS), pa.int64()),
                            "v": pa.array([_vector(i) for i in range(ROWS)], VECTOR)},
                           schema=SCHEMA))
    files = glob.glob(os.path.join(wh, "**", "*.parquet"), recursive=True)
    assert len(files) == 1 and pq.ParquetFile(files[0]).metadata.num_row_groups > 10
    return t


def _read(table, predicate=None, ranges=None):
    builder = table.new_read_builder().with_projection(["v", "id", "_ROW_ID"])
    if predicate is not None:
        builder.with_filter(predicate(builder.new_predicate_builder()))
    scan = builder.new_scan()
    if ranges is not None:
        scan.with_row_ranges(ranges)
    result = builder.new_read().to_arrow(scan.plan().splits())
    assert result.schema.field("v").type == VECTOR
    return result.sort_by("id")


def _expected(ids):
    return [_vector(i) for i in ids]


def test_whole_table(table):
    got = _read(table)
    assert got.column("id").to_pylist() == list(range(ROWS))
    assert got.column("v").to_pylist() == _expected(range(ROWS))


@pytest.mark.parametrize("name,predicate,keep", [
    ("v is null", lambda pb: pb.is_null("v"), lambda i: i % 3 == 0),
    ("v is not null", lambda pb: pb.is_not_null("v"), lambda i: i % 3 != 0),
    ("id range", lambda pb: pb.between("id", 700, 2100), lambda i: 700 <= i <= 2100),
    ("all rows", lambda pb: pb.greater_or_equal("id", 0), lambda i: True),
])
def test_filtered(table, name, predicate, keep):
    got = _read(table, predicate)
    ids = [i for i in range(ROWS) if keep(i)]
    assert got.column("id").to_pylist() == ids, name
    assert got.column("v").to_pylist() == _expected(ids), name
    assert got.column("_ROW_ID").to_pylist() == ids, name


def test_row_ranges_with_filter(table):
    from paimon_rowid import Range
    got = _read(table, lambda pb: pb.is_null("v"), [Range(10, 1200), Range(2500, 2600)])
    ids = [i for i in list(range(10, 1201)) + list(range(2500, 2601)) if i % 3 == 0]
    assert got.column("id").to_pylist() == ids
    assert got.column("v").to_pylist() == _expected(ids)


def _resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc")
def test_null_vectors_take_no_memory(tmp_path):
    """A column of NULL embeddings (not computed yet) read back: its fixed-size list keeps 64
    placeholder floats per row, 51 MB here, which must not become resident memory."""
    rows, dim = 200_000, 64
    vector = pa.list_(pa.float32(), dim)
    schema = pa.schema([("id", pa.int64()), ("e", vector)])
    t = ours.create_table(str(tmp_path / "wh"), "t", schema, DE | {"file.block-size": "128 mb"})
    ours.write(t, pa.table({"id": pa.array(range(rows), pa.int64()),
                            "e": pa.nulls(rows, vector)}, schema=schema))
    builder = t.new_read_builder().with_projection(["e"])
    splits = builder.new_scan().plan().splits()
    before = _resident_bytes()
    got = builder.new_read().to_arrow(splits)
    grown = _resident_bytes() - before
    column = got.column("e")
    assert column.null_count == rows and len(column) == rows
    placeholders = sum(chunk.values.nbytes for chunk in column.chunks)
    assert placeholders >= rows * dim * 4
    assert grown < placeholders // 4, (grown, placeholders)
    flat = column.chunk(0).values
    assert flat.null_count == len(flat) and pa.compute.sum(flat.fill_null(0)).as_py() == 0


@pytest.mark.parametrize("start", [8, 13])
def test_sliced_vectors_keep_their_null_rows(tmp_path, start):
    """A VECTOR array that is a slice (offset 8: whole bitmap bytes, 13: not) written with
    NULL rows: each NULL stays on its row, read back by us and by pyarrow (the list's validity
    once started at the slice's parent row 0, moving every NULL and failing our read)."""
    wh = str(tmp_path / "wh")
    t = ours.create_table(wh, "t", SCHEMA, {"row-tracking.enabled": "true",
                                            "data-evolution.enabled": "true"})
    vectors = pa.array([_vector(i) for i in range(200)], VECTOR)
    ours.write(t, pa.table({"id": pa.array(range(start, 200), pa.int64()),
                            "v": vectors.slice(start)}, schema=SCHEMA))
    want = _expected(range(start, 200))
    assert _read(t).column("v").to_pylist() == want
    files = glob.glob(os.path.join(wh, "**", "*.parquet"), recursive=True)
    assert pq.read_table(files[0]).column("v").to_pylist() == want


def test_vectors_of_a_large_row_group_read_in_batches(tmp_path):
    """A row group of 10,000 x 256 floats, one row in 7 NULL (2,195,605 values with the NULL
    rows' levels) is decoded in batches of 2^21 values, 9,576 rows and 424: the rows, their
    NULLs and row ranges across the batches' boundary read back as written."""
    dim, rows = 256, 10_000
    wide = pa.list_(pa.float32(), dim)
    schema = pa.schema([("id", pa.int64()), ("v", wide)])
    wh = str(tmp_path / "wh")
    t = ours.create_table(wh, "t", schema, {"row-tracking.enabled": "true",
                                            "data-evolution.enabled": "true"})
    flat = pa.array([float(i * dim + k) for i in range(rows) for k in range(dim)], pa.float32())
    vectors = pa.FixedSizeListArray.from_arrays(flat, dim, mask=pa.array(
        [i % 7 == 3 for i in range(rows)]))
    ours.write(t, pa.table({"id": pa.array(range(rows), pa.int64()), "v": vectors},
                           schema=schema))
    files = glob.glob(os.path.join(wh, "**", "*.parquet"), recursive=True)
    assert len(files) == 1 and pq.ParquetFile(files[0]).metadata.num_row_groups == 1
    want = vectors.to_pylist()
    for ranges in (None, [(9_000, 9_800)], [(100, 9_999)], [(9_575, 9_576), (9_990, 9_999)]):
        builder = t.new_read_builder().with_projection(["v", "id"])
        scan = builder.new_scan()
        if ranges is not None:
            scan.with_row_ranges(ranges)
        got = builder.new_read().to_arrow(scan.plan().splits())
        ids = got.column("id").to_pylist()
        keep = list(range(rows)) if ranges is None else \
            [i for lo, hi in ranges for i in range(lo, hi + 1)]
        assert ids == keep
        assert got.column("v").to_pylist() == [want[i] for i in keep]
