"""paimon_rowid.ray.map_with_blobs on a real local Ray (conftest's ``ray_session``): BLOB
descriptors read by read_paimon / read_by_row_id with ``blob-as-descriptor`` resolve to the
original payloads (equal to the in-process map_with_blobs); descriptor Datasets written with
write_paimon copy the payloads (pypaimon reads them); every validation raises ValueError."""
from __future__ import annotations

import pyarrow as pa
import pytest

ray = pytest.importorskip("ray")

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
# Small blob files so that the payloads live in several rolled .blob files.
BLOB_OPTIONS = {**DE, "blob.target-file-size": "64 kb"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                    ("pic", pa.large_binary()), ("doc", pa.large_binary())])
DESCRIPTORS = {"blob-as-descriptor": "true"}


def _payload(row: int) -> bytes:
    size = (0, 1, 300, 5000, 40_000)[row % 5]
    return bytes([(row * 11 + 1) % 256]) * size


def _rows(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({"id": ids, "name": [f"n{i}" for i in ids],
                     "pic": pa.array([None if i % 7 == 3 else _payload(i) for i in ids],
                                     pa.large_binary()),
                     "doc": pa.array([f"doc-{i}".encode() for i in ids], pa.large_binary())},
                    schema=SCHEMA)


def _create(warehouse, name="t"):
    from paimon_rowid import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(SCHEMA, options=BLOB_OPTIONS),
                         False)
    return catalog.get_table(f"db.{name}")


def _write(table, data):
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())
    write.close()


@pytest.fixture
def blob_table(warehouse):
    table = _create(warehouse)
    _write(table, _rows(0, 30))
    _write(table, _rows(30, 25))
    return table


def _echo_fn():
    """fn for map_with_blobs (built here so that Ray pickles it by value): returns the ids,
    the scalar column names and the fetched payloads."""

    def echo(scalar: pa.Table, blobs, *, tag: str) -> pa.Table:
        n = scalar.num_rows
        return pa.table({"id": scalar["id"],
                         "scalar": pa.array([",".join(scalar.column_names)] * n),
                         "tag": pa.array([tag] * n),
                         "batch_rows": pa.array([n] * n, pa.int64()),
                         "pic": pa.array(blobs["pic"], pa.large_binary())})

    return echo


def _collect(ds) -> pa.Table:
    return pa.concat_tables([b for b in ray.get(ds.to_arrow_refs()) if b.num_rows])


def test_read_paimon_descriptors_resolve_to_payloads(ray_session, warehouse, blob_table):
    from paimon_rowid import map_with_blobs as map_in_process
    from paimon_rowid.ray import map_with_blobs, read_paimon
    expected = _rows(0, 55)
    ds = read_paimon("db.t", {"warehouse": warehouse}, dynamic_options=DESCRIPTORS)
    assert ds._paimon_blob_columns == ["pic", "doc"]  # tagged for map_with_blobs
    got = _collect(map_with_blobs(ds, ["pic"], _echo_fn(), batch_size=7, parallelism=4,
                                  fn_kwargs={"tag": "x"},
                                  ray_remote_args={"num_cpus": 1})).sort_by("id")
    assert got["pic"].to_pylist() == expected["pic"].to_pylist()
    assert got["id"].to_pylist() == expected["id"].to_pylist()
    assert set(got["scalar"].to_pylist()) == {"id,name"}  # every BLOB column is left out
    assert set(got["tag"].to_pylist()) == {"x"}
    assert max(got["batch_rows"].to_pylist()) <= 7

    # Same as the in-process helper over the in-process descriptor read.
    table = blob_table.copy(DESCRIPTORS)
    builder = table.new_read_builder()
    local = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    echo = _echo_fn()
    parts = map_in_process(local.drop_columns(["doc"]), ["pic"],
                           lambda s, b: echo(s, b, tag="x"), batch_size=7)
    assert pa.concat_tables(parts).sort_by("id")["pic"].equals(got["pic"])


def test_read_by_row_id_descriptors_resolve_to_payloads(ray_session, warehouse, blob_table):
    from paimon_rowid.ray import map_with_blobs, read_by_row_id
    ids = [54, 2, 3, 31, 17, 4]
    ds = read_by_row_id("db.t", pa.table({"_ROW_ID": ids}), {"warehouse": warehouse},
                        projection=["id", "pic"], dynamic_options=DESCRIPTORS)
    got = _collect(map_with_blobs(ds, "pic", _echo_fn(), all_blob_columns=["pic"],
                                  fn_kwargs={"tag": "r"})).sort_by("id")
    assert got["id"].to_pylist() == sorted(ids)
    assert got["pic"].to_pylist() == [None if i % 7 == 3 else _payload(i) for i in sorted(ids)]
    assert set(got["scalar"].to_pylist()) == {"id,_ROW_ID"}


def test_write_paimon_copies_descriptor_payloads(ray_session, warehouse, blob_table, oracle):
    from paimon_rowid.ray import read_paimon, write_paimon
    target = _create(warehouse, "copy")
    ds = read_paimon("db.t", {"warehouse": warehouse}, dynamic_options=DESCRIPTORS)
    result = write_paimon(ds, "db.copy", {"warehouse": warehouse})
    assert result.row_count == 55 and result.snapshot_id == 1
    builder = target.new_read_builder()
    ours = builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")
    assert ours.equals(_rows(0, 55))
    theirs = oracle.read(warehouse, "db.copy").sort_by("id")
    assert theirs.to_pylist() == ours.to_pylist()


def _descriptor_dataset(warehouse, blob_table):
    table = blob_table.copy(DESCRIPTORS)
    builder = table.new_read_builder().with_projection(["id", "pic"])
    data = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return ray.data.from_arrow(data), data


@pytest.mark.parametrize("case", ["fn", "columns", "parallelism", "batch_size", "batch_format",
                                  "no_blob_metadata", "not_blob", "missing_column", "affinity",
                                  "prefetch", "nested_not_blob", "nested_overlap"])
def test_map_with_blobs_validation(ray_session, warehouse, blob_table, case):
    from paimon_rowid.ray import map_with_blobs
    ds, _ = _descriptor_dataset(warehouse, blob_table)
    args = {"columns": ["pic"], "fn": _echo_fn()}
    kwargs = {"all_blob_columns": ["pic"]}
    if case == "fn":
        args["fn"] = "not callable"
    elif case == "columns":
        args["columns"] = []
    elif case == "parallelism":
        kwargs["parallelism"] = 0
    elif case == "batch_size":
        kwargs["batch_size"] = 0
    elif case == "batch_format":
        kwargs["batch_format"] = "pandas"
    elif case == "no_blob_metadata":
        kwargs = {}
    elif case == "not_blob":
        args["columns"] = ["id"]
    elif case == "missing_column":
        kwargs["all_blob_columns"] = ["pic", "gone"]
        args["columns"] = ["gone"]
    elif case == "affinity":
        kwargs.update(blob_uri_affinity=True, batch_size=None)
    elif case == "prefetch":
        kwargs["prefetch_bytes"] = 0
    elif case == "nested_not_blob":  # pypaimon: nested columns must be BLOB columns
        kwargs["array_blob_columns"] = ["id"]
    elif case == "nested_overlap":  # ... and not both ARRAY and MAP
        kwargs.update(array_blob_columns=["pic"], map_blob_columns=["pic"])
    with pytest.raises(ValueError):
        map_with_blobs(ds, args["columns"], args["fn"], **kwargs)


@pytest.mark.parametrize("case, match", [("none_result", "not None"),
                                         ("foreign_descriptors", "other_pic")])
def test_map_with_blobs_runtime_errors(ray_session, warehouse, blob_table, case, match):
    from paimon_rowid.ray import map_with_blobs
    _, data = _descriptor_dataset(warehouse, blob_table)
    fn = _echo_fn()
    if case == "none_result":
        def fn(scalar, blobs):  # noqa: F811
            return None
        kwargs = {}
    else:  # a descriptor column of another (joined) table the caller did not declare
        data = data.append_column("other_pic", data["pic"].cast(pa.binary()))
        kwargs = {"fn_kwargs": {"tag": "t"}}
    with pytest.raises(Exception, match=match) as info:
        _collect(map_with_blobs(ray.data.from_arrow(data), ["pic"], fn,
                                all_blob_columns=["pic"], **kwargs))
    assert "ValueError" in str(info.value) or isinstance(info.value, ValueError)


def test_descriptor_detection_in_nested_columns():
    """The scalar-column check (no Ray needed): binary values, list elements, map values."""
    from paimon_rowid import BlobDescriptor
    from paimon_rowid.ray.blobs import _holds_descriptor
    raw = BlobDescriptor("/tmp/x.blob", 4, 10).serialize()
    assert _holds_descriptor(pa.array([None, b"plain", raw], pa.binary()))
    assert _holds_descriptor(pa.array([raw], pa.large_binary()))
    assert not _holds_descriptor(pa.array([None, b"plain", raw[:8]], pa.binary()))
    assert not _holds_descriptor(pa.array([None, None], pa.binary()))
    assert not _holds_descriptor(pa.array([raw.decode("latin-1")], pa.string()))  # top level
    assert _holds_descriptor(pa.array([[b"a"], None, [b"b", raw]], pa.list_(pa.binary())))
    assert _holds_descriptor(pa.array([[("k", raw)]], pa.map_(pa.string(), pa.binary())))
    assert not _holds_descriptor(pa.array([[("k", b"v")]], pa.map_(pa.string(), pa.binary())))
    assert not _holds_descriptor(pa.array([1, 2], pa.int64()))


NESTED_SCHEMA = pa.schema([("id", pa.int64()), ("pics", pa.list_(pa.large_binary())),
                          ("named", pa.map_(pa.string(), pa.large_binary()))])


def _nested_rows(start: int, count: int) -> pa.Table:
    pics, named = [], []
    for i in range(start, start + count):
        pics.append(None if i % 5 == 4 else [_payload(i), None, _payload(i + 1)][: 1 + i % 3])
        named.append(None if i % 6 == 5 else [("a", _payload(i + 2)), ("b", None)][: i % 3])
    return pa.table({"id": list(range(start, start + count)),
                     "pics": pa.array(pics, NESTED_SCHEMA.field("pics").type),
                     "named": pa.array(named, NESTED_SCHEMA.field("named").type)},
                    schema=NESTED_SCHEMA)


def _nested_fn():
    """Echoes the fetched ARRAY<BLOB> / MAP<K, BLOB> cells as Python-comparable columns."""

    def echo(scalar: pa.Table, blobs) -> pa.Table:
        return pa.table({"id": scalar["id"],
                         "pics": pa.array(blobs["pics"], pa.list_(pa.large_binary())),
                         "named": pa.array(blobs["named"],
                                           pa.map_(pa.string(), pa.large_binary()))})

    return echo


def test_map_with_blobs_nested_columns(ray_session, warehouse):
    """ARRAY<BLOB> cells reach fn as lists of payloads and MAP<K, BLOB> cells as (key,
    payload) pairs, nulls kept (pypaimon's shapes); read_paimon marks the nested columns, and
    the in-process map_with_blobs gives the same."""
    from paimon_rowid import CatalogFactory, Schema
    from paimon_rowid.blob import map_with_blobs as local_map_with_blobs
    from paimon_rowid.ray import map_with_blobs, read_paimon
    catalog = CatalogFactory.create({"warehouse": warehouse})
    catalog.create_database("db", True)
    catalog.create_table("db.n", Schema.from_pyarrow_schema(NESTED_SCHEMA, options=BLOB_OPTIONS),
                         False)
    table = catalog.get_table("db.n")
    expected = pa.concat_tables([_nested_rows(0, 20), _nested_rows(20, 13)])
    _write(table, expected.slice(0, 20))
    _write(table, expected.slice(20))
    ds = read_paimon("db.n", {"warehouse": warehouse}, dynamic_options=DESCRIPTORS)
    assert ds._paimon_array_blob_columns == ["pics"]
    assert ds._paimon_map_blob_columns == ["named"]
    got = _collect(map_with_blobs(ds, ["pics", "named"], _nested_fn(), batch_size=7))
    assert got.sort_by("id").to_pylist() == expected.to_pylist()

    builder = table.copy(DESCRIPTORS).new_read_builder()
    described = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    local = pa.concat_tables(local_map_with_blobs(described, ["pics", "named"], _nested_fn(),
                                                  batch_size=5))
    assert local.sort_by("id").to_pylist() == expected.to_pylist()
