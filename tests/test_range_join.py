"""``paimon_rowid.range_join`` (embedded): pypaimon 2.1.0's contract (reference memo §4).

Tables are written by our writer (value stats: bounds from stats) and by pypaimon (no value
stats: bounds from Parquet footers). Results must equal, as multisets, the pyarrow join of the
two full tables, for every ``num_ranges``; every validation keeps pypaimon's type and words.
"""
from __future__ import annotations

import datetime
import decimal

import pyarrow as pa
import pytest

from ours import create_table, write

pytestmark = pytest.mark.native

APPEND = {"bucket": "-1"}
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _opts(warehouse):
    return {"warehouse": str(warehouse)}


def _rows(table: pa.Table):
    """The rows as a sorted list of tuples (a multiset comparison), column order kept."""
    cols = [table[name].to_pylist() for name in table.column_names]
    return sorted(zip(*cols), key=repr) if cols else []


def _full_join(warehouse, left, right, lkeys, rkeys, lproj=None, rproj=None):
    from paimon_rowid import CatalogFactory
    cat = CatalogFactory.create(_opts(warehouse))

    def read(name, proj):
        t = cat.get_table(name)
        rb = t.new_read_builder()
        if proj is not None:
            rb = rb.with_projection(proj)
        return rb.new_read().to_arrow(rb.new_scan().plan().splits())

    return read(left, lproj).join(read(right, rproj), keys=lkeys, right_keys=rkeys,
                                  join_type="inner")


def _left_data(start, count, step=1):
    ks = list(range(start, start + count * step, step))
    return pa.table({"k": pa.array(ks, pa.int64()), "a": [f"a{k}" for k in ks]})


def _right_data(start, count, step=1):
    ks = list(range(start, start + count * step, step))
    return pa.table({"k": pa.array(ks, pa.int64()), "b": [k * 0.5 for k in ks]})


@pytest.fixture
def clustered(warehouse):
    """db.l and db.r (ours), four commits each with disjoint, increasing key ranges; a few
    duplicate keys on the right (fan-out)."""
    left = create_table(warehouse, "l", _left_data(0, 1).schema, APPEND)
    right = create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    for i in range(4):
        write(left, _left_data(i * 100, 100))
        write(right, _right_data(i * 100 + 50, 50, step=2))
    write(right, _right_data(60, 10))  # duplicates of keys 60..69 in a file of its own
    return warehouse


def test_matches_full_join_for_every_num_ranges(clustered):
    from paimon_rowid import range_join
    expected = _rows(_full_join(clustered, "db.l", "db.r", ["k"], ["k"]))
    assert expected  # the fixture overlaps
    for n in (None, 1, 2, 3, 5, 8, 512, 10_000):
        out = range_join("db.l", "db.r", _opts(clustered), on="k", num_ranges=n)
        assert isinstance(out, pa.Table)
        assert out.column_names == ["k", "a", "b"]
        assert _rows(out) == expected, n


def test_plan_fans_out_and_uses_value_stats(clustered):
    from paimon_rowid.range_join import _plan
    plan = _plan("db.l", "db.r", _opts(clustered), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    # One split per file (not packed), each bounded by our writer's value stats.
    assert len(plan.left.splits) == 4 and len(plan.right.splits) == 5
    bounds = sorted((lo.as_py(), hi.as_py())
                    for lo, hi in plan.left.native_side.bounds())
    assert bounds == [(0, 99), (100, 199), (200, 299), (300, 399)]
    assert len(plan.tasks) > 1  # small tables still fan out (pypaimon: one task)
    for _, _, li, ri in plan.tasks:
        assert li and ri
    # Ranges are half-open and strictly increasing; the last one is unbounded above.
    ends = [(None if lo is None else lo.as_py(), None if hi is None else hi.as_py())
            for lo, hi, _, _ in plan.tasks]
    assert ends[-1][1] is None
    for (lo, hi) in ends[:-1]:
        assert hi is not None and (lo is None or lo < hi)
    for (_, hi), (lo, _) in zip(ends, ends[1:]):
        assert lo is not None and hi <= lo


def test_pypaimon_tables_use_footers(warehouse, oracle):
    """pypaimon writes no value stats: the footers bound its files."""
    from paimon_rowid import range_join
    from paimon_rowid.range_join import _plan
    schema_l = _left_data(0, 1).schema
    schema_r = pa.schema([("rk", pa.int64()), ("b", pa.float64())])
    oracle.create_table(warehouse, "db.pl", schema_l, options=dict(APPEND))
    oracle.create_table(warehouse, "db.pr", schema_r, options=dict(APPEND))
    for i in range(3):
        oracle.write(warehouse, "db.pl", _left_data(i * 10, 10))
        r = _right_data(i * 10 + 5, 10)
        oracle.write(warehouse, "db.pr", pa.table({"rk": r["k"], "b": r["b"]}))
    plan = _plan("db.pl", "db.pr", _opts(warehouse), on=None, left_on="k", right_on="rk",
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    bounds = sorted((lo.as_py(), hi.as_py()) for lo, hi in plan.left.native_side.bounds())
    assert bounds == [(0, 9), (10, 19), (20, 29)]
    expected = _rows(_full_join(warehouse, "db.pl", "db.pr", ["k"], ["rk"]))
    for n in (None, 1, 2, 4):
        out = range_join("db.pl", "db.pr", _opts(warehouse), left_on="k", right_on="rk",
                         num_ranges=n)
        assert out.column_names == ["k", "a", "b"]  # the right key is dropped
        assert _rows(out) == expected


@pytest.mark.parametrize("arrow_type,make", [
    (pa.string(), lambda i: f"key{i:05d}"),
    (pa.date32(), lambda i: datetime.date(2020, 1, 1) + datetime.timedelta(days=i)),
    (pa.timestamp("us"), lambda i: datetime.datetime(2024, 1, 1) + datetime.timedelta(
        seconds=i * 7, microseconds=i)),
    (pa.decimal128(12, 3), lambda i: decimal.Decimal(i * 1001 - 30000) / 1000),
])
def test_pypaimon_footers_for_key_types(warehouse, oracle, arrow_type, make):
    from paimon_rowid import range_join
    from paimon_rowid.range_join import _plan
    ls = pa.schema([("k", arrow_type), ("a", pa.int64())])
    rs = pa.schema([("k", arrow_type), ("b", pa.int64())])
    oracle.create_table(warehouse, "db.l", ls, options=dict(APPEND))
    oracle.create_table(warehouse, "db.r", rs, options=dict(APPEND))
    for c in range(3):
        ids = list(range(c * 20, c * 20 + 20))
        oracle.write(warehouse, "db.l", pa.table(
            {"k": pa.array([make(i) for i in ids], arrow_type), "a": ids}, schema=ls))
        oracle.write(warehouse, "db.r", pa.table(
            {"k": pa.array([make(i) for i in ids[::2]], arrow_type), "b": ids[::2]}, schema=rs))
    plan = _plan("db.l", "db.r", _opts(warehouse), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    bounds = plan.left.native_side.bounds() + plan.right.native_side.bounds()
    assert len(bounds) == 6 and all(lo is not None for lo, _ in bounds)
    expected = _rows(_full_join(warehouse, "db.l", "db.r", ["k"], ["k"]))
    assert len(expected) == 30
    for n in (None, 1, 4):
        assert _rows(range_join("db.l", "db.r", _opts(warehouse), on="k", num_ranges=n)) \
            == expected


def test_pypaimon_data_evolution_update(warehouse, oracle):
    """A pypaimon partial-column update adds a file without the key: its group is unknown,
    and the join still sees the updated values."""
    from paimon_rowid import range_join
    from paimon_rowid.range_join import _plan
    schema = _left_data(0, 1).schema
    oracle.create_table(warehouse, "db.l", schema, options=dict(DE))
    oracle.write(warehouse, "db.l", _left_data(0, 20))
    oracle.write(warehouse, "db.l", _left_data(20, 20))
    oracle.update_by_row_id(warehouse, "db.l", pa.table(
        {"_ROW_ID": pa.array([25, 26], pa.int64()), "a": ["u25", "u26"]}), ["a"])
    create = create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    write(create, _right_data(0, 40))
    plan = _plan("db.l", "db.r", _opts(warehouse), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    bounds = [(None if lo is None else lo.as_py(), None if hi is None else hi.as_py())
              for lo, hi in plan.left.native_side.bounds()]
    assert sorted(bounds, key=repr) == sorted([(0, 19), (None, None)], key=repr)
    expected = _rows(_full_join(warehouse, "db.l", "db.r", ["k"], ["k"]))
    assert {r[1] for r in expected} >= {"u25", "u26"}
    for n in (None, 1, 2, 3):
        assert _rows(range_join("db.l", "db.r", _opts(warehouse), on="k", num_ranges=n)) \
            == expected


def test_ours_joined_with_pypaimon(clustered, oracle):
    from paimon_rowid import range_join
    oracle.create_table(clustered, "db.p", pa.schema([("k", pa.int64()), ("c", pa.string())]),
                        options=dict(APPEND))
    oracle.write(clustered, "db.p", pa.table({"k": pa.array([5, 150, 150, 399, 1000], pa.int64()),
                                              "c": ["x", "y", "z", "w", "v"]}))
    expected = _rows(_full_join(clustered, "db.l", "db.p", ["k"], ["k"]))
    assert len(expected) == 4
    for n in (None, 1, 3):
        out = range_join("db.l", "db.p", _opts(clustered), on=["k"], num_ranges=n)
        assert _rows(out) == expected


@pytest.mark.parametrize("arrow_type,make", [
    (pa.string(), lambda i: f"key{i:05d}"),
    (pa.binary(), lambda i: f"key{i:05d}".encode()),
    (pa.int32(), lambda i: i * 3 - 500),
    (pa.date32(), lambda i: datetime.date(2020, 1, 1) + datetime.timedelta(days=i)),
    (pa.timestamp("us"), lambda i: datetime.datetime(2024, 1, 1) + datetime.timedelta(
        seconds=i * 7, microseconds=i)),
    (pa.timestamp("ms"), lambda i: datetime.datetime(2024, 1, 1) + datetime.timedelta(
        milliseconds=i * 13)),
    (pa.decimal128(12, 3), lambda i: decimal.Decimal(i * 1001 - 30000) / 1000),
])
def test_key_types(warehouse, arrow_type, make):
    from paimon_rowid import range_join
    from paimon_rowid.range_join import _plan
    ls = pa.schema([("k", arrow_type), ("a", pa.int64())])
    rs = pa.schema([("k", arrow_type), ("b", pa.int64())])
    left = create_table(warehouse, "l", ls, APPEND)
    right = create_table(warehouse, "r", rs, APPEND)
    for c in range(3):
        ids = list(range(c * 40, c * 40 + 40))
        write(left, pa.table({"k": pa.array([make(i) for i in ids], arrow_type), "a": ids},
                             schema=ls))
        rids = ids[::3] + [None]
        write(right, pa.table({"k": pa.array([None if i is None else make(i) for i in rids],
                                             arrow_type),
                               "b": [0 if i is None else i for i in rids]}, schema=rs))
    plan = _plan("db.l", "db.r", _opts(warehouse), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    assert all(lo is not None for lo, _ in plan.left.native_side.bounds())
    expected = _rows(_full_join(warehouse, "db.l", "db.r", ["k"], ["k"]))
    assert len(expected) == 42
    for n in (None, 1, 2, 7):
        assert _rows(range_join("db.l", "db.r", _opts(warehouse), on="k", num_ranges=n)) \
            == expected


def test_null_keys_never_match_and_all_null_file_is_unknown(warehouse):
    from paimon_rowid import range_join
    from paimon_rowid.range_join import _plan
    left = create_table(warehouse, "l", _left_data(0, 1).schema, APPEND)
    right = create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    write(left, _left_data(0, 20))
    write(left, pa.table({"k": pa.array([None, None], pa.int64()), "a": ["n1", "n2"]}))
    write(right, _right_data(10, 20))
    write(right, pa.table({"k": pa.array([None], pa.int64()), "b": [1.0]}))
    plan = _plan("db.l", "db.r", _opts(warehouse), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    bounds = plan.left.native_side.bounds()
    assert sum(1 for lo, hi in bounds if lo is None and hi is None) == 1
    expected = _rows(_full_join(warehouse, "db.l", "db.r", ["k"], ["k"]))
    assert len(expected) == 10
    for n in (None, 1, 2, 3):
        assert _rows(range_join("db.l", "db.r", _opts(warehouse), on="k", num_ranges=n)) \
            == expected


def test_multi_key_projection_and_partitions(warehouse):
    from paimon_rowid import range_join
    ls = pa.schema([("k", pa.int64()), ("k2", pa.string()), ("p", pa.string()),
                    ("a", pa.int64())])
    rs = pa.schema([("rk", pa.int64()), ("rk2", pa.string()), ("q", pa.string()),
                    ("b", pa.int64()), ("a", pa.int64())])
    left = create_table(warehouse, "l", ls, APPEND, partition_keys=["p"])
    right = create_table(warehouse, "r", rs, APPEND, partition_keys=["q"])
    ks = list(range(60))
    write(left, pa.table({"k": ks, "k2": [str(k % 3) for k in ks],
                          "p": ["x" if k % 2 else "y" for k in ks], "a": ks}, schema=ls))
    write(right, pa.table({"rk": ks, "rk2": [str(k % 2) for k in ks],
                           "q": ["u" if k < 30 else None for k in ks], "b": ks,
                           "a": ks}, schema=rs))
    out = range_join("db.l", "db.r", _opts(warehouse), left_on=["k", "k2"],
                     right_on=["rk", "rk2"], right_projection=["rk", "rk2", "b"],
                     left_partitions={"p": "x"}, right_partitions={"q": None})
    assert out.column_names == ["k", "k2", "p", "a", "b"]
    expected = [(k, str(k % 3), "x", k, k) for k in ks
                if k % 2 and k >= 30 and str(k % 3) == str(k % 2)]
    assert _rows(out) == sorted(expected, key=repr)
    out = range_join("db.l", "db.r", _opts(warehouse), left_on="k", right_on="rk",
                     left_projection=["a", "k"], right_projection=["b", "rk"], num_ranges=3)
    assert out.column_names == ["a", "k", "b"]
    assert _rows(out) == sorted([(k, k, k) for k in ks], key=repr)


def test_data_evolution_partial_files_are_unknown_but_correct(warehouse):
    from paimon_rowid import range_join, update_by_row_id
    from paimon_rowid.range_join import _plan
    left = create_table(warehouse, "l", _left_data(0, 1).schema, DE)
    right = create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    write(left, _left_data(0, 30))
    write(left, _left_data(30, 30))
    write(right, _right_data(0, 60, step=1))
    update_by_row_id("db.l", pa.table({"_ROW_ID": pa.array([1, 2], pa.int64()),
                                       "a": ["u1", "u2"]}), _opts(warehouse), update_cols=["a"])
    plan = _plan("db.l", "db.r", _opts(warehouse), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    bounds = plan.left.native_side.bounds()
    assert (None, None) in bounds  # the group with a partial file (no key column)
    assert any(lo is not None for lo, _ in bounds)
    expected = _rows(_full_join(warehouse, "db.l", "db.r", ["k"], ["k"]))
    assert ("u1" in {r[1] for r in expected})
    for n in (None, 1, 2):
        assert _rows(range_join("db.l", "db.r", _opts(warehouse), on="k", num_ranges=n)) \
            == expected


def test_empty_sides_give_a_typed_empty_table(warehouse):
    from paimon_rowid import range_join
    left = create_table(warehouse, "l", _left_data(0, 1).schema, APPEND)
    create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    out = range_join("db.l", "db.r", _opts(warehouse), on="k")
    assert out.num_rows == 0 and out.column_names == ["k", "a", "b"]
    assert out.schema.field("k").type == pa.int64()
    # num_ranges is validated only when both sides are non-empty (pypaimon).
    write(left, _left_data(0, 10))
    assert range_join("db.l", "db.r", _opts(warehouse), on="k", num_ranges=0).num_rows == 0
    # Disjoint key ranges: every range is one-sided, so no task; still typed.
    write(create_table(warehouse, "r2", _right_data(0, 1).schema, APPEND), _right_data(100, 5))
    out = range_join("db.l", "db.r2", _opts(warehouse), on="k", num_ranges=4)
    assert out.num_rows == 0 and out.column_names == ["k", "a", "b"]
    # True passes the num_ranges check as 1.
    out = range_join("db.l", "db.r2", _opts(warehouse), on="k", num_ranges=True)
    assert out.num_rows == 0


def test_pins_latest_snapshot_ignoring_time_travel(clustered):
    from paimon_rowid import range_join
    opts = dict(_opts(clustered))
    expected = _rows(_full_join(clustered, "db.l", "db.r", ["k"], ["k"]))
    # A catalog-level time-travel option is dropped: each side reads its latest snapshot.
    opts["scan.snapshot-id"] = "1"
    assert _rows(range_join("db.l", "db.r", opts, on="k")) == expected


# --------------------------------------------------------------------------- validations

@pytest.fixture
def typed(warehouse):
    """Tables with many key types for the validation checks."""
    schema = pa.schema([("k", pa.int64()), ("s", pa.string()), ("f", pa.float64()),
                        ("ltz", pa.timestamp("us", tz="UTC")), ("arr", pa.list_(pa.int32())),
                        ("i", pa.int32()), ("p", pa.string())])
    create_table(warehouse, "l", schema, APPEND, partition_keys=["p"])
    rschema = pa.schema([("rk", pa.int64()), ("k", pa.int64()), ("f", pa.float64()),
                         ("ltz", pa.timestamp("us", tz="UTC")), ("arr", pa.list_(pa.int32())),
                         ("i", pa.int64()), ("x", pa.string())])
    create_table(warehouse, "r", rschema, APPEND)
    return warehouse


@pytest.mark.parametrize("kwargs,message", [
    (dict(), "range_join requires exactly one of on= or left_on=/right_on=."),
    (dict(on="k", left_on="k"), "range_join requires exactly one of on= or left_on=/right_on=."),
    (dict(left_on="k"), "range_join requires both left_on= and right_on=."),
    (dict(right_on="k"), "range_join requires both left_on= and right_on=."),
    (dict(on=[]), "range_join join keys must pair up non-empty; got left_on=[], right_on=[]."),
    (dict(left_on=["k", "s"], right_on=["rk"]),
     "range_join join keys must pair up non-empty; got left_on=['k', 's'], right_on=['rk']."),
    (dict(on="k", join_type="left"),
     "range_join currently supports only join_type='inner'; got 'left'."),
    (dict(on="k", left_partitions={"k": 1, "zz": 2}),
     "range_join left_partitions keys ['k', 'zz'] are not partition columns; partition "
     "columns are ['p']."),
    (dict(on="k", right_partitions={"x": "a"}),
     "range_join right_partitions keys ['x'] are not partition columns; partition columns "
     "are []."),
    (dict(on="s"), "range_join keys not found in table schema: ['s']."),
    (dict(left_on=["nope", "k"], right_on=["rk", "gone"]),
     "range_join keys not found in table schema: ['nope', 'gone']."),
    (dict(left_on=["k", "i"], right_on=["rk", "i"]),
     "range_join key columns must have the same type on both sides; mismatched (left, right, "
     "left type, right type): [('i', 'i', 'INT', 'BIGINT')]."),
    (dict(left_on=["k", "arr"], right_on=["rk", "arr"]),
     "range_join join key 'arr' must not be a nested/complex type; got ARRAY<INT>."),
    (dict(on="f"), "range_join range key 'f' must not be FLOAT/DOUBLE; use an "
     "integer/string/date/timestamp key."),
    (dict(on="ltz"), "range_join range key 'ltz' must not be TIMESTAMP WITH LOCAL TIME ZONE; "
     "use an integer/string/date/timestamp key."),
    (dict(left_on="k", right_on="rk", left_projection=["s"]),
     "left_projection must include the join keys ['k']; got ['s']."),
    (dict(left_on="k", right_on="rk", right_projection=["x"]),
     "right_projection must include the join keys ['rk']; got ['x']."),
    (dict(left_on="k", right_on="rk"),
     "range_join output columns collide: ['arr', 'f', 'i', 'k', 'ltz']. The output keeps the "
     "left key names and the right non-key columns; project or rename the overlap away."),
])
def test_validations(typed, kwargs, message):
    from paimon_rowid import range_join
    with pytest.raises(ValueError) as info:
        range_join("db.l", "db.r", _opts(typed), **kwargs)
    assert type(info.value) is ValueError
    assert str(info.value) == message


def test_validation_order_keys_before_tables(warehouse):
    """Key-shape checks run before the tables are loaded (a missing table does not mask
    them); a missing table raises the catalog's error after them."""
    from paimon_rowid import TableNotExistException, range_join
    with pytest.raises(ValueError, match="exactly one of"):
        range_join("db.none", "db.none2", _opts(warehouse))
    with pytest.raises(TableNotExistException):
        range_join("db.none", "db.none2", _opts(warehouse), on="k")


@pytest.mark.parametrize("value", [0, -3, 1.5, "2"])
def test_num_ranges_validation(clustered, value):
    from paimon_rowid import range_join
    with pytest.raises(ValueError) as info:
        range_join("db.l", "db.r", _opts(clustered), on="k", num_ranges=value)
    assert str(info.value) == f"num_ranges must be an int >= 1; got {value!r}."


def test_num_ranges_true_counts_as_one(clustered):
    from paimon_rowid import range_join
    expected = _rows(_full_join(clustered, "db.l", "db.r", ["k"], ["k"]))
    assert _rows(range_join("db.l", "db.r", _opts(clustered), on="k", num_ranges=True)) \
        == expected


def _rename_column(warehouse, table, old, new):
    """A schema-N+1 that renames ``old`` to ``new`` (same field id), as an ALTER TABLE RENAME
    COLUMN writes it (the package has no alter API)."""
    import json
    import os
    schema_dir = os.path.join(str(warehouse), "db.db", table, "schema")
    latest = max(int(n.split("-")[1]) for n in os.listdir(schema_dir) if n.startswith("schema-"))
    with open(os.path.join(schema_dir, f"schema-{latest}")) as f:
        schema = json.load(f)
    schema["id"] = latest + 1
    for field in schema["fields"]:
        if field["name"] == old:
            field["name"] = new
    with open(os.path.join(schema_dir, f"schema-{latest + 1}"), "w") as f:
        json.dump(schema, f)


@pytest.mark.parametrize("writer", ["ours", "pypaimon"])
def test_renamed_key_is_tracked_by_field_id(warehouse, oracle, writer):
    """Files of the old schema name the key "k"; the table now calls it "key". Their bounds
    (stats for ours, footers for pypaimon) are found through the field id."""
    from paimon_rowid import range_join
    from paimon_rowid.range_join import _plan
    schema = _left_data(0, 1).schema
    if writer == "ours":
        left = create_table(warehouse, "l", schema, APPEND)
        write(left, _left_data(0, 20))
        write(left, _left_data(20, 20))
    else:
        oracle.create_table(warehouse, "db.l", schema, options=dict(APPEND))
        oracle.write(warehouse, "db.l", _left_data(0, 20))
        oracle.write(warehouse, "db.l", _left_data(20, 20))
    _rename_column(warehouse, "l", "k", "key")
    from paimon_rowid import CatalogFactory
    renamed = CatalogFactory.create(_opts(warehouse)).get_table("db.l")
    assert renamed.field_names == ["key", "a"]
    data = _left_data(40, 20)
    write(renamed, pa.table({"key": data["k"], "a": data["a"]}))
    right = create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    write(right, _right_data(0, 60, step=2))
    plan = _plan("db.l", "db.r", _opts(warehouse), on=None, left_on="key", right_on="k",
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    bounds = sorted((lo.as_py(), hi.as_py()) for lo, hi in plan.left.native_side.bounds())
    assert bounds == [(0, 19), (20, 39), (40, 59)]
    expected = _rows(_full_join(warehouse, "db.l", "db.r", ["key"], ["k"]))
    assert len(expected) == 30
    for n in (None, 1, 2, 5):
        out = range_join("db.l", "db.r", _opts(warehouse), left_on="key", right_on="k",
                         num_ranges=n)
        assert out.column_names == ["key", "a", "b"]
        assert _rows(out) == expected


_PYPAIMON_CUT = r"""
import json, os, sys, types
import pypaimon
# pypaimon.ray's __init__ imports Ray (absent from the oracle venv): load its submodules
# without running it. range_join.py and join_common.py import no Ray at module level.
package = types.ModuleType("pypaimon.ray")
package.__path__ = [os.path.join(os.path.dirname(pypaimon.__file__), "ray")]
sys.modules["pypaimon.ray"] = package
from pypaimon.ray import range_join as rj

class F:
    def __init__(self, rows, size):
        self.row_count, self.file_size = rows, size

class S:
    def __init__(self, rows, size):
        self.files = [F(rows, size)]

cases = json.loads(sys.stdin.read())
out = []
for left, right, n in cases:
    lr = [(S(rows, size), lo, hi) for lo, hi, rows, size in left]
    rr = [(S(rows, size), lo, hi) for lo, hi, rows, size in right]
    tasks = []
    for r_lo, r_hi in rj._bounded_ranges(lr, rr, max(1, min(rj._MAX_RANGES, n))):
        li = [i for i, (_, lo, hi) in enumerate(lr) if rj._overlaps(lo, hi, r_lo, r_hi)]
        ri = [i for i, (_, lo, hi) in enumerate(rr) if rj._overlaps(lo, hi, r_lo, r_hi)]
        if li and ri:
            tasks.append([r_lo, r_hi, li, ri])
    out.append(tasks)
print(json.dumps(out))
"""


def test_cut_matches_pypaimon_code(oracle):
    """Our PlanRangeTasks and pypaimon 2.1.0's _bounded_ranges/_cut_points/_overlaps (run in
    the oracle venv) give the same ranges and split assignments on random extents: clustered,
    overlapping, duplicate bounds, unknown splits, skewed sizes."""
    import json
    import random
    import subprocess

    from paimon_rowid._internal._lib import native
    rnd = random.Random(15)
    cases = []
    for _ in range(300):
        sides = []
        for _ in range(2):
            side = []
            for _ in range(rnd.randint(1, 12)):
                if rnd.random() < 0.15:
                    lo = hi = None
                else:
                    lo = rnd.randint(-50, 200)
                    hi = lo + rnd.choice([0, 0, 1, 5, 20, 100])
                side.append([lo, hi, rnd.randint(0, 1000), rnd.choice([1, 10, 100, 10_000])])
            sides.append(side)
        cases.append([sides[0], sides[1], rnd.choice([1, 2, 3, 4, 7, 16, 600])])
    proc = subprocess.run([str(oracle.python), "-c", _PYPAIMON_CUT], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout)
    for (left, right, n), expected in zip(cases, theirs):
        ours = native()._plan_range_tasks_int64([tuple(e) for e in left],
                                                [tuple(e) for e in right], n)
        assert [[lo, hi, list(li), list(ri)] for lo, hi, li, ri in ours] == expected, \
            (left, right, n)


_PYPAIMON_BOUNDS = r"""
import json, os, sys, types
import pypaimon
package = types.ModuleType("pypaimon.ray")
package.__path__ = [os.path.join(os.path.dirname(pypaimon.__file__), "ray")]
sys.modules["pypaimon.ray"] = package
from pypaimon.ray import range_join as rj
spec = json.loads(sys.stdin.read())
ranged, _ = rj._plan_ranged_splits(spec["table"], spec["options"], None, spec["key"])
print(json.dumps(sorted([[lo, hi] for _, lo, hi in ranged], key=repr)))
"""


@pytest.mark.parametrize("writer", ["ours", "pypaimon"])
def test_split_bounds_match_pypaimon(warehouse, oracle, writer):
    """pypaimon's own _plan_ranged_splits (one file per split via a tiny
    source.split.target-size) and our PlanRangeSide agree on every split's bounds, unknowns
    included: stats (our files) or footers (pypaimon's), an all-NULL file, a partial-column
    file of a data-evolution group."""
    import json
    import subprocess

    from paimon_rowid.range_join import _plan
    options = dict(DE, **{"source.split.target-size": "1b"})
    schema = _left_data(0, 1).schema
    batches = [_left_data(0, 20), _left_data(100, 20, step=3),
               pa.table({"k": pa.array([None, None], pa.int64()), "a": ["x", "y"]})]
    if writer == "ours":
        table = create_table(warehouse, "l", schema, options)
        for b in batches:
            write(table, b)
    else:
        oracle.create_table(warehouse, "db.l", schema, options=options)
        for b in batches:
            oracle.write(warehouse, "db.l", b)
    oracle.update_by_row_id(warehouse, "db.l", pa.table(
        {"_ROW_ID": pa.array([3], pa.int64()), "a": ["u3"]}), ["a"])
    proc = subprocess.run(
        [str(oracle.python), "-c", _PYPAIMON_BOUNDS],
        input=json.dumps({"table": "db.l", "options": _opts(warehouse), "key": "k"}),
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout)
    right = create_table(warehouse, "r", _right_data(0, 1).schema, APPEND)
    write(right, _right_data(0, 5))
    plan = _plan("db.l", "db.r", _opts(warehouse), on="k", left_on=None, right_on=None,
                 num_ranges=None, left_projection=None, right_projection=None,
                 left_partitions=None, right_partitions=None, join_type="inner")
    ours = sorted([[None if lo is None else lo.as_py(), None if hi is None else hi.as_py()]
                   for lo, hi in plan.left.native_side.bounds()], key=repr)
    assert ours == theirs
    assert [None, None] in ours and [100, 157] in ours


def test_nested_payload_columns_join(warehouse):
    """ARRAY, MAP, ROW and VECTOR (fixed-size list) payloads ride through the C++ join;
    pypaimon's pyarrow Table.join refuses them (memo §5.3 #13)."""
    from paimon_rowid import range_join
    n = 300
    ks = list(range(n))
    left = pa.table({
        "k": pa.array(ks, pa.int64()),
        "arr": pa.array([[k, k + 1] for k in ks], pa.list_(pa.int32())),
        "m": pa.array([[("x", k)] for k in ks], pa.map_(pa.string(), pa.int64())),
    })
    right = pa.table({
        "rk": pa.array(ks[::3], pa.int64()),
        "row": pa.array([{"a": k, "b": str(k)} for k in ks[::3]],
                        pa.struct([("a", pa.int64()), ("b", pa.string())])),
        "vec": pa.array([[float(k)] * 4 for k in ks[::3]], pa.list_(pa.float32(), 4)),
    })
    lt = create_table(warehouse, "nl", left.schema, APPEND)
    rt = create_table(warehouse, "nr", right.schema, APPEND)
    for i in range(3):  # several files per side, so several ranges
        write(lt, left.slice(i * 100, 100))
        write(rt, right.slice(i * 34, 34))
    out = range_join("db.nl", "db.nr", _opts(warehouse), left_on="k", right_on="rk",
                     num_ranges=3)
    assert out.column_names == ["k", "arr", "m", "row", "vec"]
    assert out.num_rows == len(ks[::3])
    by_key = {r["k"]: r for r in out.to_pylist()}
    for k in ks[::3]:
        row = by_key[k]
        assert row["arr"] == [k, k + 1] and row["m"] == [("x", k)]
        assert row["row"] == {"a": k, "b": str(k)} and row["vec"] == [float(k)] * 4
