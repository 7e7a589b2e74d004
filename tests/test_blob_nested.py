"""ARRAY<BLOB> and MAP<K, BLOB> columns, and blob-descriptor-field dereferencing: compatibility
with pypaimon both ways on one warehouse (payloads and descriptors, nulls, empty arrays/maps
and payloads, rolled .blob files, several key types), row-range reads, descriptor inputs, and
error paths that must raise pypaimon's exception type and leave nothing behind."""
from __future__ import annotations

import os
import random
from decimal import Decimal
from pathlib import Path
from typing import Dict, List, Optional

import pyarrow as pa
import pytest

import oracle as oracle_pkg
import ours

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
LB = pa.large_binary()
DEC = pa.decimal128(22, 4)  # wide: keys stored as big-endian two's complement
SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
    ("arr", pa.list_(LB)),
    ("by_name", pa.map_(pa.string(), LB)),
    ("by_int", pa.map_(pa.int32(), LB)),
    ("by_dec", pa.map_(DEC, LB)),
    ("by_small_dec", pa.map_(pa.decimal128(9, 2), LB)),
])
NESTED = ["arr", "by_name", "by_int", "by_dec", "by_small_dec"]
# Small blob files so that writes roll several .blob files per data file.
OPTIONS = {**DE, "blob.target-file-size": "256 kb"}


def _payload(seed: int, size: int) -> bytes:
    return bytes([(seed * 7 + 3) % 256]) * size if size else b""


def _rows(start: int, count: int, seed: int) -> pa.Table:
    """Rows with null rows, null elements/values, empty arrays/maps, empty payloads and
    payloads up to 3 MiB."""
    rnd = random.Random(seed)

    def size() -> int:
        r = rnd.random()
        return (3 << 20) if r < 0.01 else (1 << 20) if r < 0.04 else rnd.choice(
            [0, 1, 17, 4096, 70_000])

    def value(i: int, k: int):
        return None if rnd.random() < 0.15 else _payload(i * 31 + k, size())

    def entries(i: int, make_key):
        if rnd.random() < 0.12:
            return None
        n = rnd.choice([0, 1, 2, 3, 5])
        keys = []
        while len(keys) < n:
            key = make_key(rnd)
            if key not in keys:
                keys.append(key)
        return [(key, value(i, k)) for k, key in enumerate(keys)]

    ids = list(range(start, start + count))
    arr = [None if rnd.random() < 0.12 else [value(i, k) for k in range(rnd.choice([0, 1, 2, 4]))]
           for i in ids]
    return pa.table({
        "id": ids, "name": [f"n{i}" for i in ids],
        "arr": pa.array(arr, pa.list_(LB)),
        "by_name": pa.array([entries(i, lambda r: rnd.choice(["", "a", "ключ", "k" * 40,
                                                                 str(r.randrange(100))]))
                             for i in ids], pa.map_(pa.string(), LB)),
        "by_int": pa.array([entries(i, lambda r: r.choice([0, -1, 2**31 - 1, -2**31,
                                                           r.randrange(-1000, 1000)]))
                            for i in ids], pa.map_(pa.int32(), LB)),
        "by_dec": pa.array([entries(i, lambda r: Decimal(r.randrange(-10**21, 10**21)).scaleb(-4))
                            for i in ids], pa.map_(DEC, LB)),
        "by_small_dec": pa.array([entries(i, lambda r: Decimal(r.randrange(-10**8, 10**8))
                                          .scaleb(-2)) for i in ids],
                                 pa.map_(pa.decimal128(9, 2), LB)),
    }, schema=SCHEMA)


_ours, _write_ours = ours.catalog, ours.write


def _create_ours(warehouse, name, schema=SCHEMA, options=OPTIONS):
    return ours.create_table(warehouse, name, schema, options)


def _read_ours(table, options: Optional[Dict[str, str]] = None, projection=None,
               row_ranges=None) -> pa.Table:
    if options:
        table = table.copy(options)
    builder = table.new_read_builder()
    if projection is not None:
        builder.with_projection(projection)
    scan = builder.new_scan()
    if row_ranges is not None:
        scan.with_row_ranges(row_ranges)
    return builder.new_read().to_arrow(scan.plan().splits())


def _oracle_write(oracle, warehouse, identifier, data: pa.Table, conform: bool = True):
    path = oracle._path(".arrow")
    oracle_pkg.write_ipc(path, data)
    return oracle.run({"cmd": "write", "warehouse": warehouse, "identifier": identifier,
                       "data_ipc": str(path), "conform": conform})


def _by_id(table: pa.Table) -> pa.Table:
    return table.sort_by("id")


def _deref(value: Optional[bytes]) -> Optional[bytes]:
    from paimon_rowid import BlobDescriptor
    return None if value is None else BlobDescriptor.deserialize(value).read()


def _dereference(descriptors: pa.Table) -> List[dict]:
    """Rows with every descriptor (array element, map value) replaced by its bytes."""
    out = []
    for row in descriptors.to_pylist():
        for column in NESTED:
            v = row.get(column)
            if v is None:
                continue
            if column == "arr":
                row[column] = [_deref(e) for e in v]
            else:
                row[column] = [(k, _deref(e)) for k, e in v]
        out.append(row)
    return out


def _check_both(oracle, warehouse, identifier, expected: pa.Table) -> None:
    """Payload and descriptor reads by both engines agree with `expected`."""
    table = _ours(warehouse).get_table(identifier)
    projection = SCHEMA.names
    theirs, theirs_desc = oracle.read_many(warehouse, identifier, [
        dict(projection=projection), dict(projection=projection,
                                          options={"blob-as-descriptor": "true"})])
    ours = _by_id(_read_ours(table, projection=projection))
    ours_desc = _by_id(_read_ours(table, {"blob-as-descriptor": "true"}, projection=projection))
    theirs, theirs_desc = _by_id(theirs), _by_id(theirs_desc)
    assert ours.schema.equals(SCHEMA), ours.schema
    assert ours.equals(expected), "our payload read differs from the data"
    assert theirs.equals(expected), "pypaimon's payload read differs from the data"
    # Descriptors: the engines may differ in paths/offsets only if the files differ; both
    # must point at the right bytes, and here (same files) they are identical.
    assert ours_desc.schema.equals(SCHEMA)
    assert ours_desc.equals(theirs_desc)
    expected_rows = expected.to_pylist()
    assert _dereference(ours_desc) == expected_rows
    assert _dereference(theirs_desc) == expected_rows


def _blob_files(warehouse, name) -> List[Path]:
    return sorted(Path(warehouse, "db.db", name).rglob("*.blob"))


def test_pypaimon_writes_we_read(oracle, warehouse):
    oracle.run(oracle.create_table_cmd(warehouse, "db.t", SCHEMA, options=OPTIONS))
    first, second = _rows(0, 60, seed=1), _rows(60, 40, seed=2)
    _oracle_write(oracle, warehouse, "db.t", first)
    _oracle_write(oracle, warehouse, "db.t", second)
    assert len(_blob_files(warehouse, "t")) > 2 * len(NESTED)  # rolled
    _check_both(oracle, warehouse, "db.t", pa.concat_tables([first, second]))


def test_we_write_pypaimon_reads(oracle, warehouse):
    table = _create_ours(warehouse, "t")
    first, second = _rows(0, 60, seed=3), _rows(60, 40, seed=4)
    _write_ours(table, first)
    # list<binary> / map<K, binary> input is accepted and cast.
    _write_ours(table, second.cast(pa.schema(
        [f.with_type(pa.list_(pa.binary())) if f.name == "arr" else
         f.with_type(pa.map_(f.type.key_type, pa.binary())) if f.name in NESTED else f
         for f in SCHEMA])))
    assert len(_blob_files(warehouse, "t")) > 2 * len(NESTED)
    _check_both(oracle, warehouse, "db.t", pa.concat_tables([first, second]))


def test_mixed_writers_one_table(oracle, warehouse):
    oracle.run(oracle.create_table_cmd(warehouse, "db.t", SCHEMA, options=OPTIONS))
    parts = [_rows(0, 25, seed=5), _rows(25, 25, seed=6), _rows(50, 25, seed=7)]
    _oracle_write(oracle, warehouse, "db.t", parts[0])
    _write_ours(_ours(warehouse).get_table("db.t"), parts[1])
    _oracle_write(oracle, warehouse, "db.t", parts[2])
    _check_both(oracle, warehouse, "db.t", pa.concat_tables(parts))


def test_row_ranges_and_projection(oracle, warehouse):
    table = _create_ours(warehouse, "t")
    data = _rows(0, 80, seed=8)
    _write_ours(table, data)
    ranges = [[3, 5], [40, 40], [77, 79]]
    projection = ["id", "by_int", "arr"]
    (theirs,) = oracle.read_many(warehouse, "db.t", [dict(projection=projection,
                                                          row_ranges=ranges)])
    from paimon_rowid import Range
    ours = _read_ours(table, projection=projection,
                      row_ranges=[Range(a, b) for a, b in ranges])
    wanted = [i for a, b in ranges for i in range(a, b + 1)]
    expected = data.select(projection).take(wanted)
    assert _by_id(ours).equals(expected)
    assert _by_id(theirs).equals(expected)


def test_descriptor_inputs_are_copied(oracle, warehouse):
    source = _create_ours(warehouse, "src")
    data = _rows(0, 20, seed=9)
    _write_ours(source, data)
    descriptors = _by_id(_read_ours(source, {"blob-as-descriptor": "true"}))
    # Element / value descriptors are resolved and their bytes copied, by both writers.
    target = _create_ours(warehouse, "dst")
    _write_ours(target, descriptors)
    assert _by_id(_read_ours(target)).equals(data)
    oracle.run(oracle.create_table_cmd(warehouse, "db.dst2", SCHEMA, options=OPTIONS))
    _oracle_write(oracle, warehouse, "db.dst2", descriptors)
    assert _by_id(_read_ours(_ours(warehouse).get_table("db.dst2"))).equals(data)


KEY_TYPES = {
    "tinyint": (pa.int8(), [-128, 0, 127]),
    "bigint": (pa.int64(), [-2**63, 5, 2**63 - 1]),
    "boolean": (pa.bool_(), [True, False]),
    "date": (pa.date32(), [0, -1, 19000]),
    "time": (pa.time32("ms"), [0, 3_723_004, 86_399_999]),
    "bytes": (pa.binary(), [b"", b"\x00\xff", b"key"]),
}


@pytest.mark.parametrize("key", sorted(KEY_TYPES))
def test_other_key_types_both_ways(oracle, warehouse, key):
    key_type, keys = KEY_TYPES[key]
    schema = pa.schema([("id", pa.int64()), ("m", pa.map_(key_type, LB))])
    data = pa.table({"id": [1, 2, 3], "m": pa.array(
        [[(k, _payload(i, i * 3)) for i, k in enumerate(keys)], [], None],
        pa.map_(key_type, LB))}, schema=schema)
    ours_table = _create_ours(warehouse, "ours", schema=schema)
    _write_ours(ours_table, data)
    oracle.run(oracle.create_table_cmd(warehouse, "db.theirs", schema, options=OPTIONS))
    _oracle_write(oracle, warehouse, "db.theirs", data)
    for name in ("ours", "theirs"):
        (theirs,) = oracle.read_many(warehouse, f"db.{name}", [{}])
        assert _by_id(theirs).equals(data), name
        assert _by_id(_read_ours(_ours(warehouse).get_table(f"db.{name}"))).equals(data), name


def _snapshot_and_files(path: str):
    files = sorted(str(p) for p in Path(path).rglob("*") if p.is_file())
    return files


NOT_NULL_ELEMENT = pa.schema([("id", pa.int64()),
                              ("arr", pa.list_(pa.field("item", LB, nullable=False)))])
NOT_NULL_VALUE = pa.schema([("id", pa.int64()),
                            ("m", pa.map_(pa.int32(), pa.field("value", LB, nullable=False)))])
INT_MAP = pa.schema([("id", pa.int64()), ("m", pa.map_(pa.int32(), LB))])
ARRAY = pa.schema([("id", pa.int64()), ("arr", pa.list_(LB))])
DOUBLE_MAP = pa.schema([("id", pa.int64()), ("m", pa.map_(pa.float64(), LB))])


def _bad_input(case: str):
    """(table schema, bad rows) for each error case."""
    if case == "wrong_element_type":
        return ARRAY, pa.table({"id": [9], "arr": pa.array([[1, 2]], pa.list_(pa.int64()))})
    if case == "not_a_list":
        return ARRAY, pa.table({"id": [9], "arr": pa.array([b"x"], LB)})
    if case == "duplicate_key":
        return INT_MAP, pa.table({"id": [9], "m": pa.array([[(1, b"a"), (1, b"b")]],
                                                            INT_MAP.field("m").type)})
    if case == "null_element":
        return NOT_NULL_ELEMENT, pa.table({"id": [9], "arr": pa.array(
            [[b"a", None]], NOT_NULL_ELEMENT.field("arr").type)})
    if case == "null_value":
        return NOT_NULL_VALUE, pa.table({"id": [9], "m": pa.array(
            [[(1, b"a"), (2, None)]], NOT_NULL_VALUE.field("m").type)})
    assert case == "unsupported_key_type"
    return DOUBLE_MAP, pa.table({"id": [9], "m": pa.array([[(1.5, b"a")]],
                                                          DOUBLE_MAP.field("m").type)})


@pytest.mark.parametrize("case", ["wrong_element_type", "not_a_list", "duplicate_key",
                                  "null_element", "null_value", "unsupported_key_type"])
def test_bad_input_raises_pypaimons_error_and_writes_nothing(oracle, warehouse, case):
    schema, bad = _bad_input(case)
    # pypaimon's exception type for the same input (handed to write_arrow as is).
    oracle.run(oracle.create_table_cmd(warehouse, "db.theirs", schema, options=OPTIONS))
    with pytest.raises(oracle_pkg.OracleError) as theirs:
        _oracle_write(oracle, warehouse, "db.theirs", bad, conform=False)
    expected_type = {"ValueError": ValueError, "RuntimeError": RuntimeError,
                     "TypeError": TypeError}[theirs.value.error_type]

    table = _create_ours(warehouse, "ours", schema=schema)
    good_rows = 3000
    good = pa.table({"id": list(range(good_rows)), schema.names[1]: pa.array(
        [[]] * good_rows, schema.field(1).type)}, schema=schema)
    before = _snapshot_and_files(table.path)
    builder = table.new_batch_write_builder()
    write = builder.new_write()
    if case != "unsupported_key_type":
        write.write_arrow(good)  # files exist now ...
    with pytest.raises(expected_type):
        write.write_arrow(bad)  # ... and are deleted by the failure
    write.close()
    assert table.latest_snapshot() is None
    assert _snapshot_and_files(table.path) == before


def test_nested_blob_elsewhere_is_refused(warehouse):
    # Like pypaimon, ARRAY<ARRAY<BLOB>> is refused at create_table (the writer refuses it
    # too, for tables created elsewhere).
    schema = pa.schema([("id", pa.int64()), ("deep", pa.list_(pa.list_(LB)))])
    with pytest.raises(ValueError, match="nested BLOB"):
        _create_ours(warehouse, "deep", schema=schema)
    assert not any(name.startswith("deep") for name in os.listdir(os.path.join(warehouse, "db.db")))


# -- blob-descriptor-field: descriptors stored inline ------------------------------------------

DESC_SCHEMA = pa.schema([("id", pa.int64()), ("ref", LB)])


def test_descriptor_field_is_dereferenced_like_pypaimon(oracle, warehouse, tmp_path):
    from paimon_rowid import BlobDescriptor
    source = tmp_path / "media.bin"
    source.write_bytes(bytes(range(256)) * 64)
    descriptors = [BlobDescriptor(str(source), 10, 100).serialize(), None,
                   BlobDescriptor(f"file://{source}", 0, 0).serialize(),
                   BlobDescriptor(str(source), 5000, 10000).serialize()]
    data = pa.table({"id": [1, 2, 3, 4], "ref": pa.array(descriptors, LB)})
    payloads = [None if d is None else _deref(d) for d in descriptors]
    options = {**DE, "blob-descriptor-field": "ref"}
    ours_table = _create_ours(warehouse, "ours", schema=DESC_SCHEMA, options=options)
    _write_ours(ours_table, data)
    oracle.run(oracle.create_table_cmd(warehouse, "db.theirs", DESC_SCHEMA, options=options))
    _oracle_write(oracle, warehouse, "db.theirs", data)
    for name in ("ours", "theirs"):
        table = _ours(warehouse).get_table(f"db.{name}")
        theirs, theirs_desc = oracle.read_many(warehouse, f"db.{name}", [
            {}, dict(options={"blob-as-descriptor": "true"})])
        # blob-as-descriptor=false: the referenced bytes; true: the stored descriptors.
        assert _by_id(_read_ours(table)).column("ref").to_pylist() == payloads, name
        assert _by_id(theirs).column("ref").to_pylist() == payloads, name
        ours_desc = _by_id(_read_ours(table, {"blob-as-descriptor": "true"}))
        assert ours_desc.column("ref").to_pylist() == descriptors, name
        assert _by_id(theirs_desc).column("ref").to_pylist() == descriptors, name


def test_sparse_read_fetches_only_the_returned_rows(warehouse):
    """60 rows x 2 x 512 KiB array elements; 4 rows by row range read about their payloads,
    and a descriptor read reads no payload at all."""
    from paimon_rowid import Range
    schema = pa.schema([("id", pa.int64()), ("arr", pa.list_(LB))])
    table = _create_ours(warehouse, "big", schema=schema, options={**DE})
    size = 512 * 1024
    ids = list(range(60))
    _write_ours(table, pa.table({"id": ids, "arr": pa.array(
        [[_payload(i, size), _payload(i + 1, size + i)] for i in ids], pa.list_(LB))},
        schema=schema))
    wanted = [7, 8, 41, 59]
    ranges = [Range(7, 8), Range(41, 41), Range(59, 59)]
    before = ours.rchar()
    got = _read_ours(table, row_ranges=ranges)
    read = ours.rchar() - before
    assert got.column("id").to_pylist() == wanted
    assert got.column("arr").to_pylist() == [[_payload(i, size), _payload(i + 1, size + i)]
                                             for i in wanted]
    payload = sum(2 * size + i for i in wanted)
    assert read <= payload + (2 << 20), (read, payload)
    before = ours.rchar()
    desc = _read_ours(table, {"blob-as-descriptor": "true"}, row_ranges=ranges)
    read = ours.rchar() - before
    assert [[_deref(d) for d in row] for row in desc.column("arr").to_pylist()] == \
        got.column("arr").to_pylist()
    assert read <= 1 << 20, read
