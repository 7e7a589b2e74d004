"""Every read and job across schema versions, by field id (reference memo
schema-evolution.md §3): files written before an ``add_column`` read it as NULL, renamed
columns read under the new name, dropped columns vanish, widened types are cast; scans,
filters with stats pruning, ``read_by_row_id``, ``update_by_row_id`` (also a partial file
written before a rename), ``merge_into``, compaction, time travel and Ray reads of an evolved
table equal a plain Python model of the rows, and pypaimon where it can do the same."""
from __future__ import annotations

import pyarrow as pa
import pytest

from ours import catalog, create_table, write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA0 = pa.schema([("id", pa.int64()), ("b", pa.int32()), ("s", pa.string())])


def _alter(opts, *changes):
    catalog(opts).alter_table("db.t", list(changes))


def _update(opts, row_ids, **cols):
    from paimon_rowid import update_by_row_id
    table = catalog(opts).get_table("db.t")
    types = {f.name: f.type for f in table.arrow_schema}
    data = {"_ROW_ID": pa.array(row_ids, pa.int64())}
    data.update({k: pa.array(v, types[k]) for k, v in cols.items()})
    update_by_row_id("db.t", pa.table(data), opts, update_cols=list(cols))


def _read(opts, projection=None, filter=None, options=None):
    table = catalog(opts).get_table("db.t")
    if options:
        table = table.copy(options)
    rb = table.new_read_builder()
    if projection is not None:
        rb = rb.with_projection(projection)
    if filter is not None:
        rb = rb.with_filter(filter(rb.new_predicate_builder()))
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


@pytest.fixture
def evolved(warehouse):
    return build_evolved(warehouse)


def build_evolved(warehouse, options=None):
    """db.t (table ``options``, default DE) through three schemas; returns (catalog options,
    the model rows by row id).

    schema 0 (id, b INT, s)          -> rows 0..9
    schema 1 add c BIGINT, rename b -> b2, b2 INT -> BIGINT
                                      -> rows 10..19; update b2 of rows 0, 1, 15
    schema 2 drop s, rename c -> c2  -> update c2 of rows 2, 12; rows 20..24
    """
    from paimon_rowid.schema.schema_change import SchemaChange as C
    opts = {"warehouse": str(warehouse)}
    table = create_table(warehouse, "t", SCHEMA0, options or DE)
    write(table, pa.table({"id": pa.array(range(10), pa.int64()),
                           "b": pa.array([i * 10 for i in range(10)], pa.int32()),
                           "s": [f"s{i}" for i in range(10)]}))
    _alter(opts, C.add_column("c", "BIGINT"), C.rename_column("b", "b2"),
           C.update_column_type("b2", "BIGINT"))
    write(catalog(opts).get_table("db.t"), pa.table({
        "id": pa.array(range(10, 20), pa.int64()),
        "b2": pa.array([3_000_000_000 + i for i in range(10, 20)], pa.int64()),
        "s": [f"s{i}" for i in range(10, 20)],
        "c": pa.array([i * 100 for i in range(10, 20)], pa.int64())}))
    _update(opts, [0, 1, 15], b2=[-1, -2, -15])
    _alter(opts, C.drop_column("s"), C.rename_column("c", "c2"))
    _update(opts, [2, 12], c2=[222, 1212])
    write(catalog(opts).get_table("db.t"), pa.table({
        "id": pa.array(range(20, 25), pa.int64()),
        "b2": pa.array([i * 10 for i in range(20, 25)], pa.int64()),
        "c2": pa.array([None, 21, None, 23, None], pa.int64())}))
    model = {}
    for i in range(25):
        b2 = i * 10 if i < 10 or i >= 20 else 3_000_000_000 + i
        c2 = None if i < 10 else (i * 100 if i < 20 else [None, 21, None, 23, None][i - 20])
        model[i] = {"id": i, "b2": b2, "c2": c2}
    model[0]["b2"], model[1]["b2"], model[15]["b2"] = -1, -2, -15
    model[2]["c2"], model[12]["c2"] = 222, 1212
    return opts, model


def _rows(table: pa.Table):
    return sorted(table.to_pylist(), key=lambda r: r["id"])


def _expect(model, keep=lambda r: True, columns=("id", "b2", "c2")):
    return [{c: r[c] for c in columns} for r in sorted(model.values(), key=lambda r: r["id"])
            if keep(r)]


def test_full_read_maps_columns_by_field_id(evolved):
    opts, model = evolved
    t = _read(opts)
    assert t.schema.names == ["id", "b2", "c2"]
    assert t.schema.field("b2").type == pa.int64()
    assert _rows(t) == _expect(model)


@pytest.mark.oracle
def test_pypaimon_reads_our_evolved_table(evolved, oracle):
    opts, model = evolved
    theirs = oracle.read(opts["warehouse"], "db.t")
    assert _rows(theirs) == _expect(model)


FILTERS = {
    # widened column: old files' INT stats, new files' BIGINT stats
    "widened_gt": (lambda pb: pb.greater_than("b2", 2_000_000_000), lambda r: r["b2"] > 2e9),
    "widened_lt": (lambda pb: pb.less_than("b2", 0), lambda r: r["b2"] < 0),
    # added then renamed column: NULL in the oldest files
    "added_null": (lambda pb: pb.is_null("c2"), lambda r: r["c2"] is None),
    "added_eq": (lambda pb: pb.equal("c2", 1212), lambda r: r["c2"] == 1212),
    "renamed_in": (lambda pb: pb.is_in("b2", [-2, 30, 3_000_000_011]),
                   lambda r: r["b2"] in (-2, 30, 3_000_000_011)),
}


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filters_and_projections_over_old_files(evolved, name):
    opts, model = evolved
    build, keep = FILTERS[name]
    t = _read(opts, projection=["c2", "id", "b2"], filter=build)
    assert t.schema.names == ["c2", "id", "b2"]
    assert _rows(t) == _expect(model, keep, ("c2", "id", "b2"))


def test_read_by_row_id_across_versions(evolved):
    from paimon_rowid import read_by_row_id
    opts, model = evolved
    ids = [0, 2, 12, 15, 22]
    t = read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array(ids, pa.int64())}), opts,
                       projection=["b2", "c2"])
    got = {r["_ROW_ID"]: (r["b2"], r["c2"]) for r in t.to_pylist()}
    assert got == {i: (model[i]["b2"], model[i]["c2"]) for i in ids}


def test_update_before_rename_keeps_its_values(evolved):
    """A partial file written under the old name (write_cols ['b2'] at schema 1) still
    supplies the column after it is renamed again (Java's rule; pypaimon loses it)."""
    from paimon_rowid.schema.schema_change import SchemaChange as C
    opts, model = evolved
    _alter(opts, C.rename_column("b2", "bb"))
    t = _read(opts)
    assert t.schema.names == ["id", "bb", "c2"]
    assert [r["bb"] for r in _rows(t)] == [r["b2"] for r in _expect(model)]


def test_time_travel_reads_the_old_schema(evolved):
    opts, _ = evolved
    t = _read(opts, options={"scan.snapshot-id": "1"})
    assert t.schema.names == ["id", "b", "s"]
    assert _rows(t) == [{"id": i, "b": i * 10, "s": f"s{i}"} for i in range(10)]


@pytest.mark.oracle
def test_time_travel_equals_pypaimon(evolved, oracle):
    opts, _ = evolved
    for snapshot in (1, 2, 3):
        ours = _read(opts, options={"scan.snapshot-id": str(snapshot)})
        theirs = oracle.read(opts["warehouse"], "db.t", snapshot_id=snapshot)
        assert ours.schema.names == theirs.schema.names, snapshot
        assert _rows(ours) == _rows(theirs.cast(ours.schema)), snapshot


def test_merge_into_an_evolved_table(evolved):
    from paimon_rowid import WhenMatched, WhenNotMatched, merge_into, source_col
    opts, model = evolved
    source = pa.table({"id": pa.array([1, 11, 21, 99], pa.int64()),
                       "c2": pa.array([7, 8, 9, 10], pa.int64()),
                       "b2": pa.array([0, 0, 0, 5], pa.int64())})
    merge_into("db.t", source, opts, on="id",
               when_matched=[WhenMatched.update({"c2": source_col("c2")})],
               when_not_matched=[WhenNotMatched("*")])
    for i, v in ((1, 7), (11, 8), (21, 9)):
        model[i]["c2"] = v
    model[99] = {"id": 99, "b2": 5, "c2": 10}
    assert _rows(_read(opts)) == _expect(model)


def test_compaction_of_an_evolved_table(evolved):
    from paimon_rowid import compact
    opts, model = evolved
    result = compact("db.t", opts, full=True)
    assert result["groups_compacted"] >= 1
    assert _rows(_read(opts)) == _expect(model)


@pytest.mark.oracle
def test_pypaimon_reads_our_compacted_evolved_table(evolved, oracle):
    from paimon_rowid import compact
    opts, model = evolved
    compact("db.t", opts, full=True)
    assert _rows(oracle.read(opts["warehouse"], "db.t")) == _expect(model)


@pytest.mark.ray
def test_ray_reads_an_evolved_table(evolved, ray_session):
    import ray

    from paimon_rowid.ray import read_paimon
    opts, model = evolved
    ds = read_paimon("db.t", opts)
    # Arrow blocks, not to_pandas(): Ray 2.50's pandas conversion fails on pandas 3.
    blocks = [b for b in ray.get(ds.to_arrow_refs()) if b.num_rows]
    assert _rows(pa.concat_tables(blocks)) == _expect(model)
    table = catalog(opts).get_table("db.t")
    rb = table.new_read_builder().with_projection(["id", "c2"])
    ds = rb.new_read().to_ray(rb.new_scan().plan().splits())
    got = sorted(ds.take_all(), key=lambda r: r["id"])
    assert [(r["id"], r["c2"]) for r in got] == [(r["id"], r["c2"]) for r in _expect(model)]


@pytest.mark.oracle
def test_jobs_on_a_pypaimon_evolved_table(warehouse, oracle):
    """pypaimon adds and renames; our update_by_row_id and read_by_row_id work on it and
    pypaimon reads the result as we do."""
    from paimon_rowid import read_by_row_id
    from paimon_rowid.schema.schema_change import SchemaChange as C
    from paimon_rowid.schema.schema_change import changes_json
    opts = {"warehouse": str(warehouse)}
    oracle.create_table(warehouse, "db.t", SCHEMA0, options=DE)
    oracle.write(warehouse, "db.t", pa.table({"id": pa.array(range(6), pa.int64()),
                                              "b": pa.array(range(6), pa.int32()),
                                              "s": [str(i) for i in range(6)]}))
    oracle.run({"cmd": "alter_table", "warehouse": str(warehouse), "identifier": "db.t",
                "changes": changes_json([C.add_column("c", "BIGINT"),
                                         C.rename_column("b", "b2")])})
    _update(opts, [1, 4], c=[10, 40])
    _update(opts, [0], b2=[100])
    ours = _rows(_read(opts))
    theirs = _rows(oracle.read(warehouse, "db.t"))
    assert ours == theirs
    assert [(r["b2"], r["c"]) for r in ours] == [(100, None), (1, 10), (2, None), (3, None),
                                                  (4, 40), (5, None)]
    t = read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([4], pa.int64())}), opts,
                       projection=["b2", "c"])
    assert t.to_pylist() == [{"b2": 4, "c": 40, "_ROW_ID": 4}]
