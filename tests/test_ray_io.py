"""paimon_rowid.ray.read_paimon / write_paimon on a real local Ray (the session-scoped
``ray_session`` of conftest.py): results equal the in-process read and pypaimon's read of the
same warehouse, every validation raises its exception type, and a failed write leaves no
snapshot and no file behind."""
from __future__ import annotations

import os
import time

import pyarrow as pa
import pytest

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("x", pa.float64()),
                    ("s", pa.string()), ("p", pa.string())])


def _create(warehouse, name="t", partitioned=True):
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["p"] if partitioned else None, options=DE), False)
    return catalog.get_table(f"db.{name}")


def _rows(start, count):
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "x": [i / 2 for i in ids],
                     "s": [None if i % 5 == 0 else f"s{i}" for i in ids],
                     "p": [f"p{i % 3}" for i in ids]}, schema=SCHEMA)


def _write(table, data):
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())
    write.close()


def _read(table, projection=None, options=None, predicate=None):
    if options:
        table = table.copy(options)
    builder = table.new_read_builder()
    if projection is not None:
        builder.with_projection(projection)
    if predicate is not None:
        builder.with_filter(predicate(builder.new_predicate_builder()))
    return builder.new_read().to_arrow(builder.new_scan().plan().splits())


def _collect(ds) -> pa.Table:
    return pa.Table.from_pylist(ds.take_all(), schema=ds.schema().base_schema)


def _state(warehouse):
    found = []
    for root, _, names in os.walk(warehouse):
        found.extend(os.path.join(root, n) for n in names)
    return sorted(found)


def _data_files(warehouse):
    return [f for f in _state(warehouse) if os.path.basename(f).startswith("data-")]


# ---------------------------------------------------------------------------- read_paimon

def test_read_paimon_matches_in_process_read(ray_session, warehouse):
    from paimon_rowid.ray import read_paimon
    table = _create(warehouse)
    for c in range(3):
        _write(table, _rows(c * 20, 20))
    opts = {"warehouse": warehouse}

    full = read_paimon("db.t", opts, override_num_blocks=3, concurrency=1,
                       ray_remote_args={"num_cpus": 1})
    assert full.schema().names == SCHEMA.names  # no _ROW_ID unless projected
    assert _collect(full).sort_by("id").equals(_read(table).sort_by("id"))

    pick = lambda pb: pb.greater_or_equal("id", 15)  # noqa: E731
    builder = table.new_read_builder().with_projection(["_ROW_ID", "s", "id"])
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['nope'\]"):
        read_paimon("db.t", opts, projection=["_ROW_ID", "s", "id", "nope"])
    filtered = read_paimon("db.t", opts, projection=["_ROW_ID", "s", "id"],
                           filter=pick(builder.new_predicate_builder()))
    assert filtered.schema().names == ["_ROW_ID", "s", "id"]
    assert _collect(filtered).sort_by("_ROW_ID").equals(
        _read(table, ["_ROW_ID", "s", "id"], predicate=pick).sort_by("_ROW_ID"))

    limited = read_paimon("db.t", opts, limit=7, override_num_blocks=3)
    assert limited.count() == 7

    old = read_paimon("db.t", opts, snapshot_id=1, projection=["id"])
    assert sorted(_collect(old)["id"].to_pylist()) == list(range(20))
    same = read_paimon("db.t", opts, dynamic_options={"scan.snapshot-id": "2"},
                       projection=["id"])
    assert same.count() == 40


def test_read_paimon_empty_table_is_typed(ray_session, warehouse):
    from paimon_rowid.ray import read_paimon
    _create(warehouse)
    ds = read_paimon("db.t", {"warehouse": warehouse}, projection=["id", "_ROW_ID"])
    assert ds.count() == 0
    schema = ds.schema().base_schema
    assert schema.names == ["id", "_ROW_ID"]
    assert schema.field("id").type == pa.int64()
    assert getattr(ds, "_paimon_blob_columns", None) is None


@pytest.mark.parametrize("case, kwargs, error", [
    ("snapshot_and_tag", {"snapshot_id": 1, "tag_name": "t1"}, ValueError),
    ("blocks_zero", {"override_num_blocks": 0}, ValueError),
    ("empty_identifier", {"table_identifier": ""}, ValueError),
    ("no_catalog_options", {"catalog_options": None}, ValueError),
    ("travel_twice", {"snapshot_id": 1, "dynamic_options": {"scan.tag-name": "t1"}},
     ValueError),
    ("two_travel_keys", {"dynamic_options": {"scan.snapshot-id": "1",
                                             "scan.tag-name": "t1"}}, ValueError),
    ("expression_projection", {"projection": {"y": "id"}}, NotImplementedError),
    ("missing_table", {"table_identifier": "db.nope"}, "TableNotExistException"),
])
def test_read_paimon_validation(ray_session, warehouse, case, kwargs, error):
    from paimon_rowid import TableNotExistException
    from paimon_rowid.ray import read_paimon
    _create(warehouse)
    args = {"table_identifier": "db.t", "catalog_options": {"warehouse": warehouse}}
    args.update(kwargs)
    if error == "TableNotExistException":
        error = TableNotExistException
    with pytest.raises(error):
        read_paimon(args.pop("table_identifier"), args.pop("catalog_options"), **args)


def test_to_ray_concurrency_above_the_read_tasks_is_capped_silently(ray_session, warehouse):
    """One split and concurrency=2 (the seed's read): the Dataset reads it with one task and
    Ray has no cap it cannot reach to warn about."""
    import warnings
    table = _create(warehouse, partitioned=False)
    _write(table, _rows(0, 20))
    builder = table.new_read_builder()
    splits = builder.new_scan().plan().splits()
    assert len(splits) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = builder.new_read().to_ray(splits, concurrency=2, ray_remote_args={"num_cpus": 0.5})
        assert ds.materialize().count() == 20  # runs the read tasks
    unreachable = [str(w.message) for w in caught if "concurrent tasks" in str(w.message)]
    assert unreachable == []


@pytest.mark.parametrize("concurrency", [0, -1, True, 1.5])
def test_to_ray_refuses_a_concurrency_that_is_not_a_positive_integer(ray_session, warehouse,
                                                                     concurrency):
    """Refused before Ray sees it, the same on every Ray version (2.50 read with 0)."""
    table = _create(warehouse, partitioned=False)
    _write(table, _rows(0, 20))
    builder = table.new_read_builder()
    splits = builder.new_scan().plan().splits()
    with pytest.raises(ValueError, match="concurrency must be a positive integer"):
        builder.new_read().to_ray(splits, concurrency=concurrency)


# ---------------------------------------------------------------------------- write_paimon

def test_write_paimon_one_snapshot_read_by_pypaimon(ray_session, warehouse, oracle):
    from paimon_rowid.ray import PaimonWriteResult, read_paimon, write_paimon
    table = _create(warehouse)
    _write(table, _rows(0, 10))
    # Several blocks; columns in another order and id as int32: matched by name and cast.
    blocks = []
    for b in range(4):
        part = _rows(10 + b * 15, 15)
        blocks.append(pa.table({"p": part["p"], "s": part["s"], "x": part["x"],
                                "id": part["id"].cast(pa.int32())}))
    result = write_paimon(ray.data.from_arrow(blocks), "db.t", {"warehouse": warehouse},
                          concurrency=2)
    assert result == PaimonWriteResult(row_count=60, snapshot_id=2)
    snapshot = table.latest_snapshot()
    assert snapshot["id"] == 2 and snapshot["commitKind"] == "APPEND"

    expected = _rows(0, 70)
    ours = _read(table, ["_ROW_ID", *SCHEMA.names]).sort_by("id")
    assert ours.select(SCHEMA.names).equals(expected)
    assert sorted(ours["_ROW_ID"].to_pylist()) == list(range(70))
    theirs = oracle.read(warehouse, "db.t", projection=["_ROW_ID", *SCHEMA.names])
    assert theirs.sort_by("id").select(SCHEMA.names).to_pylist() == expected.to_pylist()
    assert sorted(theirs["_ROW_ID"].to_pylist()) == list(range(70))
    assert oracle.snapshot(warehouse, "db.t")["id"] == 2

    # A tag made by pypaimon is readable by read_paimon(tag_name=...).
    oracle.create_tag(warehouse, "db.t", "first", snapshot_id=1)
    tagged = read_paimon("db.t", {"warehouse": warehouse}, tag_name="first", projection=["id"])
    assert sorted(_collect(tagged)["id"].to_pylist()) == list(range(10))


def test_write_paimon_overwrite(ray_session, warehouse, oracle):
    """overwrite=True is pypaimon's spec {}: on a partitioned table (dynamic by default) the
    partitions the dataset writes are replaced; unpartitioned, the whole table, an empty
    dataset included."""
    from paimon_rowid.ray import PaimonWriteResult, write_paimon
    table = _create(warehouse)
    _write(table, _rows(0, 9))  # p0, p1, p2: ids 0..8
    new = _rows(100, 4).filter(pa.compute.field("p") != "p2")  # p1 and p0 only
    result = write_paimon(ray.data.from_arrow(new), "db.t", {"warehouse": warehouse},
                          overwrite=True)
    assert result == PaimonWriteResult(row_count=new.num_rows, snapshot_id=2)
    assert table.latest_snapshot()["commitKind"] == "OVERWRITE"
    expected = sorted([i for i in range(9) if i % 3 == 2] + new["id"].to_pylist())
    assert sorted(_read(table, ["id"])["id"].to_pylist()) == expected
    assert sorted(oracle.read(warehouse, "db.t", projection=["id"])["id"].to_pylist()) == expected
    # An empty dataset replaces no partition: nothing is committed.
    empty = ray.data.from_arrow(_rows(0, 0))
    assert write_paimon(empty, "db.t", {"warehouse": warehouse}, overwrite=True) is None

    flat = _create(warehouse, name="flat", partitioned=False)
    _write(flat, _rows(0, 5))
    result = write_paimon(empty, "db.flat", {"warehouse": warehouse}, overwrite=True)
    assert result == PaimonWriteResult(row_count=0, snapshot_id=2)  # a truncate
    assert _read(flat, ["id"]).num_rows == 0


def test_write_paimon_empty_dataset_makes_no_snapshot(ray_session, warehouse):
    from paimon_rowid.ray import write_paimon
    table = _create(warehouse)
    before = _state(warehouse)
    assert write_paimon(ray.data.from_arrow(SCHEMA.empty_table()), "db.t",
                        {"warehouse": warehouse}) is None
    assert table.latest_snapshot() is None
    assert _state(warehouse) == before


def _fail_late_fn():
    """A map_batches function (built here so that Ray pickles it by value) that passes
    batches through; on the marked batch it waits until other tasks have written data files,
    then fails (in the source) or lets the writer fail (a null id)."""

    def fail_late(batch: pa.Table, *, table_dir: str, mode: str) -> pa.Table:
        if 999 not in batch["id"].to_pylist():
            return batch
        deadline = time.time() + 30
        written = []
        while time.time() < deadline and not written:
            for _root, _, names in os.walk(table_dir):
                written.extend(n for n in names if n.startswith("data-"))
            time.sleep(0.05)
        if mode == "source":
            raise ValueError(f"injected failure after {len(written)} data files")
        ids = [None if i == 999 else i for i in batch["id"].to_pylist()]
        return batch.set_column(0, "id", pa.array(ids, pa.int64()))

    return fail_late


# A failing user function surfaces as Ray Data's UserCodeException (as with pypaimon); a failing
# write task as the writer's own exception.
@pytest.mark.parametrize("mode, error, match", [
    ("source", Exception, "injected failure after [1-9]"), ("writer", ValueError, "null")])
def test_write_paimon_failure_deletes_every_file(ray_session, warehouse, mode, error, match):
    from paimon_rowid.ray import write_paimon
    table = _create(warehouse, partitioned=False)
    _write(table, _rows(0, 5))
    before = _state(warehouse)
    blocks = [_rows(100 + b * 10, 10) for b in range(5)]
    blocks.append(pa.table({"id": [998, 999], "x": [1.0, 2.0], "s": ["a", "b"],
                            "p": ["p0", "p1"]}, schema=SCHEMA))
    ds = ray.data.from_arrow(blocks).map_batches(
        _fail_late_fn(), batch_format="pyarrow", batch_size=None,
        fn_kwargs={"table_dir": table.path, "mode": mode})
    with pytest.raises(error, match=match):
        write_paimon(ds, "db.t", {"warehouse": warehouse})
    time.sleep(0.5)  # tasks cancelled by the failure clean up after themselves
    assert table.latest_snapshot()["id"] == 1
    assert _state(warehouse) == before


@pytest.mark.parametrize("case", ["not_dataset", "precluster", "missing_table",
                                  "missing_column", "concurrency"])
def test_write_paimon_validation(ray_session, warehouse, case):
    from paimon_rowid import TableNotExistException
    from paimon_rowid.ray import write_paimon
    table = _create(warehouse)
    before = _state(warehouse)
    ds = ray.data.from_arrow(_rows(0, 3))
    target, kwargs, error = "db.t", {}, ValueError
    if case == "not_dataset":
        ds, error = _rows(0, 3), TypeError
    elif case == "precluster":
        kwargs = {"hash_fixed_precluster": "sometimes"}
    elif case == "missing_table":
        target, error = "db.nope", TableNotExistException
    elif case == "concurrency":
        kwargs = {"concurrency": 0}
    elif case == "missing_column":
        ds = ray.data.from_arrow(_rows(0, 3).drop_columns(["x"]).rename_columns(
            ["id", "s", "q"]))
    with pytest.raises(error):
        write_paimon(ds, target, {"warehouse": warehouse}, **kwargs)
    assert table.latest_snapshot() is None
    assert _state(warehouse) == before


def test_batch_table_write_write_ray(ray_session, warehouse):
    """pypaimon's BatchTableWrite.write_ray: an append, then an overwrite by the builder's
    spec, by static_partition (static mode), and overwrite=True (spec {})."""
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.s", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["p"],
        options={**DE, "dynamic-partition-overwrite": "false"}), False)
    table = catalog.get_table("db.s")

    def ids():
        return sorted(_read(table, ["id"])["id"].to_pylist())

    def write_ray(rows, builder_spec=None, **kwargs):
        builder = table.new_batch_write_builder()
        if builder_spec is not None:
            builder.overwrite(builder_spec)
        return builder.new_write().write_ray(ray.data.from_arrow(rows), **kwargs)

    assert write_ray(_rows(0, 6)).snapshot_id == 1                       # p0, p1, p2
    write_ray(_rows(0, 0), builder_spec={"p": "p0"})                     # p0 emptied
    assert ids() == [1, 2, 4, 5]
    with pytest.raises(RuntimeError, match="do not belong to this partition"):
        write_ray(_rows(10, 2), static_partition={"p": "p1"})         # ids 10 (p1), 11 (p2)
    assert table.latest_snapshot()["id"] == 2
    write_ray(_rows(12, 2).filter(pa.compute.field("p") == "p0"), static_partition={"p": "p0"})
    assert ids() == [1, 2, 4, 5, 12]
    assert write_ray(_rows(20, 1), overwrite=True).snapshot_id == 4      # {}: the whole table
    assert ids() == [20]
