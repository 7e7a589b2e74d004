"""The Ray jobs with the warehouse on the local S3 server (conftest's ``s3_server``, moto in
server mode) on the session's local Ray (``ray_session``): update_by_row_id,
read_by_row_id, process_row_id_ranges (with a resume key), read_paimon / write_paimon and
map_with_blobs over BLOB descriptors give the same results as the same calls on a local
warehouse, and after every job the bucket holds no object that no snapshot references (the
snapshots' files as pypaimon lists them, ``files`` command of the oracle). Ray workers open
the warehouse from the options a pickled table carries; nothing reads a local path.

Small tables (tens of rows) so the suite adds seconds, not minutes.
"""
from __future__ import annotations

from typing import Dict, List

import pyarrow as pa
import pytest

import ours

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.native, pytest.mark.ray, pytest.mark.s3]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("x", pa.float64()), ("n", pa.int32())])
BLOB_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                         ("pic", pa.large_binary())])
BLOB_OPTIONS = {**DE, "blob.target-file-size": "16 kb"}
DESCRIPTORS = {"blob-as-descriptor": "true"}


def _rows(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "x": [float(i) for i in ids], "n": [i % 5 for i in ids]},
                    schema=SCHEMA)


def _payload(i: int) -> bytes:
    return bytes([(i * 13 + 7) % 256]) * (0, 3, 700, 6000)[i % 4]


def _blob_rows(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "name": [f"n{i}" for i in ids],
                     "pic": pa.array([None if i % 9 == 4 else _payload(i) for i in ids],
                                     pa.large_binary())}, schema=BLOB_SCHEMA)


def _create(options: Dict[str, str], name: str, schema: pa.Schema, table_options, batches):
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create(options)
    catalog.create_database("db", True)
    catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(schema, options=table_options),
                         False)
    table = catalog.get_table(f"db.{name}")
    for data in batches:
        ours.write(table, data)
    return table


def _read_all(options: Dict[str, str], identifier: str) -> pa.Table:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create(options).get_table(identifier)
    builder = table.new_read_builder().with_projection(["_ROW_ID"] + table.field_names)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


def _collect(ds) -> pa.Table:
    parts = [b for b in ray.get(ds.to_arrow_refs()) if b.num_rows]
    return pa.concat_tables(parts) if parts else pa.table({})


@pytest.fixture
def places(s3_server, tmp_path):
    """Catalog options of an empty local warehouse and an empty one on the S3 server."""
    local = tmp_path / "warehouse"
    local.mkdir()
    uri = s3_server.fresh_warehouse("ray-s3")
    return {"local": {"warehouse": str(local)}, "s3": s3_server.catalog_options(uri)}


def _assert_no_leftovers(oracle, s3_server, options: Dict[str, str], identifier: str) -> None:
    """Every object under the table's prefix (empty directory markers aside) is one that a
    snapshot references: nothing uncommitted, no temp or probe object."""
    from ours import s3_unreferenced_keys
    assert s3_server.list_keys(options["warehouse"]), "nothing stored"
    leftovers = s3_unreferenced_keys(oracle, s3_server, options, identifier)
    assert not leftovers, f"objects no snapshot references: {leftovers}"


# ------------------------------------------------------------------------- row-id jobs

def test_row_id_jobs_on_s3_equal_local(ray_session, s3_server, places, oracle):
    from paimon_rowid.ray import read_by_row_id, update_by_row_id
    updated = [0, 3, 9, 10, 17, 24, 29]
    source = pa.table({"_ROW_ID": pa.array(updated, pa.int64()),
                       "x": [-1.5 * i for i in updated], "n": [100 + i for i in updated]})
    results = {}
    for where, options in places.items():
        _create(options, "t", SCHEMA, DE, [_rows(0, 10), _rows(10, 10), _rows(20, 10)])
        result = update_by_row_id("db.t", source, options, update_cols=["x", "n"],
                                  num_partitions=2)
        assert result == {"num_updated": len(updated)}, where
        got = _collect(read_by_row_id("db.t", pa.table({"_ROW_ID": [29, 1, 10, 17, 5]}),
                                      options, projection=["id", "x", "n"], num_partitions=2))
        results[where] = (_read_all(options, "db.t"), got.sort_by("_ROW_ID"))
    assert results["s3"][0].equals(results["local"][0])
    assert results["s3"][1].equals(results["local"][1])
    rows = {r["_ROW_ID"]: r for r in results["s3"][0].to_pylist()}
    assert rows[17]["x"] == -25.5 and rows[17]["n"] == 117 and rows[5]["x"] == 5.0
    assert results["s3"][1]["_ROW_ID"].to_pylist() == [1, 5, 10, 17, 29]
    _assert_no_leftovers(oracle, s3_server, places["s3"], "db.t")


def test_process_row_id_ranges_on_s3_equal_local(ray_session, s3_server, places, oracle):
    from paimon_rowid.ray import process_row_id_ranges, read_by_row_id, update_by_row_id
    finals, batches = {}, {}
    for where, options in places.items():
        _create(options, "r", SCHEMA, DE, [_rows(0, 8), _rows(8, 8), _rows(16, 8)])
        seen: List[List[tuple]] = []

        def processor(ranges, options=options, seen=seen):
            seen.append([(r.from_, r.to) for r in ranges])
            ids = pa.table({"_ROW_ID": [i for r in ranges for i in range(r.from_, r.to + 1)]})
            rows = _collect(read_by_row_id("db.r", ids, options, projection=["x"]))
            update_by_row_id("db.r", pa.table({"_ROW_ID": rows["_ROW_ID"],
                                               "x": pa.compute.multiply(rows["x"], 2.0)}),
                             options, update_cols=["x"])

        process_row_id_ranges("db.r", options, rows_per_commit=10, processor=processor,
                              resume_key="double")
        # A rerun with the same key skips every batch: nothing processed, nothing written.
        process_row_id_ranges("db.r", options, rows_per_commit=10, processor=processor,
                              resume_key="double")
        finals[where], batches[where] = _read_all(options, "db.r"), seen
    assert batches["s3"] == batches["local"] == [[(0, 7), (8, 15)], [(16, 23)]]
    assert finals["s3"].equals(finals["local"])
    assert finals["s3"]["x"].to_pylist() == [2.0 * i for i in range(24)]
    _assert_no_leftovers(oracle, s3_server, places["s3"], "db.r")


# ------------------------------------------------------------------------- read/write_paimon

def test_read_write_paimon_on_s3_equal_local(ray_session, s3_server, places, oracle):
    from paimon_rowid.ray import read_paimon, write_paimon
    data = _rows(100, 40)
    got = {}
    for where, options in places.items():
        _create(options, "w", SCHEMA, DE, [_rows(0, 5)])
        ds = ray.data.from_arrow(data).repartition(3)
        result = write_paimon(ds, "db.w", options)
        assert result.row_count == 40, where
        read = _collect(read_paimon("db.w", options, projection=["_ROW_ID", "id", "x", "n"]))
        got[where] = read.sort_by("id")
    assert got["s3"].equals(got["local"])
    assert got["s3"]["id"].to_pylist() == list(range(5)) + list(range(100, 140))
    assert got["s3"].num_rows == 45
    _assert_no_leftovers(oracle, s3_server, places["s3"], "db.w")
    # The check sees an object no snapshot references (what a lost task could leave).
    from ours import s3_unreferenced_keys
    from paimon_rowid import CatalogFactory
    from s3_server import split_uri
    bucket, key = split_uri(CatalogFactory.create(places["s3"]).get_table("db.w").path)
    s3_server.client().put_object(Bucket=bucket, Key=f"{key}/bucket-0/data-stray.parquet",
                                  Body=b"x")
    assert s3_unreferenced_keys(oracle, s3_server, places["s3"], "db.w") == [
        "bucket-0/data-stray.parquet"]


# ------------------------------------------------------------------------- BLOBs

def _blob_fn():
    def fn(scalar: pa.Table, blobs) -> pa.Table:
        return pa.table({"id": scalar["id"], "pic": pa.array(blobs["pic"], pa.large_binary())})
    return fn


def test_map_with_blobs_on_s3_equal_local(ray_session, s3_server, places, oracle):
    from paimon_rowid import BlobDescriptor, CatalogFactory
    from paimon_rowid import map_with_blobs as map_in_process
    from paimon_rowid.blob import resolve_blobs
    from paimon_rowid.ray import map_with_blobs, read_by_row_id, read_paimon, write_paimon
    expected = _blob_rows(0, 24)["pic"].to_pylist()
    got = {}
    for where, options in places.items():
        table = _create(options, "b", BLOB_SCHEMA, BLOB_OPTIONS,
                        [_blob_rows(0, 12), _blob_rows(12, 12)])
        ds = read_paimon("db.b", options, dynamic_options=DESCRIPTORS)
        mapped = _collect(map_with_blobs(ds, ["pic"], _blob_fn(), batch_size=5,
                                         parallelism=3)).sort_by("id")
        by_ids = _collect(map_with_blobs(
            read_by_row_id("db.b", pa.table({"_ROW_ID": [23, 4, 7]}), options,
                           projection=["id", "pic"], dynamic_options=DESCRIPTORS),
            "pic", _blob_fn(), all_blob_columns=["pic"])).sort_by("id")
        # write_paimon of a descriptor Dataset copies the payloads (read through FileIO).
        _create(options, "copy", BLOB_SCHEMA, BLOB_OPTIONS, [])
        write_paimon(read_paimon("db.b", options, dynamic_options=DESCRIPTORS), "db.copy",
                     options)
        copied = _read_all(options, "db.copy").sort_by("id")
        # In process: descriptors read embedded, then resolved with the table's options.
        local = table.copy(DESCRIPTORS)
        builder = local.new_read_builder()
        descriptors = builder.new_read().to_arrow(builder.new_scan().plan().splits())
        descriptors = descriptors.sort_by("id")
        embedded = pa.concat_tables(map_in_process(descriptors.select(["id", "pic"]), ["pic"],
                                                   _blob_fn(), batch_size=7,
                                                   catalog_options=options))
        resolved = resolve_blobs(descriptors, ["pic"], catalog_options=table)["pic"]
        first = BlobDescriptor.deserialize(descriptors["pic"][1].as_py())
        assert first.read(catalog_options=options) == expected[1]
        got[where] = (mapped, by_ids, copied, embedded, resolved)
        assert mapped["pic"].to_pylist() == expected, where
        assert by_ids["pic"].to_pylist() == [expected[4], expected[7], expected[23]], where
        assert copied["pic"].to_pylist() == expected, where
        assert embedded["pic"].to_pylist() == expected, where
        assert resolved == expected, where
        if where == "s3":
            assert first.uri.startswith("s3://"), first
            # Without the options an object-store uri is refused before any request.
            with pytest.raises(NotImplementedError):
                first.read()
            assert CatalogFactory.create(options).get_table("db.b").file_io_options
        else:
            assert table.file_io_options == {}
    for a, b in zip(got["s3"], got["local"]):
        assert a == b if isinstance(a, list) else a.equals(b)
    for name in ("db.b", "db.copy"):
        _assert_no_leftovers(oracle, s3_server, places["s3"], name)
