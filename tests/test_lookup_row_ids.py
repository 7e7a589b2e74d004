"""``lookup_row_ids`` (docs/global-index.md, "Key lookup"): key -> row id through a btree
global index where it covers rows, a pruned scan elsewhere. Every lookup is compared with the
truth from a full read of ``(key, _ROW_ID)``, with and without the index; deleted rows are
never returned; under ``global-index.column-update-action=IGNORE`` the (stale) index is not
trusted; the result feeds ``read_by_row_id`` and ``update_by_row_id``; error paths commit
nothing and leave no file. The Ray path returns the same rows.
"""
from __future__ import annotations

import random
from typing import Any, Dict, List, Tuple

import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
DV = {**DE, "deletion-vectors.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("dt", pa.string())])
ID = "db.t"


def _rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({"id": pa.array([i % 250 for i in ids], pa.int64()),  # duplicates
                     "name": [None if i % 13 == 5 else f"k{i % 97:03d}" for i in ids],
                     "dt": ["a" if i % 3 else "b" for i in ids]}, schema=SCHEMA)


def _setup(warehouse: str, options: Dict[str, str] = DE) -> Any:
    table = ours.create_table(warehouse, "t", SCHEMA, dict(options), partition_keys=["dt"])
    for start in range(0, 600, 200):
        ours.write(table, _rows(start, 200))
    return ours.catalog(warehouse).get_table(ID)


def _truth(warehouse: str, column: str, keys: List[Any]) -> List[Tuple[Any, int]]:
    table = ours.catalog(warehouse).get_table(ID).copy({"global-index.enabled": "false"})
    rb = table.new_read_builder().with_projection([column, "_ROW_ID"])
    data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    wanted = {k for k in keys if k is not None}
    return sorted((k, r) for k, r in zip(data.column(column).to_pylist(),
                                         data.column("_ROW_ID").to_pylist()) if k in wanted)


def _pairs(result: pa.Table, column: str) -> List[Tuple[Any, int]]:
    assert result.column_names == [column, "_ROW_ID"]
    ids = result.column("_ROW_ID").to_pylist()
    assert ids == sorted(ids)
    return sorted(zip(result.column(column).to_pylist(), ids))


def _lookup(warehouse: str, keys: Any, column: str, **kwargs: Any):
    from paimon_rowid.jobs.key_lookup import key_array, lookup_on, prepare
    table, _snapshot, key_type = prepare(ID, column, {"warehouse": warehouse},
                                         kwargs.get("dynamic_options"))
    return lookup_on(table, key_array(keys, column, key_type), column)


def test_lookup_through_the_index_equals_the_truth(warehouse):
    import paimon_rowid
    table = _setup(warehouse)
    assert table.create_global_index("name", options={"sorted-index.records-per-file": "150"}) > 1
    assert table.create_global_index("id", partitions=[{"dt": "a"}]) >= 1  # "b" not covered
    ours.write(table, _rows(600, 120))  # appended after the builds: scanned
    options = {"warehouse": warehouse}
    rng = random.Random(11)
    cases = [("name", ["k001", "k050", "absent", None, "k001"]), ("id", [0, 7, 249, 250, -3]),
             ("name", []), ("id", list(range(250)))]
    for _ in range(12):
        column = rng.choice(["name", "id"])
        if column == "name":
            keys: List[Any] = [f"k{rng.randrange(110):03d}" for _ in range(rng.randrange(1, 40))]
        else:
            keys = [rng.randrange(-5, 260) for _ in range(rng.randrange(1, 40))]
        cases.append((column, keys))
    for column, keys in cases:
        truth = _truth(warehouse, column, keys)
        result = paimon_rowid.lookup_row_ids(ID, keys, column, options)
        assert _pairs(result, column) == truth, (column, keys)
        unindexed = paimon_rowid.lookup_row_ids(ID, keys, column, options,
                                                dynamic_options={"global-index.enabled": "false"})
        assert _pairs(unindexed, column) == truth
        _, info = _lookup(warehouse, keys, column)
        if any(k is not None for k in keys):
            assert info["index_used"], info
            assert info["scanned_ranges"] >= 1  # the appended rows (and partition "b" for id)
            assert info["index_rows"] + info["scanned_rows"] == len(truth)
    _, info = _lookup(warehouse, ["k001"], "name",
                      dynamic_options={"global-index.enabled": "false"})
    assert not info["index_used"] and info["scanned_ranges"] == -1
    # Keys in other forms: a pyarrow Array of another integer type, a table carrying the column.
    keys32 = pa.array([3, 4], pa.int32())
    assert _pairs(paimon_rowid.lookup_row_ids(ID, keys32, "id", options), "id") == \
        _truth(warehouse, "id", [3, 4])
    incoming = pa.table({"name": ["k002", "k003"], "other": [1, 2]})
    assert _pairs(paimon_rowid.lookup_row_ids(ID, incoming, "name", options), "name") == \
        _truth(warehouse, "name", ["k002", "k003"])


def test_time_travel_and_an_empty_table(warehouse):
    import paimon_rowid
    table = ours.create_table(warehouse, "t", SCHEMA, dict(DE), partition_keys=["dt"])
    empty = paimon_rowid.lookup_row_ids(ID, ["k001"], "name", {"warehouse": warehouse})
    assert empty.num_rows == 0 and empty.column_names == ["name", "_ROW_ID"]
    ours.write(table, _rows(0, 100))
    table = ours.catalog(warehouse).get_table(ID)
    table.create_global_index("name")
    first = table.latest_snapshot().id
    ours.write(table, _rows(100, 100))
    now = paimon_rowid.lookup_row_ids(ID, ["k001"], "name", {"warehouse": warehouse})
    then = paimon_rowid.lookup_row_ids(ID, ["k001"], "name", {"warehouse": warehouse},
                                       dynamic_options={"scan.snapshot-id": str(first)})
    assert then.num_rows < now.num_rows
    assert set(then.column("_ROW_ID").to_pylist()) < set(now.column("_ROW_ID").to_pylist())
    assert max(then.column("_ROW_ID").to_pylist()) < 100


def test_deleted_rows_are_never_returned(warehouse):
    import paimon_rowid
    table = _setup(warehouse, DV)
    table.create_global_index("name")
    keys = ["k010", "k020"]
    truth = _truth(warehouse, "name", keys)
    victims = [r for _, r in truth[::2]]
    builder = table.new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().delete_by_row_id(victims))
    after = _truth(warehouse, "name", keys)
    assert len(after) == len(truth) - len(victims)
    result = paimon_rowid.lookup_row_ids(ID, keys, "name", {"warehouse": warehouse})
    assert _pairs(result, "name") == after
    _, info = _lookup(warehouse, keys, "name")
    assert info["index_used"] and info["index_rows"] == len(after)


def test_a_stale_index_is_not_trusted_under_ignore(warehouse):
    import paimon_rowid
    from paimon_rowid.schema.schema_change import SchemaChange
    options = {"warehouse": warehouse}
    table = _setup(warehouse)
    table.create_global_index("name")
    ours.catalog(warehouse).alter_table(ID, [SchemaChange.set_option(
        "global-index.column-update-action", "IGNORE")], False)
    row = _truth(warehouse, "name", ["k004"])[0][1]
    paimon_rowid.update_by_row_id(ID, pa.table({"_ROW_ID": pa.array([row], pa.int64()),
                                                "name": ["renamed"]}), options,
                                  update_cols=["name"])
    found = paimon_rowid.lookup_row_ids(ID, ["renamed", "k004"], "name", options)
    assert _pairs(found, "name") == _truth(warehouse, "name", ["renamed", "k004"])
    assert ("renamed", row) in _pairs(found, "name")
    assert ("k004", row) not in _pairs(found, "name")
    _, info = _lookup(warehouse, ["renamed"], "name")
    assert not info["index_used"]


def test_the_result_feeds_read_and_update_by_row_id(warehouse):
    import paimon_rowid
    options = {"warehouse": warehouse}
    table = _setup(warehouse)
    table.create_global_index("name")
    located = paimon_rowid.lookup_row_ids(ID, ["k030", "k031"], "name", options)
    read = paimon_rowid.read_by_row_id(ID, located, options, projection=["id"],
                                       row_id_col="_ROW_ID")
    assert sorted(read.column("_ROW_ID").to_pylist()) == located.column("_ROW_ID").to_pylist()
    source = pa.table({"_ROW_ID": located.column("_ROW_ID"),
                       "id": pa.array([-1] * located.num_rows, pa.int64())})
    assert paimon_rowid.update_by_row_id(ID, source, options, update_cols=["id"]) == \
        {"num_updated": located.num_rows}
    assert {k for k, _ in _truth(warehouse, "id", [-1])} == {-1}
    assert len(_truth(warehouse, "id", [-1])) == located.num_rows


def test_errors_commit_nothing(warehouse):
    import paimon_rowid
    options = {"warehouse": warehouse}
    table = _setup(warehouse)
    table.create_global_index("name")
    plain = ours.create_table(warehouse, "plain", SCHEMA, {})
    ours.write(plain, _rows(0, 10))
    snapshot = ours.catalog(warehouse).get_table(ID).latest_snapshot().id
    before = ours.files(warehouse)
    with pytest.raises(ValueError, match="not a column"):
        paimon_rowid.lookup_row_ids(ID, ["k001"], "nope", options)
    with pytest.raises(ValueError, match="not a column"):
        paimon_rowid.lookup_row_ids(ID, [1], "_ROW_ID", options)
    with pytest.raises(ValueError, match="cannot be values of column 'id'"):
        paimon_rowid.lookup_row_ids(ID, ["x"], "id", options)
    with pytest.raises(ValueError, match="missing the key column"):
        paimon_rowid.lookup_row_ids(ID, pa.table({"other": [1]}), "id", options)
    with pytest.raises(TypeError, match="keys must be"):
        paimon_rowid.lookup_row_ids(ID, 5, "id", options)
    with pytest.raises(TypeError, match="keys must be"):
        paimon_rowid.lookup_row_ids(ID, "k001", "name", options)
    with pytest.raises(ValueError, match="data-evolution"):
        paimon_rowid.lookup_row_ids("db.plain", [1], "id", options)
    with pytest.raises(ValueError, match="dynamic_options"):
        paimon_rowid.lookup_row_ids(ID, [1], "id", options,
                                    dynamic_options={"data-evolution.enabled": "false"})
    from paimon_rowid import TableNotExistException
    with pytest.raises(TableNotExistException):
        paimon_rowid.lookup_row_ids("db.missing", [1], "id", options)
    assert ours.catalog(warehouse).get_table(ID).latest_snapshot().id == snapshot
    assert ours.files(warehouse) == before


def test_ray_lookup_returns_the_same_rows(ray_session, warehouse):
    import paimon_rowid
    from paimon_rowid import ray as pray
    options = {"warehouse": warehouse}
    table = _setup(warehouse)
    table.create_global_index("name")
    ours.write(table, _rows(600, 50))
    keys = [f"k{i:03d}" for i in range(0, 100, 3)]
    expected = _pairs(paimon_rowid.lookup_row_ids(ID, keys, "name", options), "name")
    assert expected == _truth(warehouse, "name", keys)
    local = pray.lookup_row_ids(ID, keys, "name", options, num_partitions=3)
    assert sorted(_pairs_any(local, "name")) == expected
    dataset = ray_session.data.from_arrow(pa.table({"name": keys, "extra": list(range(len(keys)))}))
    assert sorted(_pairs_any(pray.lookup_row_ids(ID, dataset, "name", options), "name")) == \
        expected
    with pytest.raises(ValueError, match="not a column"):
        pray.lookup_row_ids(ID, keys, "nope", options)
    with pytest.raises(ValueError, match="cannot be values"):
        pray.lookup_row_ids(ID, ["x"], "id", options)


def _pairs_any(dataset: Any, column: str) -> List[Tuple[Any, int]]:
    table = pa.concat_tables(list(dataset.iter_batches(batch_format="pyarrow")))
    return list(zip(table.column(column).to_pylist(), table.column("_ROW_ID").to_pylist()))
