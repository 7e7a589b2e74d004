"""A tour of the public API: every name of ``paimon_rowid.__all__`` and ``paimon_rowid.ray``'s,
and the main methods of the catalog, table, read, write, update and commit objects, in one
script that runs embedded (``--ray`` adds the Ray calls on a local Ray). Global indexes and
``lookup_row_ids``, tags, rollback and the catalog's table calls always run; the search
builders run when the optional ``search`` extra is installed; a REST catalog is created only
with ``--rest-uri`` (it needs a server), otherwise that function is type-checked only.

It exists to be type-checked: ``mypy --strict examples/public_api_tour.py`` against an
installed wheel (``tests/test_wheel_install.py``, issue 47 §3) proves the package's public
signatures are annotated and ship with ``py.typed``; the same test runs it in a fresh
virtualenv that has only what ``pip install`` put there.

    python examples/public_api_tour.py [--warehouse DIR] [--ray] [--rest-uri URI --token T]
"""
from __future__ import annotations

import argparse
import importlib.util
import shutil
import tempfile
from typing import Any, Dict, List, Optional

import numpy as np
import pyarrow as pa

import paimon_rowid
from paimon_rowid import (
    BackfillError,
    BackfillProgress,
    BackfillResult,
    BackfillStatus,
    BlobDescriptor,
    Catalog,
    CatalogException,
    CatalogFactory,
    CommitConflictException,
    DatabaseAlreadyExistException,
    DatabaseNoPermissionException,
    DatabaseNotExistException,
    DataField,
    DataType,
    JobProgress,
    Plan,
    Predicate,
    PredicateBuilder,
    Range,
    RangeStatus,
    ReadBuilder,
    RESTException,
    Schema,
    Split,
    Table,
    TableAlreadyExistException,
    TableNoPermissionException,
    TableNotExistException,
    TableRead,
    TableScan,
    TableSchema,
    TagAlreadyExistException,
    TagNotExistException,
    WhenMatched,
    WhenNotMatched,
    backfill,
    backfill_status,
    bucket_join,
    bucket_join_reader,
    compact,
    expire_snapshots,
    lit,
    lookup_row_ids,
    manifest_cache_stats,
    map_with_blobs,
    merge_into,
    process_row_id_ranges,
    range_join,
    read_by_row_id,
    remove_orphan_files,
    set_manifest_cache_capacity,
    source_col,
    target_col,
    update_by_row_id,
)
from paimon_rowid import (
    read_by_row_id as _read_by_row_id_again,
)
from paimon_rowid.schema.schema_change import SchemaChange

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
ERRORS = (CatalogException, DatabaseNotExistException, DatabaseAlreadyExistException,
          TableNotExistException, TableAlreadyExistException, CommitConflictException,
          TagNotExistException, TagAlreadyExistException, BackfillError, RESTException,
          DatabaseNoPermissionException, TableNoPermissionException)


def append(table: Table, data: pa.Table) -> None:
    """One commit of ``data`` through pypaimon's write/commit objects."""
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    try:
        write.write_arrow(data)
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()


def catalog_and_tables(catalog: Catalog) -> Table:
    catalog.create_database("db", True)
    try:
        catalog.create_database("db", False)
    except DatabaseAlreadyExistException:
        pass
    schema = Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("name", pa.string()), ("score", pa.float64())]),
        options=dict(DE))
    catalog.create_table("db.t", schema, True)
    assert catalog.list_databases() == ["db"] and "t" in catalog.list_tables("db")
    table = catalog.get_table("db.t")
    for start in (0, 10, 20):
        ids = list(range(start, start + 10))
        append(table, pa.table({"id": pa.array(ids, pa.int64()),
                                "name": [f"n{i}" for i in ids],
                                "score": [float(i) for i in ids]}))
    catalog.alter_table("db.t", [SchemaChange.set_option("snapshot.num-retained.min", "1")],
                        False)
    fields: List[DataField] = catalog.get_table("db.t").fields
    types: List[DataType] = [f.type for f in fields]
    table_schema: TableSchema = catalog.get_table("db.t").table_schema
    assert len(types) == len(table_schema.fields) == 3
    return catalog.get_table("db.t")


def reads(table: Table) -> None:
    builder: ReadBuilder = table.new_read_builder().with_projection(["id", "name"])
    pb: PredicateBuilder = builder.new_predicate_builder()
    predicate: Optional[Predicate] = pb.and_predicates([pb.greater_or_equal("id", 5),
                                                        pb.less_than("id", 25)])
    assert predicate is not None
    scan: TableScan = builder.with_filter(predicate).new_scan()
    plan: Plan = scan.plan()
    splits: List[Split] = plan.splits()
    read: TableRead = builder.new_read()
    rows = read.to_arrow(splits, parallelism=2)
    assert rows.num_rows == 20, rows.num_rows
    assert read.to_arrow_batch_reader(splits).read_all().num_rows == 20
    assert len(read.to_pandas(splits)) == 20
    ranged = table.new_read_builder().new_scan().with_row_ranges([Range(0, 9)]).plan()
    assert sum(s.row_count for s in ranged.splits()) == 10


def row_id_jobs(warehouse: str, table: Table) -> None:
    opts: Dict[str, Any] = {"warehouse": warehouse}
    update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([3], pa.int64()),
                                       "name": ["three"]}), opts, update_cols=["name"])
    got = read_by_row_id("db.t", [3, 4], opts, projection=["name"])
    assert got.column("name").to_pylist() == ["three", "n4"]
    assert _read_by_row_id_again("db.t", [0], opts, projection=["id"]).num_rows == 1
    seen: List[List[Range]] = []
    process_row_id_ranges("db.t", opts, rows_per_commit=10, processor=seen.append)
    assert sum(len(b) for b in seen) == 3

    def double(inputs: pa.Table) -> pa.Array:
        return pa.array([2.0 * float(v) for v in inputs.column("id").to_pylist()])

    progress: List[BackfillProgress] = []
    result: BackfillResult = backfill("db.t", opts, column="score", fn=double,
                                      input_columns=["id"], version="v1", progress=False,
                                      on_progress=progress.append)
    status: BackfillStatus = backfill_status("db.t", opts, result.key)
    done: List[RangeStatus] = status.done
    assert result.rows_computed == 30 and status.rows_pending == 0 and done
    merged = merge_into("db.t", pa.table({"id": pa.array([1, 99], pa.int64()),
                                          "name": ["one", "new"]}), opts, on=["id"],
                        when_matched=[WhenMatched.update({"name": source_col("name"),
                                                          "score": target_col("score")})],
                        when_not_matched=[WhenNotMatched(insert={"id": source_col("id"),
                                                                 "name": source_col("name"),
                                                                 "score": lit(0.0)})])
    assert merged["num_matched"] == 1 and merged["num_inserted"] == 1


def joins(catalog: Catalog, warehouse: str) -> None:
    opts: Dict[str, str] = {"warehouse": warehouse}
    bucketed = {"bucket": "2", "bucket-key": "k"}
    for name, column in (("left", "a"), ("right", "b")):
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
            pa.schema([("k", pa.int64()), (column, pa.string())]), options=bucketed), True)
        append(catalog.get_table(f"db.{name}"),
               pa.table({"k": pa.array(range(6), pa.int64()),
                         column: [f"{column}{i}" for i in range(6)]}))
    assert bucket_join("db.left", "db.right", opts, on="k").num_rows == 6
    assert bucket_join_reader("db.left", "db.right", opts, on="k").read_all().num_rows == 6
    assert range_join("db.left", "db.right", opts, on="k").num_rows == 6


def blobs(catalog: Catalog, warehouse: str) -> None:
    catalog.create_table("db.blobs", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64()), ("image", pa.large_binary())]), options=dict(DE)), True)
    table = catalog.get_table("db.blobs")
    append(table, pa.table({"id": pa.array([1, 2], pa.int64()),
                            "image": pa.array([b"ab", b"cde"], pa.large_binary())}))
    described = table.copy({"blob-as-descriptor": "true"})
    builder = described.new_read_builder()
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    first = BlobDescriptor.deserialize(data.column("image")[0].as_py())
    assert first.length in (2, 3)

    def sizes(batch: pa.RecordBatch, cells: Dict[str, List[Any]]) -> Dict[str, Any]:
        return {"id": batch.column(0), "size": [len(c or b"") for c in cells["image"]]}

    out = map_with_blobs(data, ["image"], sizes, catalog_options={"warehouse": warehouse})
    assert sorted(s for part in out for s in part["size"]) == [2, 3]


def maintenance(table: Table, warehouse: str) -> None:
    opts = {"warehouse": warehouse}
    jobs: List[JobProgress] = []
    compact("db.t", opts, full=True, on_progress=jobs.append)
    table.create_tag("tour", ignore_if_exists=True)
    assert "tour" in table.list_tags()
    expire_snapshots("db.t", opts, retain_max=2, retain_min=1, on_progress=jobs.append)
    remove_orphan_files("db.t", opts, dry_run=True, on_progress=jobs.append)
    assert table.create_global_index("id", "btree", on_progress=jobs.append) >= 0
    assert jobs and all(p.done <= p.total for p in jobs)
    set_manifest_cache_capacity(64 << 20)
    assert "bytes" in manifest_cache_stats() or manifest_cache_stats() is not None


def indexes_and_lookups(table: Table, warehouse: str) -> None:
    """A btree index, ``lookup_row_ids`` through it, and dropping it."""
    opts = {"warehouse": warehouse}
    jobs: List[JobProgress] = []
    added = table.create_global_index("name", "btree", progress=False, on_progress=jobs.append)
    assert added >= 1 and jobs[-1].finished and jobs[-1].done == jobs[-1].total
    found: pa.Table = lookup_row_ids("db.t", ["n4", "n5", "absent"], "name", opts)
    assert found.column("_ROW_ID").to_pylist() == [4, 5]
    assert table.drop_global_index("name", "btree", dry_run=True) == added
    assert table.drop_global_index("name") == added


def tags_rollback_and_catalog_calls(catalog: Catalog) -> None:
    """Tags, rollback and the catalog's table calls on a scratch table, dropped at the end."""
    catalog.create_table("db.scratch", Schema.from_pyarrow_schema(
        pa.schema([("id", pa.int64())]), options=dict(DE)), True)
    scratch = catalog.get_table("db.scratch")
    append(scratch, pa.table({"id": pa.array([1], pa.int64())}))
    scratch.create_tag("one")
    append(scratch, pa.table({"id": pa.array([2], pa.int64())}))
    scratch.rename_tag("one", "first")
    scratch.create_tag("second")
    scratch.replace_tag("second", snapshot_id=1)
    assert catalog.get_tag("db.scratch", "first") is not None
    assert [t for t in catalog.list_tags_paged("db.scratch").elements] == ["first", "second"]
    assert scratch.delete_tag("second")
    assert len(scratch.list_snapshots()) == 2
    scratch.rollback_to("first")
    latest = catalog.get_table("db.scratch").latest_snapshot()
    assert latest is not None and latest.id == 1
    partitions = catalog.list_partitions_paged("db.scratch").elements
    assert [(p.spec, p.record_count) for p in partitions] == [({}, 1)]  # the rolled-back one
    assert catalog.get_database("db").name == "db"
    catalog.rename_table("db.scratch", "db.scratch2")
    catalog.drop_table("db.scratch2", False)


def search(catalog: Catalog) -> None:
    """pypaimon's search builders over a vector and a full-text index (needs the optional
    ``search`` extra: paimon-vindex, paimon-ftindex)."""
    schema = pa.schema([("id", pa.int64()), ("emb", pa.list_(pa.float32(), 4)),
                        ("body", pa.string())])
    catalog.create_table("db.docs", Schema.from_pyarrow_schema(schema, options=dict(DE)), True)
    docs = catalog.get_table("db.docs")
    vectors = np.random.default_rng(0).standard_normal((64, 4)).astype(np.float32)
    append(docs, pa.table({"id": pa.array(range(64), pa.int64()),
                           "emb": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), 4),
                           "body": [f"red apple {i}" if i % 2 else f"pear {i}"
                                    for i in range(64)]}, schema=schema))
    assert docs.create_global_index("emb", index_type="ivf-flat") >= 1
    assert docs.create_global_index("body", index_type="full-text") >= 1
    nearest = (docs.new_vector_search_builder().with_vector_column("emb")
               .with_query_vector(vectors[7]).with_limit(3).execute_local())
    assert len(nearest) == 3 and nearest.to_arrow(docs, ["id"]).num_rows == 3
    batch = (docs.new_batch_vector_search_builder().with_vector_column("emb")
             .with_query_vectors(vectors[:2]).with_limit(2).execute_batch_local())
    assert [len(r) for r in batch] == [2, 2]
    text = docs.new_full_text_search_builder().with_query("body", "apple").with_limit(5)
    assert len(text.execute_local()) == 5
    hybrid = (docs.new_hybrid_search_builder().with_limit(5)
              .add_vector_route("emb", vectors[3], 10).add_full_text_route("body", "apple", 10)
              .execute_local())
    assert len(hybrid) == 5


def rest_catalog(uri: str, token: str, warehouse: str) -> Catalog:
    """A REST catalog (docs/rest-catalog.md): the same calls as the filesystem one."""
    catalog = CatalogFactory.create({"metastore": "rest", "uri": uri, "warehouse": warehouse,
                                     "token.provider": "bear", "token": token})
    catalog.list_databases()
    return catalog


def on_ray(warehouse: str) -> None:
    import ray

    from paimon_rowid import ray as pray
    opts = {"warehouse": warehouse}
    ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        pray.update_by_row_id("db.t", pa.table({"_ROW_ID": pa.array([5], pa.int64()),
                                                "name": ["five"]}), opts, update_cols=["name"])
        assert pray.read_by_row_id("db.t", [5], opts, projection=["name"]).count() == 1
        pray.process_row_id_ranges("db.t", opts, rows_per_commit=10,
                                   processor=lambda ranges: None)
        dataset = pray.read_paimon("db.t", opts)
        written: Optional[pray.PaimonWriteResult] = pray.write_paimon(
            dataset.select_columns(["id", "name", "score"]), "db.t", opts)
        assert written is not None
        pray.compact("db.t", opts, full=True)
        pray.backfill("db.t", opts, column="score", fn=lambda t: t.column("id"),
                      input_columns=["id"], version="ray", progress=False)
        assert pray.backfill_status("db.t", opts, "score@ray").rows_pending == 0
        pray.bucket_join("db.left", "db.right", opts, on="k").count()
        pray.range_join("db.left", "db.right", opts, on="k").count()
        pray.merge_into("db.t", pa.table({"id": pa.array([2], pa.int64()), "name": ["two"],
                                          "score": [2.0]}),
                        opts, on=["id"], when_matched=[pray.WhenMatched.update(
                            {"name": pray.source_col("name"), "score": pray.lit(2.5)})],
                        when_not_matched=[pray.WhenNotMatched(insert="*")])
        assert pray.target_col("score") is not None
        pray.map_with_blobs(pray.read_paimon("db.blobs", opts, dynamic_options={
            "blob-as-descriptor": "true"}), ["image"],
            lambda batch, cells: {"id": batch["id"]}).count()
        jobs: List[JobProgress] = []
        assert pray.create_global_index("db.t", opts, "name", num_tasks=2,
                                        on_progress=jobs.append) >= 1
        assert jobs[-1].finished
        embedded = lookup_row_ids("db.t", ["n6"], "name", opts)  # twice: write_paimon above
        assert pray.lookup_row_ids("db.t", ["n6"], "name", opts).count() == \
            embedded.num_rows == 2
        # search on Ray needs the optional 'search' extra and a vector column (docs/search.md)
        assert callable(pray.create_search_index) and callable(pray.batch_vector_search)
    finally:
        ray.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--warehouse", help="a warehouse directory (default: a temp dir)")
    parser.add_argument("--ray", action="store_true", help="also run the Ray calls")
    parser.add_argument("--rest-uri", help="also open a REST catalog at this URI")
    parser.add_argument("--token", default="token", help="the REST catalog's bearer token")
    args = parser.parse_args()
    warehouse = args.warehouse or tempfile.mkdtemp(prefix="paimon-rowid-tour-")
    try:
        catalog = CatalogFactory.create({"warehouse": warehouse})
        table = catalog_and_tables(catalog)
        reads(table)
        row_id_jobs(warehouse, table)
        joins(catalog, warehouse)
        blobs(catalog, warehouse)
        indexes_and_lookups(catalog.get_table("db.t"), warehouse)
        tags_rollback_and_catalog_calls(catalog)
        maintenance(catalog.get_table("db.t"), warehouse)
        if all(importlib.util.find_spec(m) for m in ("paimon_vindex", "paimon_ftindex")):
            search(catalog)
        if args.rest_uri:
            rest_catalog(args.rest_uri, args.token, "tour").list_databases()
        if args.ray:
            on_ray(warehouse)
        assert all(issubclass(e, Exception) for e in ERRORS)
        assert set(paimon_rowid.__all__) <= set(dir(paimon_rowid))
        print(f"public API tour: OK ({warehouse})")
    finally:
        if not args.warehouse:
            shutil.rmtree(warehouse, ignore_errors=True)


if __name__ == "__main__":
    main()
