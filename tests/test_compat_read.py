"""Compatibility of reads: tables written and updated by pypaimon (the oracle) must read the same
through paimon_rowid as through pypaimon — values, types and nullability — for full, projected,
filtered, row-range and time-travel reads, with _ROW_ID / _SEQUENCE_NUMBER.

Native tests: they ERROR while paimon_rowid._native is not built.
"""
from __future__ import annotations

import datetime
import decimal
import pickle

import pyarrow as pa
import pytest

import de_tables
from oracle import OracleError, build_predicate
from paimon_rowid import CatalogFactory, Range

pytestmark = [pytest.mark.native, pytest.mark.oracle]

ALL = [f.name for f in de_tables.SCHEMA]
SYS = ["_ROW_ID", "_SEQUENCE_NUMBER"]
UTC = datetime.timezone.utc


def _filtered(spec):
    return {"projection": ALL + SYS, "filter": spec}


# Read cases: keyword arguments of Oracle.read (snapshot ids given as step names, resolved
# per table). Each runs on every table layout (plain, partitioned by string, by string+int).
CASES = {
    "full_default": {},
    "full_with_system": {"projection": ALL + SYS},
    "system_first": {"projection": ["_ROW_ID", "_SEQUENCE_NUMBER", "id", "c_string"]},
    "projected_nested": {"projection": ["c_row", "id", "c_map", "c_dec_big", "c_array"]},
    # (An unknown projected name: pypaimon drops it, we raise ValueError; test_integrity.py.)
    "projection_subset": {"projection": ["id", "c_int", "c_ltz"]},
    "partition_columns_only": {"projection": ["p_int", "p_str", "_ROW_ID"]},
    "sequence_only": {"projection": ["_SEQUENCE_NUMBER", "_ROW_ID"]},
    "eq_tinyint": _filtered(["equal", "c_tinyint", [42]]),
    "ne_smallint": _filtered(["not_equal", "c_smallint", [15567]]),
    "lt_double": _filtered(["less_than", "c_double", [0.0]]),
    "le_float": _filtered(["less_or_equal", "c_float", [-12.5]]),
    "gt_bigint": _filtered(["greater_than", "c_bigint", [0]]),
    "ge_date": _filtered(["greater_or_equal", "c_date", [datetime.date(2024, 3, 1)]]),
    "gt_dec_small": _filtered(["greater_than", "c_dec_small", [decimal.Decimal("10.50")]]),
    "lt_dec_big": _filtered(["less_than", "c_dec_big", [decimal.Decimal("-5E+20")]]),
    "le_ts3": _filtered(["less_or_equal", "c_ts3", [datetime.datetime(2024, 1, 1)]]),
    "gt_ts6": _filtered(["greater_than", "c_ts6", [datetime.datetime(2024, 1, 1, 12)]]),
    "gt_ltz": _filtered(["greater_than", "c_ltz", [datetime.datetime(2024, 1, 2, tzinfo=UTC)]]),
    "eq_bool": _filtered(["equal", "c_bool", [True]]),
    "is_null": _filtered(["is_null", "c_string"]),
    "is_not_null": _filtered(["is_not_null", "c_ts6"]),
    "startswith": _filtered(["startswith", "c_string", ["apple"]]),
    "endswith": _filtered(["endswith", "c_string", ["5"]]),
    "contains": _filtered(["contains", "c_string", ["an"]]),
    "like": _filtered(["like", "c_string", ["%a_a%"]]),
    "is_in": _filtered(["is_in", "c_tinyint", [list(range(0, 128, 3))]]),
    "is_not_in": _filtered(["is_not_in", "c_tinyint", [list(range(0, 128, 2))]]),
    "between": _filtered(["between", "id", [10, 30]]),
    "not_between": _filtered(["not_between", "c_double", [-100.0, 100.0]]),
    "and_or": _filtered(["or", [["and", [["equal", "c_bool", [True]],
                                         ["greater_than", "c_int", [0]]]],
                                ["is_null", "c_dec_small"]]]),
    "partition_eq": _filtered(["equal", "p_str", ["b"]]),
    "partition_and_value": _filtered(["and", [["equal", "p_int", [2]],
                                              ["less_than", "c_double", [10.0]]]]),
    "updated_column": _filtered(["greater_than", "c_int", [0]]),
    "updated_string": _filtered(["contains", "c_string", ["-10"]]),
    "no_match": _filtered(["greater_than", "id", [10 ** 9]]),
    "row_id_eq": _filtered(["equal", "_ROW_ID", [5]]),
    "row_id_in": _filtered(["is_in", "_ROW_ID", [[1, 2, 3, 50, 119, 4000]]]),
    "row_id_between_and_value": _filtered(["and", [["between", "_ROW_ID", [10, 60]],
                                                   ["greater_than", "c_int", [0]]]]),
    "row_id_or": _filtered(["or", [["equal", "_ROW_ID", [3]],
                                   ["between", "_ROW_ID", [100, 105]]]]),
    "row_ranges": {"projection": ALL + SYS, "row_ranges": [(2, 5), (10, 12)]},
    "row_ranges_adjacent_overlapping": {"projection": ALL + SYS,
                                        "row_ranges": [(4, 9), (0, 3), (8, 20), (50, 50)]},
    "row_ranges_beyond_end": {"projection": ALL + SYS, "row_ranges": [(115, 500)]},
    "row_ranges_empty": {"projection": ALL + SYS, "row_ranges": []},
    "row_ranges_and_filter": {"projection": ALL + SYS, "row_ranges": [(0, 60)],
                              "filter": ["is_not_null", "c_int"]},
    "row_ranges_default_projection": {"row_ranges": [(30, 80)]},
    "snapshot_first_write": {"projection": ALL + SYS, "snapshot_id": "write1"},
    "snapshot_after_update1": {"projection": ALL + SYS, "snapshot_id": "update1"},
    "snapshot_after_update3": {"projection": ALL + SYS, "snapshot_id": "update3"},
    "tag_after_write2": {"projection": ALL + SYS, "tag": "t_after_write2"},
    "tag_after_update2": {"projection": ALL + SYS, "tag": "t_after_update2"},
    "tag_with_filter_and_ranges": {"projection": ALL + SYS, "tag": "t_after_update2",
                                   "row_ranges": [(0, 10), (60, 99)],
                                   "filter": ["is_not_null", "c_double"]},
}


def _resolve(spec, built):
    spec = dict(spec)
    if isinstance(spec.get("snapshot_id"), str):
        spec["snapshot_id"] = built.snapshots[spec["snapshot_id"]]
    return spec


def our_read(warehouse, identifier, projection=None, filter=None, row_ranges=None,
             snapshot_id=None, tag=None, options=None, limit=None, catalog_options=None):
    """The same read through paimon_rowid, written as user code would (``catalog_options``:
    more catalog options, e.g. an S3 endpoint and keys; test_s3_compat.py)."""
    table = CatalogFactory.create({"warehouse": str(warehouse), **(catalog_options or {})}
                                  ).get_table(identifier)
    overrides = dict(options or {})
    if snapshot_id is not None:
        overrides["scan.snapshot-id"] = str(snapshot_id)
    if tag is not None:
        overrides["scan.tag-name"] = tag
    if overrides:
        table = table.copy(overrides)
    read_builder = table.new_read_builder()
    if projection is not None:
        read_builder.with_projection(projection)
    if filter is not None:
        read_builder.with_filter(build_predicate(read_builder.new_predicate_builder(), filter))
    if limit is not None:
        read_builder.with_limit(limit)
    scan = read_builder.new_scan()
    if row_ranges is not None:
        scan.with_row_ranges([Range(a, b) for a, b in row_ranges])
    return read_builder.new_read().to_arrow(scan.plan().splits())


def assert_same_table(ours: pa.Table, theirs: pa.Table, context: str = ""):
    """Same schema (names, types, nullability) and the same rows, ignoring row order."""
    assert ours.schema.equals(theirs.schema, check_metadata=False), (
        f"{context}\nschema differs:\nours:\n{ours.schema}\npypaimon:\n{theirs.schema}")
    assert ours.num_rows == theirs.num_rows, (
        f"{context}: {ours.num_rows} rows, pypaimon {theirs.num_rows}")
    key = "_ROW_ID" if "_ROW_ID" in ours.column_names else "id"
    if key in ours.column_names:
        ours, theirs = ours.sort_by(key), theirs.sort_by(key)
    ours, theirs = ours.combine_chunks(), theirs.combine_chunks()
    for name in ours.column_names:
        a, b = ours.column(name), theirs.column(name)
        if not a.equals(b):
            diffs = [i for i, (x, y) in enumerate(zip(a.to_pylist(), b.to_pylist())) if x != y]
            shown = [(i, a[i].as_py(), b[i].as_py()) for i in diffs[:5]]
            raise AssertionError(f"{context}: column {name!r} differs at {len(diffs)} row(s); "
                                 f"first (index, ours, pypaimon): {shown}")


@pytest.fixture(scope="module")
def compat(native, oracle, tmp_path_factory):
    """Three pypaimon-written DE tables (plain / by string / by string+int) and pypaimon's
    result for every case."""
    warehouse = str(tmp_path_factory.mktemp("compat") / "warehouse")
    built, expected = {}, {}
    for name, keys in de_tables.PARTITIONINGS.items():
        built[name] = de_tables.build(oracle, warehouse, f"db.{name}", keys)
        specs = [_resolve(spec, built[name]) for spec in CASES.values()]
        expected[name] = dict(zip(CASES, oracle.read_many(warehouse, f"db.{name}", specs)))
    return warehouse, built, expected


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("layout", list(de_tables.PARTITIONINGS))
def test_read_matches_pypaimon(compat, layout, case):
    warehouse, built, expected = compat
    theirs = expected[layout][case]
    if isinstance(theirs, OracleError):
        pytest.fail(f"pypaimon could not run case {case!r}: {theirs}", pytrace=False)
    spec = _resolve(CASES[case], built[layout])
    ours = our_read(warehouse, f"db.{layout}", **spec)
    assert_same_table(ours, theirs, f"{layout}/{case}")


def test_fixture_shape(compat):
    """The fixture really has several snapshots, updates and files per partition."""
    warehouse, built, expected = compat
    b = built["pboth"]
    assert b.snapshots["write4"] == 7 and b.tags == {"t_after_write2": 2, "t_after_update2": 5}
    assert expected["pboth"]["full_default"].num_rows == b.num_rows == 120
    seqs = set(expected["pboth"]["full_with_system"].column("_SEQUENCE_NUMBER").to_pylist())
    assert {4, 5, 6, 7} <= seqs


# ------------------------------------------------------------------------------------------
# API behaviour on the same tables (ours only)
# ------------------------------------------------------------------------------------------

def _table(compat, layout="pboth"):
    warehouse = compat[0]
    return CatalogFactory.create({"warehouse": warehouse}).get_table(f"db.{layout}")


def test_table_properties(compat, oracle):
    table = _table(compat)
    assert table.identifier == "db.pboth"
    assert table.field_names == ALL
    theirs = oracle.schema(compat[0], "db.pboth")
    assert [f.id for f in table.fields] == [f["id"] for f in theirs["fields"]]
    assert table.partition_keys == ["p_str", "p_int"]
    assert table.options["data-evolution.enabled"] == "true"
    assert table.row_tracking_enabled and table.data_evolution_enabled
    empty = oracle.read(compat[0], "db.pboth", filter=["greater_than", "id", [10 ** 9]])
    assert table.arrow_schema.equals(empty.schema, check_metadata=False)


def test_output_forms_agree(compat):
    read_builder = _table(compat).new_read_builder().with_projection(ALL + SYS)
    splits = read_builder.new_scan().plan().splits()
    read = read_builder.new_read()
    arrow = read.to_arrow(splits).sort_by("_ROW_ID")
    batches = pa.Table.from_batches(list(read.to_arrow_batch_reader(splits)),
                                    schema=arrow.schema).sort_by("_ROW_ID")
    assert batches.equals(arrow)
    frame = read.to_pandas(splits).sort_values("_ROW_ID")
    assert frame["id"].tolist() == arrow.column("id").to_pylist()
    rows = sorted(read.to_iterator(splits), key=lambda row: row[len(ALL)])  # _ROW_ID
    assert [row.get_field(0) for row in rows] == arrow.column("id").to_pylist()
    assert rows[0].as_dict()["_ROW_ID"] == 0 and len(rows[0]) == len(ALL) + 2


def test_empty_result_is_typed(compat):
    read_builder = _table(compat).new_read_builder().with_projection(["id", "_ROW_ID"])
    scan = read_builder.new_scan().with_row_ranges([])
    result = read_builder.new_read().to_arrow(scan.plan().splits())
    assert result.num_rows == 0
    assert result.schema == pa.schema([pa.field("id", pa.int64(), nullable=False),
                                       pa.field("_ROW_ID", pa.int64(), nullable=False)])
    assert read_builder.new_read().to_arrow([]).schema == result.schema


def test_plan_snapshot_and_split_pickle(compat):
    table = _table(compat)
    read_builder = table.new_read_builder().with_projection(["id", "_ROW_ID"])
    plan = read_builder.new_scan().plan()
    assert plan.snapshot_id == 7 == table.latest_snapshot()["id"]
    splits = plan.splits()
    assert splits and sum(s.row_count for s in splits) >= 120
    copies = [pickle.loads(pickle.dumps(s)) for s in splits]
    assert (read_builder.new_read().to_arrow(copies).sort_by("_ROW_ID")
            .equals(read_builder.new_read().to_arrow(splits).sort_by("_ROW_ID")))
    old = table.copy({"scan.snapshot-id": 2}).new_read_builder().new_scan().plan()
    assert old.snapshot_id == 2


def test_row_ranges_restrict_splits(compat):
    read_builder = _table(compat).new_read_builder().with_projection(["_ROW_ID"])
    scan = read_builder.new_scan().with_row_ranges([(3, 4), Range(5, 6)])
    splits = scan.plan().splits()
    assert all(s.row_ranges is None or all(r.from_ >= 3 and r.to <= 6 for r in s.row_ranges)
               for s in splits)
    assert sorted(read_builder.new_read().to_arrow(splits).column("_ROW_ID").to_pylist()) == [
        3, 4, 5, 6]


def test_row_id_predicate_prunes_like_row_ranges(compat):
    read_builder = _table(compat).new_read_builder().with_projection(["id", "_ROW_ID"])
    pb = read_builder.new_predicate_builder()
    read_builder.with_filter(pb.is_in("_ROW_ID", [7, 8, 119]))
    splits = read_builder.new_scan().plan().splits()
    full = _table(compat).new_read_builder().new_scan().plan().splits()
    assert sum(s.row_count for s in splits) < sum(s.row_count for s in full)
    assert sorted(read_builder.new_read().to_arrow(splits).column("_ROW_ID").to_pylist()) == [
        7, 8, 119]


def test_limit(compat):
    full = our_read(compat[0], "db.pboth", projection=ALL + SYS)
    for limit in (0, 1, 7, 500):
        got = our_read(compat[0], "db.pboth", projection=ALL + SYS, limit=limit)
        assert got.num_rows == min(limit, full.num_rows)
        assert set(got.column("_ROW_ID").to_pylist()) <= set(full.column("_ROW_ID").to_pylist())


def test_predicate_builder_follows_projection(compat):
    read_builder = _table(compat).new_read_builder().with_projection(["c_string", "_ROW_ID"])
    pb = read_builder.new_predicate_builder()
    with pytest.raises(ValueError, match=r"^The field c_int is not in field list "
                                         r"\['c_string', '_ROW_ID'\]\.$"):
        pb.equal("c_int", 1)
    assert [f.name for f in read_builder.read_type()] == ["c_string", "_ROW_ID"]


def test_row_ranges_errors(compat, oracle):
    table = _table(compat)
    with pytest.raises(ValueError, match="^row_ranges cannot be None$"):
        table.new_read_builder().new_scan().with_row_ranges(None)
    warehouse = compat[0]
    oracle.create_table(warehouse, "db.not_de", pa.schema([("a", pa.int32())]),
                        options={"row-tracking.enabled": "true"})
    plain = CatalogFactory.create({"warehouse": warehouse}).get_table("db.not_de")
    with pytest.raises(ValueError, match="^Row ranges are only supported for data evolution "
                                         "tables$"):
        plain.new_read_builder().new_scan().with_row_ranges([Range(0, 1)])
