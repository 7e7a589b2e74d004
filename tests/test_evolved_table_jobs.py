"""More jobs on tables evolved through several schemas (docs/schema-evolution.md; the table
and its model are test_schema_evolution_jobs.build_evolved's: add, rename, widen, drop, with
appends and updates by row id between): deletes by row id and by predicate (deletion
vectors over files of three schemas), range_join and bucket_join (in-process and on Ray)
with keys renamed and widened since the oldest files, and the Ray row-id jobs
(update_by_row_id, read_by_row_id run as Ray tasks). Each equals the model or a pyarrow
join of the sides' reads, and pypaimon reads the results as we do."""
from __future__ import annotations

import pyarrow as pa
import pytest

from bucket_tables import bucket_options, make_table
from ours import catalog, create_table, write
from test_schema_evolution_jobs import _expect, _read, _rows, build_evolved

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
DV = {**DE, "deletion-vectors.enabled": "true"}


def _delete(opts, row_ids=None, predicate=None):
    table = catalog(opts).get_table("db.t")
    builder = table.new_batch_write_builder()
    update = builder.new_update()
    if predicate is not None:
        messages = update.delete_by_predicate(predicate(table.new_read_builder()
                                                        .new_predicate_builder()))
    else:
        messages = update.delete_by_row_id(row_ids)
    builder.new_commit().commit(messages)


@pytest.mark.oracle
def test_delete_by_row_id_across_schema_versions(warehouse, oracle):
    from paimon_rowid.schema.schema_change import SchemaChange as C
    opts, model = build_evolved(warehouse, DV)
    _delete(opts, row_ids=[0, 12, 22])  # one row of each schema's files
    for i in (0, 12, 22):
        del model[i]
    assert _rows(_read(opts)) == _expect(model)
    assert _rows(oracle.read(warehouse, "db.t")) == _expect(model)
    # A later alter keeps the deletions (pypaimon is not asked: it loses the update of c2
    # written before the rename, reference memo §3.3).
    catalog(opts).alter_table("db.t", [C.rename_column("c2", "c3"),
                                       C.add_column("d", "STRING")])
    got = _rows(_read(opts))
    assert [r["id"] for r in got] == sorted(model)
    assert [r["c3"] for r in got] == [r["c2"] for r in _expect(model)]
    # And deleting by a predicate on the renamed column right after the alter.
    _delete(opts, predicate=lambda pb: pb.equal("c3", 222))
    assert [r["id"] for r in _rows(_read(opts))] == [i for i in sorted(model) if i != 2]


@pytest.mark.oracle
def test_delete_by_predicate_on_renamed_and_widened_columns(warehouse, oracle):
    opts, model = build_evolved(warehouse, DV)
    # b2 was b INT in the oldest files (rows 0, 1 and 15 updated to negatives since).
    _delete(opts, predicate=lambda pb: pb.less_than("b2", 0))
    # c2 was added as c: NULL in the oldest files.
    _delete(opts, predicate=lambda pb: pb.equal("c2", 1212))
    for i in (0, 1, 15, 12):
        del model[i]
    assert _rows(_read(opts)) == _expect(model)
    assert _rows(oracle.read(warehouse, "db.t")) == _expect(model)


def _right_table(warehouse):
    """db.r: (rid INT, w STRING) rows with even keys 0..28, then rid renamed to id and
    widened to BIGINT, x added; rows with keys 30..40."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    schema = pa.schema([("rid", pa.int32()), ("w", pa.string())])
    table = create_table(warehouse, "r", schema, DE)
    write(table, pa.table({"rid": pa.array(range(0, 30, 2), pa.int32()),
                           "w": [f"w{i}" for i in range(0, 30, 2)]}, schema=schema))
    cat = catalog(warehouse)
    cat.alter_table("db.r", [C.rename_column("rid", "id"), C.update_column_type("id", "BIGINT"),
                             C.add_column("x", "BIGINT")])
    write(cat.get_table("db.r"), pa.table({"id": pa.array(range(20, 41), pa.int64()),
                                           "w": [f"v{i}" for i in range(20, 41)],
                                           "x": pa.array(range(21), pa.int64())}))


def _reference_join(opts, left: str, right: str, on: str) -> list:
    lt = catalog(opts).get_table(left).new_read_builder()
    rt = catalog(opts).get_table(right).new_read_builder()
    lrows = lt.new_read().to_arrow(lt.new_scan().plan().splits())
    rrows = rt.new_read().to_arrow(rt.new_scan().plan().splits())
    joined = lrows.join(rrows, on, join_type="inner")
    return _sorted_rows(joined)


def _sorted_rows(table: pa.Table) -> list:
    return sorted(table.to_pylist(), key=lambda r: sorted((k, repr(v)) for k, v in r.items()))


def test_range_join_of_evolved_tables(warehouse):
    from paimon_rowid import range_join
    opts, _ = build_evolved(warehouse)
    _right_table(warehouse)
    got = range_join("db.t", "db.r", opts, on="id", num_ranges=3)
    assert got.schema.names == ["id", "b2", "c2", "w", "x"]
    expected = _reference_join(opts, "db.t", "db.r", "id")
    assert len(expected) == 18  # left ids 0..24 meet the even 0..24 (13) and 20..24 (5)
    assert _sorted_rows(got) == expected


@pytest.mark.ray
def test_ray_range_join_of_evolved_tables(warehouse, ray_session):
    from paimon_rowid.ray import range_join
    opts, _ = build_evolved(warehouse)
    _right_table(warehouse)
    ds = range_join("db.t", "db.r", opts, on="id", num_ranges=3)
    assert _sorted_rows(pa.Table.from_pylist(ds.take_all())) == \
        _reference_join(opts, "db.t", "db.r", "id")


@pytest.fixture
def bucket_pair(oracle, warehouse):
    """Fixed-bucket tables written by pypaimon: db.l (k BIGINT, a STRING), db.r (b INT, k
    BIGINT); then our alters (l: rename a -> a2, add c; r: widen b to BIGINT, add d, drop
    nothing of the key) and pypaimon appends under the new schemas."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    left_schema = pa.schema([("k", pa.int64()), ("a", pa.string())])
    right_schema = pa.schema([("b", pa.int32()), ("k", pa.int64())])
    make_table(oracle, warehouse, "db.l", left_schema, [pa.table(
        {"k": pa.array([i % 9 for i in range(20)], pa.int64()),
         "a": [f"a{i}" for i in range(20)]}, schema=left_schema)], bucket_options(3))
    make_table(oracle, warehouse, "db.r", right_schema, [pa.table(
        {"b": pa.array(range(12), pa.int32()),
         "k": pa.array([i % 6 for i in range(12)], pa.int64())}, schema=right_schema)],
        bucket_options(3))
    cat = catalog(warehouse)
    cat.alter_table("db.l", [C.rename_column("a", "a2"), C.add_column("c", "DOUBLE")])
    cat.alter_table("db.r", [C.update_column_type("b", "BIGINT"), C.add_column("d", "STRING")])
    oracle.run_all([
        oracle.write_cmd(warehouse, "db.l", pa.table({
            "k": pa.array(range(5, 12), pa.int64()), "a2": [f"n{i}" for i in range(7)],
            "c": [i + 0.5 for i in range(7)]})),
        oracle.write_cmd(warehouse, "db.r", pa.table({
            "b": pa.array([5_000_000_000 + i for i in range(6)], pa.int64()),
            "k": pa.array(range(4, 10), pa.int64()), "d": [f"d{i}" for i in range(6)]}))])
    return {"warehouse": str(warehouse)}


@pytest.mark.oracle
def test_bucket_join_of_evolved_tables(bucket_pair, oracle):
    from paimon_rowid import bucket_join
    got = bucket_join("db.l", "db.r", bucket_pair, on="k")
    assert got.schema.names == ["k", "a2", "c", "b", "d"]
    expected = _reference_join(bucket_pair, "db.l", "db.r", "k")
    assert _sorted_rows(got) == expected and len(expected) > 20
    # The sides as pypaimon reads them join to the same rows.
    theirs = oracle.read(bucket_pair["warehouse"], "db.l").join(
        oracle.read(bucket_pair["warehouse"], "db.r"), "k", join_type="inner")
    assert _sorted_rows(theirs.cast(got.select(theirs.schema.names).schema)) == \
        _sorted_rows(got.select(theirs.schema.names))
    # An alter after the last snapshot: the join reads it with the new schema.
    from paimon_rowid.schema.schema_change import SchemaChange as C
    catalog(bucket_pair).alter_table("db.r", [C.rename_column("d", "d2")])
    renamed = bucket_join("db.l", "db.r", bucket_pair, on="k")
    assert renamed.schema.names == ["k", "a2", "c", "b", "d2"]
    assert _sorted_rows(renamed.rename_columns(got.schema.names)) == expected


@pytest.mark.oracle
@pytest.mark.ray
def test_ray_bucket_join_of_evolved_tables(bucket_pair, ray_session):
    from paimon_rowid.ray import bucket_join
    ds = bucket_join("db.l", "db.r", bucket_pair, on="k", ray_remote_args={"num_cpus": 1})
    assert _sorted_rows(pa.Table.from_pylist(ds.take_all())) == \
        _reference_join(bucket_pair, "db.l", "db.r", "k")


@pytest.mark.oracle
@pytest.mark.ray
def test_ray_row_id_jobs_across_schema_versions(warehouse, oracle, ray_session):
    """update_by_row_id and read_by_row_id as Ray tasks (num_partitions) on rows of all three
    schemas' files, then a rename: the values written under the old name stay."""
    from paimon_rowid import read_by_row_id as embedded_read_by_row_id
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    from paimon_rowid.schema.schema_change import SchemaChange as C
    opts, model = build_evolved(warehouse)
    ids = [2, 3, 13, 17, 23]
    source = pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                       "b2": pa.array([7_000_000_000 + i for i in ids], pa.int64()),
                       "c2": pa.array([i * 7 for i in ids], pa.int64())})
    assert update_by_row_id("db.t", source, opts, update_cols=["b2", "c2"],
                            num_partitions=2) == {"num_updated": 5}
    for i in ids:
        model[i]["b2"], model[i]["c2"] = 7_000_000_000 + i, i * 7
    assert _rows(_read(opts)) == _expect(model)
    assert _rows(oracle.read(warehouse, "db.t")) == _expect(model)
    # No commit after this alter: the jobs read the latest snapshot with the new schema.
    catalog(opts).alter_table("db.t", [C.rename_column("c2", "c3"),
                                       C.update_column_type("c3", "STRING")])
    wanted = [0, 3, 12, 17, 24]
    ds = read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(wanted, pa.int64())}), opts,
                        projection=["b2", "c3"], num_partitions=2)
    got = {r["_ROW_ID"]: (r["b2"], r["c3"]) for r in ds.take_all()}
    expected = {i: (model[i]["b2"], None if model[i]["c2"] is None else str(model[i]["c2"]))
                for i in wanted}
    assert got == expected
    embedded = embedded_read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(wanted,
                                                                              pa.int64())}),
                                       opts, projection=["b2", "c3"])
    assert {r["_ROW_ID"]: (r["b2"], r["c3"]) for r in embedded.to_pylist()} == expected
    # Updates by the new name as Ray tasks too, before any commit of the new schema.
    assert update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([0, 24], pa.int64()),
                                              "c3": ["x0", "x24"]}), opts,
                            update_cols=["c3"], num_partitions=2) == {"num_updated": 2}
    got = {r["id"]: r["c3"] for r in _read(opts).to_pylist()}
    assert (got[0], got[24], got[3]) == ("x0", "x24", str(model[3]["c2"]))
    # Its schema: the pinned latest snapshot predates the alter; time travel to it still
    # reads that snapshot's schema.
    before = catalog(opts).get_table("db.t").latest_snapshot().id - 1
    assert "c2" in _read(opts, options={"scan.snapshot-id": str(before)}).schema.names


@pytest.mark.oracle
def test_pypaimon_row_id_update_on_our_evolved_table(warehouse, oracle):
    """pypaimon's update_by_arrow_with_row_id on our three-schema table (a renamed and
    widened column, an added and renamed one): both read the result equal to the model."""
    opts, model = build_evolved(warehouse)
    ids = [1, 4, 14, 21]
    oracle.update_by_row_id(warehouse, "db.t", pa.table({
        "_ROW_ID": pa.array(ids, pa.int64()),
        "b2": pa.array([9_000_000_000 + i for i in ids], pa.int64()),
        "c2": pa.array([-i for i in ids], pa.int64())}), ["b2", "c2"])
    for i in ids:
        model[i]["b2"], model[i]["c2"] = 9_000_000_000 + i, -i
    assert _rows(_read(opts)) == _expect(model)
    assert _rows(oracle.read(warehouse, "db.t")) == _expect(model)


def test_global_index_jobs_right_after_an_alter(warehouse):
    """create_global_index and lookup_row_ids by a column renamed after the latest snapshot
    (no commit since): they read that snapshot with the new schema."""
    from paimon_rowid import lookup_row_ids
    from paimon_rowid.schema.schema_change import SchemaChange as C
    opts, model = build_evolved(warehouse)
    catalog(opts).alter_table("db.t", [C.rename_column("b2", "b3")])
    table = catalog(opts).get_table("db.t")
    assert table.create_global_index("b3") >= 1
    keys = pa.table({"b3": pa.array([model[i]["b2"] for i in (0, 13, 22)], pa.int64())})
    got = lookup_row_ids("db.t", keys, "b3", opts)
    assert sorted(got["_ROW_ID"].to_pylist()) == [0, 13, 22]
