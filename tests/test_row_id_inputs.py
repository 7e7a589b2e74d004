"""Row ids as inputs (issues 44 §6 and 47 §6) and the messages issue 47 found pointing the
wrong way.

Row ids are integers in every row-id entry point: a bool, float, string or decimal id, or an
id column of such a type, is a TypeError naming the value or the type, raised before anything
is written (pypaimon casts them: ``delete_by_row_id([1.5])``, ``([True])`` and ``(["3"])``
deleted rows 1, 1 and 3). ``read_by_row_id`` also takes the ids alone (a list, a pyarrow
Array / ChunkedArray, a numpy integer array), and update sources may be a mapping of columns.
Every refused call is checked to leave the warehouse's files as they were.
"""
# ruff: noqa: F811 - the fixtures wh and path are imported, and tests take them as arguments
from __future__ import annotations

import decimal
import os

import numpy as np
import pyarrow as pa
import pytest

import ours
from test_row_ids_validation import (  # noqa: F401 - wh and path are fixtures
    EMBEDDED,
    RAY,
    RAY_DATASET,
    T,
    _files,
    _read,
    _read_table,
    _refused,
    _update,
    path,
    wh,
)

pytestmark = pytest.mark.native

NOT_INTEGER = "row ids must be integers"

# Bare ids that are not integers, as a read's ``row_ids`` or a delete's argument.
BAD_IDS = {
    "float": [0, 1.5],
    "integral-float": [1.0],
    "bool": [True],
    "numpy-bool-scalar": [np.bool_(True)],
    "str": ["3"],
    "decimal": [decimal.Decimal(2)],
    "numpy-float": np.array([1.0, 2.0]),
    "numpy-bool": np.array([True]),
    "numpy-str": np.array(["3"]),
    "arrow-float": pa.array([1.5]),
    "arrow-string": pa.array(["3"]),
    "arrow-bool": pa.chunked_array([[True]]),
}
# Id columns of a table source that are not integers.
BAD_COLUMNS = {
    "float": pa.array([1.5]),
    "string": pa.array(["7"]),
    "bool": pa.array([True]),
    "decimal": pa.array([decimal.Decimal(7)], pa.decimal128(5, 0)),
}


# -- read_by_row_id -----------------------------------------------------------------------------

@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
@pytest.mark.parametrize("ids", [
    [7, 0, 7], (0, 7), np.array([7, 0], np.int32), np.array([0, 7], np.uint16),
    pa.array([0, 7], pa.int8()), pa.chunked_array([[0], [7]], pa.int64()),
], ids=["list", "tuple", "numpy-int32", "numpy-uint16", "arrow-int8", "arrow-chunked"])
def test_read_takes_the_ids_alone(wh, path, ids):
    got = _read_table(wh, ids, ["id", "v"], path=path)
    assert sorted(got.to_pylist(), key=lambda r: r["_ROW_ID"]) == [
        {"id": 0, "v": 0, "_ROW_ID": 0}, {"id": 7, "v": 70, "_ROW_ID": 7}]


@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
def test_read_takes_ids_alone_under_a_custom_column_and_a_mapping(wh, path):
    got = _read_table(wh, [6], ["v"], path=path, row_id_col="rid")
    assert got.to_pylist() == [{"v": 60, "_ROW_ID": 6}]
    got = _read_table(wh, {"_ROW_ID": np.array([8])}, ["v"], path=path)
    assert got.to_pylist() == [{"v": 80, "_ROW_ID": 8}]


@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
@pytest.mark.parametrize("case", list(BAD_IDS))
def test_read_refuses_ids_that_are_not_integers(wh, path, case):
    error = _refused(wh, lambda: _read(wh, BAD_IDS[case], ["v"], path=path), TypeError,
                     NOT_INTEGER)
    assert "'_ROW_ID'" in str(error)


@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
@pytest.mark.parametrize("case", list(BAD_COLUMNS))
def test_read_refuses_id_columns_that_are_not_integers(wh, path, case):
    source = pa.table({"_ROW_ID": BAD_COLUMNS[case]})
    error = _refused(wh, lambda: _read(wh, source, ["v"], path=path), TypeError, NOT_INTEGER)
    assert f"column '_ROW_ID' is {source.schema.field(0).type}" in str(error)


@pytest.mark.parametrize("path", [RAY_DATASET], indirect=True)
def test_lazy_read_refuses_a_string_id_column_when_consumed(wh, path):
    import ray
    dataset = _read(wh, pa.table({"_ROW_ID": ["7"]}), ["v"], path=path)
    before = _files(wh)
    with pytest.raises(ray.exceptions.RayTaskError, match="TypeError: row ids must be integers"):
        dataset.take_all()
    assert _files(wh) == before


# -- update_by_row_id ---------------------------------------------------------------------------

@pytest.mark.parametrize("path", [EMBEDDED, RAY, RAY_DATASET], indirect=True)
@pytest.mark.parametrize("case", list(BAD_COLUMNS))
def test_update_refuses_id_columns_that_are_not_integers(wh, path, case):
    source = pa.table({"_ROW_ID": BAD_COLUMNS[case], "v": pa.array([1], pa.int32())})
    error = _refused(wh, lambda: _update(wh, source, ["v"], path=path), TypeError, NOT_INTEGER)
    assert f"column '_ROW_ID' is {source.schema.field(0).type}" in str(error)


@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
@pytest.mark.parametrize("ids", [[1.5], [True], ["3"], np.array([7.0])],
                         ids=["float", "bool", "str", "numpy-float"])
def test_update_refuses_mapping_ids_that_are_not_integers(wh, path, ids):
    _refused(wh, lambda: _update(wh, {"_ROW_ID": ids, "v": [1]}, ["v"], path=path), TypeError,
             NOT_INTEGER)


def test_table_update_refuses_string_ids(wh):
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": wh}).get_table(T)
    update = table.new_batch_write_builder().new_update().with_update_type(["v"])
    source = pa.table({"_ROW_ID": ["7"], "v": pa.array([1], pa.int32())})
    _refused(wh, lambda: update.update_by_arrow_with_row_id(source), TypeError,
             "column '_ROW_ID' is string")


@pytest.mark.parametrize("path", [EMBEDDED, RAY], indirect=True)
def test_update_takes_a_mapping_with_numpy_ids(wh, path):
    """Last in the module: it changes row 9 of the shared table (no other test reads it)."""
    value = 900 if path == EMBEDDED else 901
    got = _update(wh, {"_ROW_ID": np.array([9], np.int32), "v": [value]}, ["v"], path=path)
    assert got == {"num_updated": 1}
    assert _read_table(wh, [9], ["v"]).to_pylist() == [{"v": value, "_ROW_ID": 9}]


# -- delete_by_row_id ---------------------------------------------------------------------------

@pytest.fixture
def dv_table(warehouse):
    table = ours.create_table(warehouse, "d", pa.schema([("id", pa.int64())]), {
        "row-tracking.enabled": "true", "data-evolution.enabled": "true",
        "deletion-vectors.enabled": "true"})
    ours.write(table, pa.table({"id": pa.array(range(6), pa.int64())}))
    return table


def _live_ids(table):
    read = table.new_read_builder()
    return sorted(read.new_read().to_arrow(read.new_scan().plan().splits())
                  .column("id").to_pylist())


@pytest.mark.parametrize("case", list(BAD_IDS))
def test_delete_refuses_ids_that_are_not_integers(warehouse, dv_table, case):
    before, snapshot = ours.files(warehouse), dv_table.latest_snapshot().id
    update = dv_table.new_batch_write_builder().new_update()
    with pytest.raises(TypeError, match=NOT_INTEGER):
        update.delete_by_row_id(BAD_IDS[case])
    assert ours.files(warehouse) == before
    assert dv_table.latest_snapshot().id == snapshot and _live_ids(dv_table) == list(range(6))


def test_delete_takes_lists_numpy_and_arrow_ids(dv_table):
    for ids in ([0], np.array([1], np.uint8), pa.chunked_array([[2]], pa.int16())):
        builder = dv_table.new_batch_write_builder()
        builder.new_commit().commit(builder.new_update().delete_by_row_id(ids))
    assert _live_ids(dv_table) == [3, 4, 5]


def test_delete_refuses_a_table_without_either_option_naming_both(warehouse):
    table = ours.create_table(warehouse, "plain", pa.schema([("id", pa.int64())]), {})
    with pytest.raises(ValueError, match="'data-evolution.enabled' = 'true' and "
                                         "'row-tracking.enabled' = 'true'"):
        table.new_batch_write_builder().new_update().delete_by_row_id([0])


# -- the other wrong-way messages of issue 47 ---------------------------------------------------

def test_list_databases_of_a_missing_local_warehouse_raises(tmp_path):
    """pypaimon lists nothing (a typo in the path looks like an empty lake); we raise."""
    from paimon_rowid import CatalogFactory
    missing = tmp_path / "no-such-warehouse"
    catalog = CatalogFactory.create({"warehouse": str(missing)})
    with pytest.raises(OSError, match="does not exist or is not a directory"):
        catalog.list_databases()
    assert not missing.exists()
    catalog.create_database("db", False)  # creating it still works, and then it lists
    assert catalog.list_databases() == ["db"]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(OSError, match="is not a directory"):
        CatalogFactory.create({"warehouse": str(a_file)}).list_databases()


@pytest.mark.parametrize("metastore", ["jdbc", "hive"])
def test_unknown_catalog_identifier_lists_the_known_ones(tmp_path, metastore):
    from paimon_rowid import CatalogFactory
    with pytest.raises(ValueError) as info:
        CatalogFactory.create({"warehouse": str(tmp_path), "metastore": metastore})
    assert str(info.value) == (
        f"Unknown catalog identifier: {metastore}. Available types: ['filesystem', 'rest']")
    assert os.listdir(tmp_path) == []


def test_bucket_join_names_a_projected_column_the_table_lacks(warehouse):
    from paimon_rowid import bucket_join
    bucketed = {"bucket": "2", "bucket-key": "k"}
    ours.create_table(warehouse, "l", pa.schema([("k", pa.int64()), ("a", pa.string())]),
                      bucketed)
    ours.create_table(warehouse, "r", pa.schema([("b", pa.int32()), ("k", pa.int64())]),
                      bucketed)
    with pytest.raises(ValueError) as info:  # "a" is the left's: not a shared column
        bucket_join("db.l", "db.r", {"warehouse": warehouse}, on="k",
                    right_projection=["k", "a"])
    assert str(info.value) == ("bucket_join projection of db.r names columns ['a'] that db.r "
                               "does not have; its columns: ['b', 'k'].")


def test_backfill_error_has_no_double_period(warehouse):
    from paimon_rowid import BackfillError, backfill
    table = ours.create_table(warehouse, "bf", pa.schema([("x", pa.int64()), ("y", pa.int64())]),
                              {"row-tracking.enabled": "true", "data-evolution.enabled": "true"})
    ours.write(table, pa.table({"x": pa.array([1, 2], pa.int64()),
                                "y": pa.array([None, None], pa.int64())}))

    def fails(batch):
        raise ValueError("the model is not loaded.")

    with pytest.raises(BackfillError) as info:
        backfill("db.bf", {"warehouse": warehouse}, column="y", fn=fails, input_columns=["x"],
                 progress=False)
    assert "ValueError: the model is not loaded. 0 batch commit(s)" in str(info.value)
    assert ".." not in str(info.value).replace("0..1", "")
