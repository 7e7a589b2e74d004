"""``merge_into`` inserts take row ids in source order, and join keys are not cast across kinds
(issue 44 §8 and §6; docs/merge-into.md "Key types" and "How it runs").

- An upsert of 1,000 source rows (500 matched, 500 new, shuffled) gives the new rows row ids in
  the source's order: embedded, local, Ray on the driver and Ray by tasks (several source
  blocks, hash-partitioned joins); also when two insert clauses take the rows.
- A string source key for an INT/BIGINT target key is a TypeError naming both types, with
  nothing committed, on every entry point and in ``upsert_by_arrow_with_key``; a narrower
  number (INT for BIGINT) or a whole float still matches.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import ours

pytestmark = pytest.mark.native

OPTIONS = {"data-evolution.enabled": "true", "row-tracking.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64())])
ENGINES = ["embedded", "local", pytest.param("ray-driver", marks=pytest.mark.ray),
           pytest.param("ray-tasks", marks=pytest.mark.ray)]


def _table(wh, ids):
    table = ours.create_table(wh, "t", SCHEMA, dict(OPTIONS))
    ours.write(table, pa.table({"id": pa.array(ids, pa.int64()),
                                "v": pa.array([0] * len(ids), pa.int64())}))
    return table


def _merge(engine, wh, source, request, **kwargs):
    import paimon_rowid as pr
    if engine == "embedded":
        return pr.merge_into("db.t", source, {"warehouse": wh}, **kwargs)
    if engine == "local":
        table = ours.catalog(wh).get_table("db.t")
        builder = table.new_batch_write_builder()
        builder.new_commit().commit(builder.new_update().merge_into(source, **kwargs))
        return None
    ray = request.getfixturevalue("ray_session")
    import paimon_rowid.ray as prr
    if engine == "ray-tasks":
        source = ray.data.from_arrow(source).repartition(4)
    return prr.merge_into("db.t", source, {"warehouse": wh}, num_partitions=3,
                          driver_max_bytes=0 if engine == "ray-tasks" else None, **kwargs)


def _read(wh):
    table = ours.catalog(wh).get_table("db.t")
    builder = table.new_read_builder().with_projection(["id", "v", "_ROW_ID"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits())


def _state(wh):
    snapshot = ours.catalog(wh).get_table("db.t").latest_snapshot()
    return ours.files(wh), None if snapshot is None else snapshot.id


def _upsert_source():
    """1,000 rows: 500 keys of the target (0..999) and 500 new keys (1000..1499), shuffled."""
    rng = np.random.default_rng(8)
    keys = np.concatenate([rng.choice(1000, 500, replace=False), 1000 + np.arange(500)])
    keys = rng.permutation(keys)
    return pa.table({"id": pa.array(keys, pa.int64()),
                     "v": pa.array(np.arange(1, len(keys) + 1), pa.int64())})


@pytest.mark.parametrize("engine", ENGINES)
def test_inserted_rows_take_row_ids_in_source_order(tmp_path, request, engine):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, list(range(1000)))
    before = {r["id"]: r["_ROW_ID"] for r in _read(wh).to_pylist()}
    source = _upsert_source()
    got = _merge(engine, wh, source, request, on=["id"],
                 when_matched=[pr.WhenMatched.update({"v": "s.v"})],
                 when_not_matched=[pr.WhenNotMatched("*")])
    assert got in (None, {"num_matched": 500, "num_inserted": 500, "num_unchanged": 0})
    rows = _read(wh).sort_by("_ROW_ID").to_pylist()
    new = [r for r in rows if r["id"] >= 1000]
    keys = source.column("id").to_pylist()
    assert [r["id"] for r in new] == [k for k in keys if k >= 1000]  # source order
    assert [r["_ROW_ID"] for r in new] == list(range(1000, 1500))
    assert {r["id"]: r["_ROW_ID"] for r in rows if r["id"] < 1000} == before  # unmoved
    values = dict(zip(keys, source.column("v").to_pylist()))
    assert all(r["v"] == values.get(r["id"], 0) for r in rows)


@pytest.mark.parametrize("engine", ["embedded", "local",
                                    pytest.param("ray-tasks", marks=pytest.mark.ray)])
def test_source_order_holds_across_insert_clauses(tmp_path, request, engine):
    """Two insert clauses take alternate rows: row ids still follow the source (pypaimon
    writes the first clause's rows, then the second's, within a batch)."""
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [0])
    keys = np.random.default_rng(3).permutation(np.arange(1, 301))
    source = pa.table({"id": pa.array(keys, pa.int64()), "v": pa.array(keys * 10, pa.int64())})
    got = _merge(engine, wh, source, request, on=["id"],
                 when_not_matched=[pr.WhenNotMatched({"v": "s.v"}, condition="s.id % 2 = 0"),
                                   pr.WhenNotMatched({"v": pr.lit(-1)})])
    assert got in (None, {"num_matched": 0, "num_inserted": 300, "num_unchanged": 0})
    rows = [r for r in _read(wh).sort_by("_ROW_ID").to_pylist() if r["id"] != 0]
    assert [r["id"] for r in rows] == keys.tolist()
    assert [r["v"] for r in rows] == [k * 10 if k % 2 == 0 else -1 for k in keys.tolist()]


# ------------------------------------------------------------------------------ key kinds


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key_type, shown", [(pa.string(), "string"),
                                             (pa.large_string(), "large_string"),
                                             (pa.binary(), "binary")])
def test_a_string_key_is_not_cast_to_a_number_key(tmp_path, request, engine, key_type, shown):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [1, 2, 3])
    before = _state(wh)
    values = [b"1", b"7"] if key_type == pa.binary() else ["1", "7"]
    source = pa.table({"id": pa.array(values, key_type), "v": pa.array([10, 70], pa.int64())})
    with pytest.raises(TypeError) as raised:
        _merge(engine, wh, source, request, on=["id"],
               when_matched=[pr.WhenMatched.update({"v": "s.v"})],
               when_not_matched=[pr.WhenNotMatched("*")])
    assert str(raised.value).startswith(
        f"merge_into key: source column 'id' is {shown} but target column 'id' is int64; ")
    assert _state(wh) == before


@pytest.mark.parametrize("engine", ENGINES)
def test_a_number_key_is_not_cast_to_a_string_key(tmp_path, request, engine):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    table = ours.create_table(wh, "t", pa.schema([("id", pa.string()), ("v", pa.int64())]),
                              dict(OPTIONS))
    ours.write(table, pa.table({"id": ["1", "2"], "v": pa.array([0, 0], pa.int64())}))
    before = _state(wh)
    source = pa.table({"id": pa.array([1, 2], pa.int32()), "v": pa.array([5, 6], pa.int64())})
    with pytest.raises(TypeError, match="source column 'id' is int32 but target column 'id' "
                                        "is string"):
        _merge(engine, wh, source, request, on=["id"],
               when_matched=[pr.WhenMatched.update({"v": "s.v"})])
    assert _state(wh) == before


@pytest.mark.parametrize("engine", ENGINES)
def test_numbers_of_other_widths_still_match(tmp_path, request, engine):
    import paimon_rowid as pr
    wh = str(tmp_path / "wh")
    _table(wh, [1, 2, 3])
    source = pa.table({"id": pa.array([1, 3, 9], pa.int32()), "v": pa.array([10, 30, 90])})
    got = _merge(engine, wh, source, request, on=["id"],
                 when_matched=[pr.WhenMatched.update({"v": "s.v"})],
                 when_not_matched=[pr.WhenNotMatched("*")])
    assert got in (None, {"num_matched": 2, "num_inserted": 1, "num_unchanged": 0})
    floats = pa.table({"id": pa.array([2.0], pa.float64()), "v": pa.array([20])})
    _merge(engine, wh, floats, request, on=["id"],
           when_matched=[pr.WhenMatched.update({"v": "s.v"})])
    assert sorted((r["id"], r["v"]) for r in _read(wh).to_pylist()) == \
        [(1, 10), (2, 20), (3, 30), (9, 90)]


def test_upsert_by_key_refuses_a_key_of_another_kind(tmp_path):
    wh = str(tmp_path / "wh")
    table = _table(wh, [1, 2, 3])
    before = _state(wh)
    update = table.new_batch_write_builder().new_update()
    with pytest.raises(TypeError) as raised:
        update.upsert_by_arrow_with_key(pa.table({"id": ["1", "4"], "v": [10, 40]}), ["id"])
    assert str(raised.value).startswith("upsert_by_arrow_with_key key: source column 'id' is "
                                        "string but target column 'id' is int64; ")
    assert _state(wh) == before
    # an INT key for a BIGINT column matches as before
    builder = table.new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().upsert_by_arrow_with_key(
        pa.table({"id": pa.array([1, 4], pa.int32()), "v": pa.array([10, 40], pa.int64())}),
        ["id"]))
    assert sorted((r["id"], r["v"]) for r in _read(wh).to_pylist()) == \
        [(1, 10), (2, 0), (3, 0), (4, 40)]
