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
