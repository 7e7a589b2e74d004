"""BLOB and VECTOR columns: compatibility with pypaimon both ways on one warehouse (payloads
and descriptors, rolled .blob files, blob updates with placeholders), bytes read by a sparse
read, descriptor inputs, VECTOR round trips and errors, and the Python BLOB helpers."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Dict, List, Optional

import pyarrow as pa
import pytest

import oracle as oracle_pkg
import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                    ("pic", pa.large_binary()), ("doc", pa.large_binary())])
# Small blob files so that writes roll several .blob files per data file.
BLOB_OPTIONS = {**DE, "blob.target-file-size": "256 kb"}


def _payload(row: int, size: int) -> bytes:
    return bytes([(row * 7 + 3) % 256]) * size if size else b""


def _blob_rows(start: int, count: int, seed: int) -> pa.Table:
    """Rows with nulls, empty values and payloads from 0 B to 3 MiB."""
    rnd = random.Random(seed)
    sizes = [0, 1, 17, 4096, 100_000]
    ids, names, pics, docs = [], [], [], []
    for i in range(start, start + count):
        ids.append(i)
        names.append(f"n{i}")
        r = rnd.random()
        size = (5 << 20 if i % 44 == 0 else 1 << 20 if i % 22 == 0
                else sizes[rnd.randrange(len(sizes))])
        pics.append(None if r < 0.15 and i % 22 else _payload(i, size))
        docs.append(None if i % 9 == 0 else b"" if i % 4 == 0 else f"doc-{i}".encode())
    return pa.table({"id": ids, "name": names, "pic": pa.array(pics, pa.large_binary()),
                     "doc": pa.array(docs, pa.large_binary())}, schema=SCHEMA)


_ours, _write_ours = ours.catalog, ours.write


def _create_ours(warehouse, name, schema=SCHEMA, options=BLOB_OPTIONS):
    return ours.create_table(warehouse, name, schema, options)


def _read_ours(table, options: Optional[Dict[str, str]] = None, projection=None) -> pa.Table:
    if options:
        table = table.copy(options)
    builder = table.new_read_builder()
    if projection is not None:
        builder.with_projection(projection)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits())


def _oracle_write(oracle, warehouse, identifier, data: pa.Table):
    path = oracle._path(".arrow")
    oracle_pkg.write_ipc(path, data)
    return oracle.run({"cmd": "write", "warehouse": warehouse, "identifier": identifier,
                       "data_ipc": str(path)})


def _by_row_id(table: pa.Table) -> pa.Table:
    return table.sort_by("_ROW_ID") if "_ROW_ID" in table.schema.names else table.sort_by("id")


def _resolve(descriptors: pa.Table, column: str) -> List[Optional[bytes]]:
    from paimon_rowid import BlobDescriptor
    return [None if v is None else BlobDescriptor.deserialize(v).read()
            for v in descriptors.column(column).to_pylist()]


def _check_both(oracle, warehouse, identifier, expected: pa.Table) -> None:
    """Payload and descriptor reads by both engines agree with each other and `expected`."""
    table = _ours(warehouse).get_table(identifier)
    projection = SCHEMA.names + ["_ROW_ID"]
    theirs, theirs_desc = oracle.read_many(warehouse, identifier, [
        dict(projection=projection), dict(projection=projection,
                                          options={"blob-as-descriptor": "true"})])
    ours = _read_ours(table, projection=projection)
    ours_desc = _read_ours(table, {"blob-as-descriptor": "true"}, projection=projection)
    theirs, theirs_desc, ours, ours_desc = map(_by_row_id, (theirs, theirs_desc, ours, ours_desc))
    assert ours.select(SCHEMA.names).equals(expected), "our payload read differs from the data"
    assert ours.equals(theirs.cast(ours.schema))
    # Descriptors: byte-identical (same files, same offsets), and they resolve to the payloads.
    assert ours_desc.equals(theirs_desc.cast(ours_desc.schema))
    for column in ("pic", "doc"):
        assert _resolve(ours_desc, column) == expected.column(column).to_pylist()


@pytest.fixture
def blob_table(oracle, warehouse):
    oracle.run(oracle.create_table_cmd(warehouse, "db.t", SCHEMA, options=BLOB_OPTIONS))
    return "db.t"


def test_pypaimon_writes_we_read(oracle, warehouse, blob_table):
    first, second = _blob_rows(0, 40, seed=1), _blob_rows(40, 30, seed=2)
    _oracle_write(oracle, warehouse, blob_table, first)
    _oracle_write(oracle, warehouse, blob_table, second)
    files = oracle.run({"cmd": "files", "warehouse": warehouse, "identifier": blob_table})
    assert sum(f.endswith(".blob") for f in files["data_files"]) > 6  # rolled
    _check_both(oracle, warehouse, blob_table, pa.concat_tables([first, second]))


def test_we_write_pypaimon_reads(oracle, warehouse):
    table = _create_ours(warehouse, "t")
    first, second = _blob_rows(0, 40, seed=3), _blob_rows(40, 35, seed=4)
    _write_ours(table, first)
    _write_ours(table, second)
    blob_files = [p for p in Path(table.path).rglob("*.blob")]
    assert len(blob_files) > 6
    _check_both(oracle, warehouse, "db.t", pa.concat_tables([first, second]))


def test_mixed_writers_one_table(oracle, warehouse, blob_table):
    parts = [_blob_rows(0, 20, seed=5), _blob_rows(20, 20, seed=6), _blob_rows(40, 20, seed=7)]
    _oracle_write(oracle, warehouse, blob_table, parts[0])
    _write_ours(_ours(warehouse).get_table(blob_table), parts[1])
    _oracle_write(oracle, warehouse, blob_table, parts[2])
    _check_both(oracle, warehouse, blob_table, pa.concat_tables(parts))


def test_pypaimon_blob_update_placeholders(oracle, warehouse, blob_table):
    base = _blob_rows(0, 40, seed=8)
    _write_ours(_ours(warehouse).get_table(blob_table), base)
    # pypaimon updates a BLOB column: blob delta files with -2 placeholders for other rows.
    update = pa.table({"_ROW_ID": pa.array([3, 7, 8], pa.int64()),
                       "pic": pa.array([b"three", None, b""], pa.large_binary())})
    path = oracle._path(".arrow")
    oracle_pkg.write_ipc(path, update)
    oracle.run({"cmd": "update_by_row_id", "warehouse": warehouse, "identifier": blob_table,
                "data_ipc": str(path), "columns": ["pic"]})
    pics = base.column("pic").to_pylist()
    pics[3], pics[7], pics[8] = b"three", None, b""
    expected = base.set_column(2, "pic", pa.array(pics, pa.large_binary()))
    _check_both(oracle, warehouse, blob_table, expected)
    # Row ranges and predicates over the merged bunch.
    table = _ours(warehouse).get_table(blob_table)
    builder = table.new_read_builder().with_projection(["id", "pic"])
    predicate = builder.new_predicate_builder().is_in("id", [2, 3, 7, 30])
    got = builder.with_filter(predicate).new_read().to_arrow(
        builder.new_scan().plan().splits()).sort_by("id")
    assert got.column("pic").to_pylist() == [pics[2], b"three", None, pics[30]]


def test_descriptor_inputs_are_copied(oracle, warehouse):
    source = _create_ours(warehouse, "src")
    data = _blob_rows(0, 12, seed=9)
    _write_ours(source, data)
    descriptors = _read_ours(source, {"blob-as-descriptor": "true"}, projection=SCHEMA.names)
    descriptors = descriptors.sort_by("id")
    # Our writer resolves descriptor values and copies the bytes (as pypaimon does).
    target = _create_ours(warehouse, "dst")
    _write_ours(target, descriptors)
    assert _read_ours(target).sort_by("id").equals(data)
    # pypaimon's writer does the same with our descriptors.
    oracle.run(oracle.create_table_cmd(warehouse, "db.dst2", SCHEMA, options=BLOB_OPTIONS))
    _oracle_write(oracle, warehouse, "db.dst2", descriptors)
    assert _read_ours(_ours(warehouse).get_table("db.dst2")).sort_by("id").equals(data)


@pytest.mark.slow
def test_sparse_read_reads_only_the_requested_payloads(warehouse):
    """~1 GiB of blobs; 100 random rows by row id read little more than their payloads."""
    from paimon_rowid.row_id_jobs import read_by_row_id
    table = _create_ours(warehouse, "big", options={**DE, "blob.target-file-size": "128 mb"})
    rows, size = 1024, 1 << 20  # 1 GiB in few large payloads (writing it takes ~5 s)
    for start in range(0, rows, 256):
        ids = list(range(start, start + 256))
        _write_ours(table, pa.table({
            "id": ids, "name": [f"n{i}" for i in ids],
            "pic": pa.array([_payload(i, size + i) for i in ids], pa.large_binary()),
            "doc": pa.array([b"d" * 10 for _ in ids], pa.large_binary())}, schema=SCHEMA))
    total = sum(p.stat().st_size for p in Path(table.path).rglob("*.blob"))
    assert total > 1 << 30
    wanted = sorted(random.Random(11).sample(range(rows), 100))
    options = {"warehouse": warehouse}
    before = ours.rchar()
    got = read_by_row_id("db.big", pa.table({"_ROW_ID": pa.array(wanted, pa.int64())}),
                         options, projection=["id", "pic"])
    read = ours.rchar() - before
    payload = sum(size + i for i in wanted)
    got = got.sort_by("_ROW_ID")
    assert got.column("id").to_pylist() == wanted
    assert got.column("pic").to_pylist() == [_payload(i, size + i) for i in wanted]
    print(f"sparse read: {read} bytes for {payload} payload bytes of {total} blob bytes")
    assert read <= 2 * payload + (4 << 20), (read, payload)
    # Descriptors only: no payload bytes at all.
    before = ours.rchar()
    desc = read_by_row_id("db.big", pa.table({"_ROW_ID": pa.array(wanted, pa.int64())}),
                          options, projection=["pic"],
                          dynamic_options={"blob-as-descriptor": "true"})
    read = ours.rchar() - before
    assert desc.num_rows == 100
    print(f"descriptor read: {read} bytes")
    assert read <= 4 << 20


def test_predicate_skips_payloads_of_filtered_rows(warehouse):
    table = _create_ours(warehouse, "f", options={**DE})
    ids = list(range(50))
    _write_ours(table, pa.table({
        "id": ids, "name": [f"n{i}" for i in ids],
        "pic": pa.array([_payload(i, 1 << 20) for i in ids], pa.large_binary()),
        "doc": pa.array([None] * 50, pa.large_binary())}, schema=SCHEMA))
    builder = table.new_read_builder().with_projection(["id", "pic"])
    builder.with_filter(builder.new_predicate_builder().equal("id", 7))
    splits = builder.new_scan().plan().splits()
    before = ours.rchar()
    got = builder.new_read().to_arrow(splits)
    read = ours.rchar() - before
    assert got.column("pic").to_pylist() == [_payload(7, 1 << 20)]
    assert read < 3 << 20, read


VECTOR_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False),
                           ("emb", pa.list_(pa.float32(), 4)),
                           pa.field("small", pa.list_(pa.int8(), 2), nullable=False)])


def _vector_rows(start: int, count: int, nulls: bool = True) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table({
        "id": ids,
        "emb": pa.array([None if nulls and i % 5 == 0 else [i * 0.5, -1.0, 2.0, float(i)]
                         for i in ids], pa.list_(pa.float32(), 4)),
        "small": pa.array([[i % 100, -(i % 100)] for i in ids], pa.list_(pa.int8(), 2))},
        schema=VECTOR_SCHEMA)


def test_vector_round_trips_both_ways(oracle, warehouse):
    oracle.run(oracle.create_table_cmd(warehouse, "db.v", VECTOR_SCHEMA, options=DE))
    # pypaimon (pyarrow 19) cannot write null vectors ("Lists with non-zero length null
    # components are not supported"); ours can, and pypaimon reads them.
    first, second = _vector_rows(0, 30, nulls=False), _vector_rows(30, 20)
    _oracle_write(oracle, warehouse, "db.v", first)
    table = _ours(warehouse).get_table("db.v")
    _write_ours(table, second)
    expected = pa.concat_tables([first, second])
    ours = _read_ours(table).sort_by("id")
    (theirs,) = oracle.read_many(warehouse, "db.v", [{}])
    assert ours.equals(expected)
    assert theirs.sort_by("id").cast(ours.schema).equals(expected)


@pytest.mark.parametrize("case", ["wrong_length", "null_element", "null_in_not_null"])
def test_vector_errors_write_nothing(warehouse, case):
    table = _create_ours(warehouse, "v", schema=VECTOR_SCHEMA, options=DE)
    _write_ours(table, _vector_rows(0, 3))
    before = sorted(str(p) for p in Path(table.path).rglob("*") if p.is_file())
    if case == "wrong_length":
        bad = pa.table({"id": [9], "emb": pa.array([[1.0, 2.0, 3.0]], pa.list_(pa.float32())),
                        "small": pa.array([[1, 2]], pa.list_(pa.int8(), 2))})
        error = TypeError
    elif case == "null_element":
        bad = pa.table({"id": [9], "emb": pa.array([[1.0, None, 3.0, 4.0]],
                                                   pa.list_(pa.float32(), 4)),
                        "small": pa.array([[1, 2]], pa.list_(pa.int8(), 2))})
        error = ValueError
    else:
        bad = pa.table({"id": [9], "emb": pa.array([None], pa.list_(pa.float32(), 4)),
                        "small": pa.array([None], pa.list_(pa.int8(), 2))})
        error = ValueError
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    with pytest.raises(error):
        write.write_arrow(pa.concat_tables([_vector_rows(100, 50000), bad.cast(VECTOR_SCHEMA)])
                          if case != "wrong_length" else bad)
    write.close()
    after = sorted(str(p) for p in Path(table.path).rglob("*") if p.is_file())
    assert after == before
    assert _read_ours(table).num_rows == 3


def test_blob_descriptor_bytes_and_read(tmp_path):
    from paimon_rowid import BlobDescriptor
    path = tmp_path / "f.bin"
    path.write_bytes(b"0123456789")
    d = BlobDescriptor(str(path), 3, 4)
    raw = d.serialize()
    assert raw[:9] == b"\x02" + (0x424C4F4244455343).to_bytes(8, "little")
    assert len(raw) == 29 + len(str(path).encode())
    assert BlobDescriptor.is_descriptor(raw) and not BlobDescriptor.is_descriptor(b"plain bytes")
    back = BlobDescriptor.deserialize(raw)
    assert back == d and back.uri == str(path) and (back.offset, back.length) == (3, 4)
    assert back.read() == b"3456"
    assert BlobDescriptor(f"file://{path}", 0, 2).read() == b"01"
    with pytest.raises(OSError):
        BlobDescriptor(str(path), 8, 5).read()
    with pytest.raises(ValueError):
        BlobDescriptor.deserialize(raw[:15])


def test_map_with_blobs_in_process(warehouse):
    from paimon_rowid import map_with_blobs
    table = _create_ours(warehouse, "m")
    data = _blob_rows(0, 25, seed=12)
    _write_ours(table, data)
    descriptors = _read_ours(table, {"blob-as-descriptor": "true"}).sort_by("id")
    seen = []

    def fn(scalar, blobs):
        assert "pic" not in scalar.schema.names and "doc" not in scalar.schema.names
        seen.extend(zip(scalar.column("id").to_pylist(), blobs["pic"], blobs["doc"]))
        return scalar.num_rows

    counts = map_with_blobs(descriptors, ["pic", "doc"], fn, batch_size=7, parallelism=4)
    assert counts == [7, 7, 7, 4]
    assert seen == list(zip(data.column("id").to_pylist(), data.column("pic").to_pylist(),
                            data.column("doc").to_pylist()))
    with pytest.raises(ValueError, match="None"):
        map_with_blobs(descriptors, ["pic"], lambda s, b: None)
    with pytest.raises(ValueError, match="raw bytes"):
        map_with_blobs(data, ["pic"], lambda s, b: 1)


def test_blob_descriptor_parsing_errors_and_inputs(tmp_path):
    from paimon_rowid import BlobDescriptor
    from paimon_rowid.blob import resolve_blobs
    path = tmp_path / "f.bin"
    path.write_bytes(b"0123456789")
    raw = BlobDescriptor(str(path), 2, 3).serialize()
    # Any bytes-like input, as bytes() would take it.
    for data in (bytearray(raw), memoryview(raw), memoryview(b"xx" + raw)[2:]):
        assert BlobDescriptor.deserialize(data) == BlobDescriptor(str(path), 2, 3)
        assert BlobDescriptor.is_descriptor(data)
    assert not BlobDescriptor.is_descriptor("text") and not BlobDescriptor.is_descriptor(None)
    # Version 1: no magic.
    v1 = b"\x01" + raw[9:]
    assert BlobDescriptor.deserialize(v1).version == 1 and not BlobDescriptor.is_descriptor(v1)
    for bad, message in [(b"", "invalid BlobDescriptor: empty"),
                         (b"\x03" + raw[1:], "invalid BlobDescriptor: version 3 is newer than 2"),
                         (raw[:5], "invalid BlobDescriptor: missing the BLOBDESC magic"),
                         (b"\x02" + b"x" * 8 + raw[9:], "invalid BlobDescriptor: missing the "
                                                       "BLOBDESC magic"),
                         (raw[:12], "invalid BlobDescriptor: too short"),
                         (raw[:-1], "invalid BlobDescriptor: too short"),
                         (raw[:-8] + (-1).to_bytes(8, "little", signed=True),
                          "offset and length must be >= 0, got 2, -1")]:
        with pytest.raises(ValueError) as info:
            BlobDescriptor.deserialize(bad)
        assert str(info.value) == message
    not_utf8 = bytearray(BlobDescriptor("a", 0, 0).serialize())
    not_utf8[13] = 0xFF  # the uri's only byte
    with pytest.raises(UnicodeDecodeError):
        BlobDescriptor.deserialize(bytes(not_utf8))
    # Remote uris are refused before any byte is read, whatever comes first.
    remote = BlobDescriptor("s3://bucket/x.blob", 0, 1)
    with pytest.raises(NotImplementedError, match="through the local filesystem"):
        remote.read()
    batch = pa.table({"c": pa.array([raw, BlobDescriptor(str(path), 9, 5).serialize(),
                                     remote.serialize()], pa.large_binary())})
    with pytest.raises(NotImplementedError):
        resolve_blobs(batch, ["c"], parallelism=1)
    # Raw bytes anywhere fail before any read (ValueError, not the OSError of row 1).
    batch = pa.table({"c": pa.array([BlobDescriptor(str(path), 9, 5).serialize(), b"raw"],
                                    pa.large_binary())})
    with pytest.raises(ValueError, match="got raw bytes"):
        resolve_blobs(batch, ["c"], parallelism=2)
    assert resolve_blobs(pa.table({"c": pa.array([raw, None], pa.large_binary())}), ["c"]) == \
        {"c": [b"234", None]}
