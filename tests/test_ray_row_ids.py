"""paimon_rowid.ray: update_by_row_id / read_by_row_id / process_row_id_ranges on a real
local Ray (conftest's session-scoped ``ray_session``: one ray.init(num_cpus=2) per pytest
session). Validations are checked for their exception type and for leaving no snapshot and
no file behind; the full refusal tables of docs/pypaimon-compat.md §1.2/§2.2 run on the Ray
path in test_row_ids_validation.py."""
from __future__ import annotations

import os

import pandas as pd
import pyarrow as pa
import pytest

from ours import files

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.native

OPTS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _make_table(warehouse, partitioned=False, commits=4, rows=25):
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    schema = Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("x", pa.float64()), ("n", pa.int32()),
                   ("p", pa.string())]),
        partition_keys=["p"] if partitioned else None, options=OPTS)
    catalog.create_table("db.t", schema, False)
    table = catalog.get_table("db.t")
    for c in range(commits):
        ids = list(range(c * rows, (c + 1) * rows))
        wb = table.new_batch_write_builder()
        w, cm = wb.new_write(), wb.new_commit()
        w.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                "x": [float(i) for i in ids],
                                "n": pa.array([i % 7 for i in ids], pa.int32()),
                                "p": [f"p{i % 2}" for i in ids]}))
        cm.commit(w.prepare_commit())
    return catalog.get_table("db.t")


def _read_all(table):
    rb = table.new_read_builder().with_projection(["_ROW_ID", "id", "x", "n", "p"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")


def _state(warehouse):
    return files(warehouse)


@pytest.mark.parametrize("partitioned", [False, True])
def test_update_then_read(ray_session, warehouse, partitioned):
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    table = _make_table(warehouse, partitioned)
    before = _read_all(table)
    ids = [0, 3, 26, 27, 60, 99]
    result = update_by_row_id("db.t", pa.table({"_ROW_ID": ids, "x": [-1.0 * i for i in ids],
                                                "extra": ids}),
                              {"warehouse": warehouse}, update_cols=["x"], num_partitions=3)
    assert result == {"num_updated": len(ids)}
    after = _read_all(table)
    expected_x = [(-1.0 * r if r in ids else x)
                  for r, x in zip(before["_ROW_ID"].to_pylist(), before["x"].to_pylist())]
    assert after["x"].to_pylist() == expected_x
    assert after["n"].equals(before["n"])
    snap = table.latest_snapshot()
    assert snap["id"] == 5 and snap["commitKind"] == "APPEND"

    ds = read_by_row_id("db.t", pd.DataFrame({"row_id": [99, 3, 3, 60]}),
                        {"warehouse": warehouse}, projection=["x", "id"], row_id_col="row_id")
    blocks = [b for b in ray.get(ds.to_arrow_refs()) if b.num_columns]
    got = pa.concat_tables(blocks).sort_by("_ROW_ID")
    assert got.column_names == ["x", "id", "_ROW_ID"]
    assert got["_ROW_ID"].to_pylist() == [3, 60, 99]
    assert got["x"].to_pylist() == [-3.0, -60.0, -99.0]


def test_read_is_lazy_and_typed_when_empty(ray_session, warehouse):
    from paimon_rowid.ray import read_by_row_id
    _make_table(warehouse)
    empty = read_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([], pa.int64())}),
                           {"warehouse": warehouse}, projection=["n"])
    assert empty.count() == 0
    schema = empty.schema()
    assert schema.names == ["n", "_ROW_ID"]
    # A foreign id fails only when the lazy dataset runs.
    ds = read_by_row_id("db.t", pa.table({"_ROW_ID": [10_000]}), {"warehouse": warehouse},
                        projection=["n"])
    with pytest.raises(Exception, match="valid range"):
        ds.take_all()


def _empty_sources():
    """Every kind of empty id source: (name, factory)."""
    ids = pa.array([], pa.int64())
    return [
        ("pyarrow", lambda: pa.table({"_ROW_ID": ids, "x": pa.array([], pa.float64())})),
        ("pandas", lambda: pd.DataFrame({"_ROW_ID": pd.Series([], dtype="int64"),
                                         "x": pd.Series([], dtype="float64")})),
        ("dataset", lambda: ray.data.from_arrow(pa.table({"_ROW_ID": ids,
                                                          "x": pa.array([], pa.float64())}))),
        # A lazy pipeline whose blocks come out empty (and, on some Ray versions, untyped).
        ("lazy-dataset", lambda: ray.data.range(10).filter(lambda r: r["id"] < 0).map_batches(
            lambda b: {"_ROW_ID": b["id"], "x": b["id"] * 1.0})),
    ]


@pytest.mark.parametrize("kind", [k for k, _ in _empty_sources()])
def test_empty_sources_never_reach_a_shuffle(ray_session, warehouse, kind):
    """Empty id sources: a typed empty read result (count 0, the full schema) on every Ray we
    support, and an update that commits nothing and leaves nothing."""
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    _make_table(warehouse)
    make = dict(_empty_sources())[kind]
    got = read_by_row_id("db.t", make(), {"warehouse": warehouse}, projection=["n", "p"])
    assert got.count() == 0
    assert got.schema().names == ["n", "p", "_ROW_ID"]
    assert got.schema().types == [pa.int32(), pa.string(), pa.int64()]
    assert got.to_arrow_refs() is not None and got.take_all() == []
    before = _state(warehouse)
    assert update_by_row_id("db.t", make(), {"warehouse": warehouse},
                            update_cols=["x"]) == {"num_updated": 0}
    assert _state(warehouse) == before


@pytest.mark.parametrize("case", [
    "empty_cols", "unknown_col", "partition_col", "str_source", "bad_type", "missing_col",
    "foreign_id", "duplicate_id", "null_id",
])
def test_update_validation_leaves_nothing(ray_session, warehouse, case):
    from paimon_rowid.ray import update_by_row_id
    _make_table(warehouse, partitioned=True)
    before = _state(warehouse)
    cols = ["x"]
    source = pa.table({"_ROW_ID": [1, 2], "x": [1.0, 2.0]})
    expected = ValueError
    if case == "empty_cols":
        cols = []
    elif case == "unknown_col":
        cols = ["nope"]
    elif case == "partition_col":
        cols = ["p"]
    elif case == "str_source":
        source = "db.t"
    elif case == "bad_type":
        source, expected = [1, 2], TypeError
    elif case == "missing_col":
        source = pa.table({"_ROW_ID": [1]})
    elif case == "foreign_id":
        source = pa.table({"_ROW_ID": [1, 100_000], "x": [1.0, 2.0]})
    elif case == "duplicate_id":
        source = pa.table({"_ROW_ID": [5, 5], "x": [1.0, 2.0]})
    elif case == "null_id":
        source = pa.table({"_ROW_ID": pa.array([1, None], pa.int64()), "x": [1.0, 2.0]})
    with pytest.raises(expected):
        update_by_row_id("db.t", source, {"warehouse": warehouse}, update_cols=cols)
    assert _state(warehouse) == before


def test_process_row_id_ranges_batches(ray_session, warehouse):
    from paimon_rowid import Range
    from paimon_rowid.ray import process_row_id_ranges
    _make_table(warehouse, commits=4, rows=3)
    batches = []
    process_row_id_ranges("db.t", {"warehouse": warehouse}, rows_per_commit=7,
                          processor=batches.append)
    assert batches == [[Range(0, 2), Range(3, 5), Range(6, 8)], [Range(9, 11)]]
    for bad in (0, -1, True, 1.5, "1", None):
        with pytest.raises(ValueError, match="positive integer"):
            process_row_id_ranges("db.t", {"warehouse": warehouse}, rows_per_commit=bad,
                                  processor=batches.append)
    with pytest.raises(ValueError, match="callable"):
        process_row_id_ranges("db.t", {"warehouse": warehouse}, rows_per_commit=1, processor=3)


def test_table_read_to_ray(ray_session, warehouse):
    table = _make_table(warehouse, partitioned=True)
    rb = table.new_read_builder().with_projection(["id", "x", "_ROW_ID"])
    rb.with_filter(rb.new_predicate_builder().less_than("id", 60))
    read = rb.new_read()
    splits = rb.new_scan().plan().splits()
    ds = read.to_ray(splits, concurrency=2, ray_remote_args={"num_cpus": 1})
    assert ds.limit(1).count() == 1
    rows = pa.concat_tables([b for b in ray.get(ds.to_arrow_refs()) if b.num_columns])
    assert rows.sort_by("_ROW_ID").equals(read.to_arrow(splits).sort_by("_ROW_ID"))
    empty = read.to_ray([])
    assert empty.count() == 0 and empty.schema().names == ["id", "x", "_ROW_ID"]
    with pytest.raises(ValueError):
        read.to_ray(splits, override_num_blocks=0)


@pytest.mark.parametrize("case", [
    "empty_projection", "unknown_column", "sequence_number", "invariant_option",
    "two_time_travel_keys", "str_source", "bad_type", "missing_row_id_col", "unknown_tag",
])
def test_read_validation_leaves_nothing(ray_session, warehouse, case):
    from paimon_rowid.ray import read_by_row_id
    _make_table(warehouse, commits=1)
    before = _state(warehouse)
    kwargs = {"projection": ["x"]}
    source = pa.table({"_ROW_ID": [1, 2]})
    expected = ValueError
    if case == "empty_projection":
        kwargs["projection"] = []
    elif case == "unknown_column":
        kwargs["projection"] = ["nope"]
    elif case == "sequence_number":
        kwargs["projection"] = ["_SEQUENCE_NUMBER"]
    elif case == "invariant_option":
        kwargs["dynamic_options"] = {"row-tracking.enabled": "false"}
    elif case == "two_time_travel_keys":
        kwargs["dynamic_options"] = {"scan.snapshot-id": "1", "scan.tag-name": "t"}
    elif case == "str_source":
        source = "db.t"
    elif case == "bad_type":
        # (a mapping of columns is a source now; a set of ids is not)
        source, expected = {1, 2}, TypeError
    elif case == "missing_row_id_col":
        kwargs["row_id_col"] = "row_id"
    elif case == "unknown_tag":
        kwargs["dynamic_options"] = {"scan.tag-name": "nope"}
    with pytest.raises(expected):
        read_by_row_id("db.t", source, {"warehouse": warehouse}, **kwargs)
    assert _state(warehouse) == before


def test_read_empty_target(ray_session, warehouse):
    from paimon_rowid import CatalogFactory, Schema
    from paimon_rowid.ray import read_by_row_id
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.e", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64())]), options=OPTS), False)
    empty = read_by_row_id("db.e", pa.table({"_ROW_ID": pa.array([], pa.int64())}),
                           {"warehouse": warehouse}, projection=["id"])
    assert empty.count() == 0 and empty.schema().names == ["id", "_ROW_ID"]
    with pytest.raises(ValueError, match="has no rows"):
        read_by_row_id("db.e", pa.table({"_ROW_ID": [0]}), {"warehouse": warehouse},
                       projection=["id"])


def _twin_tables(warehouse, names=("a", "b"), commits=2, rows=5):
    """Tables of identical shape and data in one warehouse: their serialized row-id indexes
    differ only in the group directories, deep inside the bytes."""
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    tables = []
    for name in names:
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
            pa.schema([("id", pa.int64()), ("x", pa.float64())]), options=OPTS), False)
        table = catalog.get_table(f"db.{name}")
        for c in range(commits):
            ids = list(range(c * rows, (c + 1) * rows))
            wb = table.new_batch_write_builder()
            w, cm = wb.new_write(), wb.new_commit()
            w.write_arrow(pa.table({"id": pa.array(ids, pa.int64()),
                                    "x": [float(i) for i in ids]}))
            cm.commit(w.prepare_commit())
        tables.append(catalog.get_table(f"db.{name}"))
    return tables


def test_worker_index_cache_tells_same_shaped_tables_apart(warehouse):
    """Regression: the per-worker index cache was keyed by the first 64 bytes and the length
    of the serialized index, so a worker that had served table a handed a's index (and so
    a's directories) to a job on table b: b's update wrote its files into a's directory and
    committed names that do not exist in b."""
    from paimon_rowid._internal._lib import native
    from paimon_rowid.ray import row_id_jobs as row_ids
    a, b = _twin_tables(warehouse)
    bytes_a = native().RowIdIndex.build(a._native, 2).serialize()
    bytes_b = native().RowIdIndex.build(b._native, 2).serialize()
    assert bytes_a != bytes_b and len(bytes_a) == len(bytes_b)
    assert bytes_a[:64] == bytes_b[:64]  # what the old key looked at
    index_a = row_ids._index(bytes_a)
    assert row_ids._index(bytes_a) is index_a  # cached
    index_b = row_ids._index(bytes_b)
    assert index_b is not index_a  # the old key returned a's index here
    assert row_ids._index(bytes_b) is index_b


def test_updates_of_same_shaped_tables_stay_in_their_tables(ray_session, warehouse):
    """End to end: one update per twin table, one apply task each on the same few workers;
    each table gets exactly its own rows and files."""
    from paimon_rowid.ray import update_by_row_id
    tables = _twin_tables(warehouse, names=("a", "b", "c"))
    before = {t.identifier: _state(t.path) for t in tables}
    for k, table in enumerate(tables):
        update_by_row_id(table.identifier, pa.table({"_ROW_ID": [1, 7], "x": [k + 0.5] * 2}),
                         {"warehouse": warehouse}, update_cols=["x"], num_partitions=1)
    for k, table in enumerate(tables):
        rb = table.new_read_builder().with_projection(["_ROW_ID", "x"])
        got = rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID")
        assert got["x"].to_pylist() == [k + 0.5 if i in (1, 7) else float(i)
                                        for i in range(10)]
        live = {p for s in rb.new_scan().plan().splits() for p in s.file_paths}
        data = {p for p in _state(table.path) if os.sep + "bucket-" in p}
        assert data == live  # no stray file from another table's job
        assert len(data - set(before[table.identifier])) == 2  # one per touched group


def test_update_takes_pypaimon_map_arguments(ray_session, warehouse):
    """pypaimon spreads ray_remote_args into Ray Data's map_batches / map_groups, so Data's
    map arguments (concurrency, batch_size) are legal there; the update (plain tasks) honours
    concurrency as a cap on tasks in flight and ignores batch shaping."""
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    table = _make_table(warehouse)
    before = _read_all(table)
    ids = [2, 30, 55, 80]
    args = {"concurrency": 1, "num_cpus": 1, "batch_size": 2, "max_retries": 1}
    result = update_by_row_id("db.t", pa.table({"_ROW_ID": ids, "x": [0.5] * 4}),
                              {"warehouse": warehouse}, update_cols=["x"], num_partitions=4,
                              ray_remote_args=args)
    assert result == {"num_updated": 4}
    after = _read_all(table)
    assert after["x"].to_pylist() == [0.5 if r in ids else x for r, x in zip(
        before["_ROW_ID"].to_pylist(), before["x"].to_pylist())]
    # The read spreads them into map_batches / map_groups, as pypaimon does (map_groups sets
    # its own batch_size, so batch_size is not a read argument there either).
    args.pop("batch_size")
    got = read_by_row_id("db.t", pa.table({"_ROW_ID": ids}), {"warehouse": warehouse},
                         projection=["x"], ray_remote_args=args).take_all()
    assert sorted((r["_ROW_ID"], r["x"]) for r in got) == [(i, 0.5) for i in ids]
    before_files = _state(warehouse)
    for bad in (0, -1, True, "2"):
        with pytest.raises(ValueError, match="concurrency must be a positive integer"):
            update_by_row_id("db.t", pa.table({"_ROW_ID": [1], "x": [1.0]}),
                             {"warehouse": warehouse}, update_cols=["x"],
                             ray_remote_args={"concurrency": bad})
    assert _state(warehouse) == before_files


# ---------------------------------------------------------------------------- routing paths

def _sources(rows: pa.Table):
    """(name, factory, options, what is routed on the driver) for every kind of source, the
    threshold option (``driver_routing_max_bytes``) included. A lazy source's update is
    routed on the driver once it ran (the update materializes it) and is small enough; its
    read stays lazy, routed by tasks when consumed."""
    both = ["_split_rows", "_split_ids"]
    return [
        ("pyarrow", lambda: rows, {}, both),
        ("pandas", lambda: rows.to_pandas(), {}, both),
        ("materialized", lambda: ray.data.from_arrow(rows), {}, both),
        ("materialized-over-threshold", lambda: ray.data.from_arrow(rows),
         {"driver_routing_max_bytes": 0}, []),
        ("lazy", lambda: ray.data.from_arrow(rows).map_batches(lambda b: b,
                                                               batch_format="pyarrow"),
         {}, ["_split_rows"]),
    ]


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "materialized",
                                  "materialized-over-threshold", "lazy"])
def test_driver_and_task_routing_give_the_same_results(ray_session, warehouse, monkeypatch,
                                                       kind):
    """Sources on the driver (and materialized Datasets up to the threshold) are routed there;
    the others by tasks. Both give the same update and the same read, set semantics."""
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    from paimon_rowid.ray import row_id_jobs as row_ids
    table = _make_table(warehouse, commits=4, rows=25)
    before = _read_all(table)
    ids = [99, 0, 26, 27, 51, 3]
    _, make, options, on_driver = next(s for s in _sources(pa.table(
        {"_ROW_ID": ids, "x": [-1.0 * i for i in ids], "other": ids})) if s[0] == kind)
    calls = []
    from paimon_rowid.ray import row_id_reads
    for module, name in ((row_ids, "_split_rows"), (row_id_reads, "_split_ids")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _real=real, _name=name: (
            calls.append(_name), _real(*a))[1])
    assert update_by_row_id("db.t", make(), {"warehouse": warehouse}, update_cols=["x"],
                            num_partitions=3, **options) == {"num_updated": len(ids)}
    after = _read_all(table)
    assert after["x"].to_pylist() == [(-1.0 * r if r in ids else x) for r, x in zip(
        before["_ROW_ID"].to_pylist(), before["x"].to_pylist())]
    ds = read_by_row_id("db.t", make(), {"warehouse": warehouse}, projection=["x", "id"],
                        num_partitions=3, **options)
    got = pa.concat_tables([b for b in ray.get(ds.to_arrow_refs()) if b.num_rows])
    assert got.column_names == ["x", "id", "_ROW_ID"]
    assert sorted(got.to_pylist(), key=lambda r: r["_ROW_ID"]) == [
        {"x": -1.0 * i, "id": i, "_ROW_ID": i} for i in sorted(ids)]
    assert calls == on_driver


@pytest.mark.parametrize("kind", ["materialized", "materialized-over-threshold"])
def test_refusals_do_not_depend_on_the_routing_path(ray_session, warehouse, kind):
    """A foreign id: the update raises the plain ValueError and leaves nothing; the read
    raises it (wrapped by Ray) only when the result is consumed."""
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    _make_table(warehouse)
    before = _state(warehouse)
    _, make, options, _ = next(s for s in _sources(pa.table(
        {"_ROW_ID": [1, 500], "x": [1.0, 2.0]})) if s[0] == kind)
    with pytest.raises(ValueError, match="_ROW_ID 500 does not belong to any valid range"):
        update_by_row_id("db.t", make(), {"warehouse": warehouse}, update_cols=["x"],
                         **options)
    ds = read_by_row_id("db.t", make(), {"warehouse": warehouse}, projection=["x"], **options)
    with pytest.raises(ray.exceptions.RayTaskError,
                       match="ValueError: _ROW_ID 500 does not belong to any valid range"):
        ds.take_all()
    with pytest.raises(ValueError, match="Deduplicate the source"):
        update_by_row_id("db.t", ray.data.from_arrow(pa.table({"_ROW_ID": [5, 5],
                                                               "x": [1.0, 2.0]})),
                         {"warehouse": warehouse}, update_cols=["x"], **options)
    assert _state(warehouse) == before


@pytest.mark.parametrize("option", ["driver_routing_max_bytes", "driver_max_bytes"])
def test_driver_thresholds_are_checked(ray_session, warehouse, option):
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    _make_table(warehouse)
    before = _state(warehouse)
    for bad in (-1, True, 1.5, "1"):
        with pytest.raises(ValueError, match=f"^{option} must be a non-negative"):
            update_by_row_id("db.t", pa.table({"_ROW_ID": [1], "x": [1.0]}),
                             {"warehouse": warehouse}, update_cols=["x"], **{option: bad})
        with pytest.raises(ValueError, match=f"^{option} must be a non-negative"):
            read_by_row_id("db.t", pa.table({"_ROW_ID": [1]}), {"warehouse": warehouse},
                           projection=["x"], **{option: bad})
    assert _state(warehouse) == before


@pytest.mark.parametrize("kind", ["pyarrow", "pandas", "materialized"])
def test_small_driver_side_jobs_run_on_the_driver(ray_session, warehouse, monkeypatch, kind):
    """A driver-side source whose job touches at most ``driver_max_bytes`` file bytes runs in
    the driver's process (no task; the read's result is materialized there); with
    ``driver_max_bytes=0`` the same jobs run on tasks. Both give the same table and rows."""
    from ray.data.dataset import MaterializedDataset

    from paimon_rowid import CatalogFactory
    from paimon_rowid.ray import read_by_row_id, row_id_reads, update_by_row_id
    from paimon_rowid.ray import row_id_jobs as row_ids
    here = []
    for name, cls in (("_apply_here", row_ids._UpdatePipeline),
                      ("read_here", row_id_reads._ReadBucket)):
        real = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda self, *a, _real=real, _name=name: (
            here.append(_name), _real(self, *a))[1])
    # The read's index goes to the object store only when a task needs it.
    shipped = []
    real_ref = row_id_reads._ReadBucket.index_ref
    monkeypatch.setattr(row_id_reads._ReadBucket, "index_ref",
                        lambda self: (shipped.append(1), real_ref(self))[1])
    results = {}
    for limit in (None, 0):
        _make_table(warehouse, commits=4, rows=25)
        ids = [99, 0, 26, 27, 51, 3]
        rows = pa.table({"_ROW_ID": ids, "x": [-1.0 * i for i in ids]})
        _, make, _, _ = next(s for s in _sources(rows) if s[0] == kind)
        here.clear()
        shipped.clear()
        assert update_by_row_id("db.t", make(), {"warehouse": warehouse}, update_cols=["x"],
                                driver_max_bytes=limit) == {"num_updated": len(ids)}
        ds = read_by_row_id("db.t", make(), {"warehouse": warehouse}, projection=["x", "id"],
                            driver_max_bytes=limit)
        assert isinstance(ds, MaterializedDataset) == (limit is None)
        got = pa.concat_tables([b for b in ray.get(ds.to_arrow_refs()) if b.num_rows])
        assert got.column_names == ["x", "id", "_ROW_ID"]
        assert got.to_pylist() == [{"x": -1.0 * i, "id": i, "_ROW_ID": i} for i in sorted(ids)]
        assert here == (["_apply_here", "read_here"] if limit is None else [])
        assert bool(shipped) == (limit == 0)
        catalog = CatalogFactory.create({"warehouse": warehouse})
        results[limit] = _read_all(catalog.get_table("db.t"))
        catalog.drop_table("db.t", False)
    assert results[None] == results[0]


def test_driver_run_errors_keep_the_task_path_behaviour(ray_session, warehouse):
    """On the driver path a foreign id still fails the update with the plain ValueError and
    leaves nothing, and fails the read only when its result is consumed."""
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    _make_table(warehouse)
    before = _state(warehouse)
    with pytest.raises(ValueError, match="_ROW_ID 500 does not belong to any valid range"):
        update_by_row_id("db.t", pa.table({"_ROW_ID": [1, 500], "x": [1.0, 2.0]}),
                         {"warehouse": warehouse}, update_cols=["x"])
    with pytest.raises(ValueError, match="Deduplicate the source"):
        update_by_row_id("db.t", pa.table({"_ROW_ID": [5, 5], "x": [1.0, 2.0]}),
                         {"warehouse": warehouse}, update_cols=["x"])
    assert _state(warehouse) == before
    ds = read_by_row_id("db.t", pa.table({"_ROW_ID": [1, 500]}), {"warehouse": warehouse},
                        projection=["x"])
    with pytest.raises(Exception, match="_ROW_ID 500 does not belong to any valid range"):
        ray.get(ds.to_arrow_refs())
    assert _state(warehouse) == before


# ---------------------------------------------------------------------------- races

def _data_files(warehouse):
    return {f for f in files(warehouse) if f.endswith(".parquet")}


def _ray_update_held(warehouse, tmp_path, ids, value):
    """Starts a Ray update of column x whose apply tasks wait (after writing their files,
    before returning) while a hold file exists; returns (thread, outcome dict, hold path)
    once the update's files are on disk, so another writer can commit in between."""
    import threading

    from paimon_rowid.ray import update_by_row_id
    from paimon_rowid.ray._task_hooks import HoldWhileExists, TaskHooks
    hold = tmp_path / "hold"
    hold.write_text("")
    before = _data_files(warehouse)
    outcome = {}

    def run():
        try:
            outcome["result"] = update_by_row_id(
                "db.t", pa.table({"_ROW_ID": ids, "x": [value] * len(ids)}),
                {"warehouse": warehouse}, update_cols=["x"],
                _hooks=TaskHooks(after_apply=HoldWhileExists(str(hold))))
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    import time
    deadline = time.monotonic() + 90
    while _data_files(warehouse) == before and thread.is_alive():
        assert time.monotonic() < deadline, "the Ray update wrote nothing"
        time.sleep(0.05)
    return thread, outcome, hold


def test_ray_update_rebases_over_a_concurrent_update_of_other_rows(ray_session, warehouse,
                                                                   tmp_path):
    """A Ray update and an embedded one of disjoint rows of one file group, same column: the
    embedded one commits first, the Ray one loses the conflict, rebases and lands too (as two
    embedded updates do)."""
    from paimon_rowid import update_by_row_id as embedded_update
    table = _make_table(warehouse)
    before = _read_all(table)
    files_before = _data_files(warehouse)
    thread, outcome, hold = _ray_update_held(warehouse, tmp_path, [1, 2], -7.0)
    embedded_update("db.t", pa.table({"_ROW_ID": [5, 6], "x": [-8.0, -8.0]}),
                    {"warehouse": warehouse}, update_cols=["x"])
    assert table.latest_snapshot()["id"] == 5
    hold.unlink()
    thread.join(120)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["result"] == {"num_updated": 2}
    after = _read_all(table)
    x = dict(zip(after["_ROW_ID"].to_pylist(), after["x"].to_pylist()))
    assert (x[1], x[2], x[5], x[6], x[3]) == (-7.0, -7.0, -8.0, -8.0, 3.0)
    assert after["n"].equals(before["n"])
    assert table.latest_snapshot()["id"] == 6
    # One partial file per update: the lost round's file was deleted.
    assert len(_data_files(warehouse) - files_before) == 2


def test_ray_update_conflicting_with_a_concurrent_update_of_the_same_rows(ray_session,
                                                                          warehouse, tmp_path):
    """The other writer changed one of these rows: CommitConflictException, and nothing of
    the Ray update stays behind."""
    from paimon_rowid import CommitConflictException
    from paimon_rowid import update_by_row_id as embedded_update
    table = _make_table(warehouse)
    files_before = _data_files(warehouse)
    thread, outcome, hold = _ray_update_held(warehouse, tmp_path, [1, 2], -7.0)
    embedded_update("db.t", pa.table({"_ROW_ID": [2], "x": [-8.0]}),
                    {"warehouse": warehouse}, update_cols=["x"])
    hold.unlink()
    thread.join(120)
    assert isinstance(outcome.get("error"), CommitConflictException), outcome
    assert "same rows" in str(outcome["error"])
    assert table.latest_snapshot()["id"] == 5
    x = dict(zip(*[c.to_pylist() for c in _read_all(table).select(["_ROW_ID", "x"]).columns]))
    assert (x[1], x[2]) == (1.0, -8.0)
    assert len(_data_files(warehouse) - files_before) == 1  # the embedded update's only
