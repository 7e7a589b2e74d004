"""Damaged data must never read as data (issue 12, item 4).

Flipping any single byte inside a ``.blob`` entry or a Parquet page of a table we wrote makes
the read raise (OSError), or return exactly what was written (a flip in bytes no reader uses,
e.g. page statistics) -- never a value that differs. Both read paths are covered: scans (whole
row groups) and ``read_by_row_id`` (pages picked through the offset index, strings gathered
value by value). Page and entry offsets come from the files themselves: the Parquet footer
(pyarrow) and each page's Thrift header, and the ``.blob`` index.

Reads run in worker processes (tests/corrupt_worker.py), which flip the byte in place and
restore the file, so a crash or hang is reported against its case. Also here: descriptor reads
(``BlobDescriptor.read``, ``resolve_blobs``), ARRAY<BLOB> / MAP<K, BLOB> payloads, and data
files whose size differs from their manifest entry's.
"""
from __future__ import annotations

import random
import re
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import ours
from corrupt_worker import digest
from test_corrupt import run_cases

pytestmark = [pytest.mark.native, pytest.mark.slow]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                    ("score", pa.float64()), ("pic", pa.large_binary())])
PROJECTION = ["id", "name", "score", "pic", "_ROW_ID"]
ROWS = 24_000  # several 64 KiB pages in the float column
IDENTIFIER = "db.t"


# -- locating pages and entries -----------------------------------------------------------------

def _varint(buf: bytes, pos: int) -> Tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _thrift_value(buf: bytes, pos: int, kind: int):
    """One value of the Thrift compact protocol (enough for Parquet page headers)."""
    if kind in (1, 2):
        return kind == 1, pos
    if kind == 3:
        return buf[pos], pos + 1
    if kind in (4, 5, 6):
        value, pos = _varint(buf, pos)
        return _zigzag(value), pos
    if kind == 7:
        return None, pos + 8
    if kind == 8:
        length, pos = _varint(buf, pos)
        return bytes(buf[pos:pos + length]), pos + length
    if kind in (9, 10):
        head = buf[pos]
        pos += 1
        size, element = head >> 4, head & 0x0F
        if size == 15:
            size, pos = _varint(buf, pos)
        items = []
        for _ in range(size):
            if element in (1, 2):
                items.append(buf[pos] == 1)
                pos += 1
            else:
                item, pos = _thrift_value(buf, pos, element)
                items.append(item)
        return items, pos
    if kind == 12:
        return _thrift_struct(buf, pos)
    raise ValueError(f"unexpected Thrift type {kind} at {pos}")


def _thrift_struct(buf: bytes, pos: int) -> Tuple[Dict[int, object], int]:
    fields: Dict[int, object] = {}
    last = 0
    while True:
        head = buf[pos]
        pos += 1
        if head == 0:
            return fields, pos
        kind, delta = head & 0x0F, head >> 4
        if delta:
            field = last + delta
        else:
            raw, pos = _varint(buf, pos)
            field = _zigzag(raw)
        last = field
        fields[field], pos = _thrift_value(buf, pos, kind)


@dataclass
class Page:
    column: str
    kind: int            # 0 data v1, 2 dictionary, 3 data v2
    header: Tuple[int, int]  # [from, to) file offsets
    body: Tuple[int, int]
    first_row: int       # data pages: first row (file relative); dictionary pages: -1
    rows: int
    has_crc: bool


def parquet_pages(path: Path) -> List[Page]:
    """Every page of every column chunk: its header and body byte ranges and rows."""
    data = path.read_bytes()
    metadata = pq.ParquetFile(path).metadata
    pages = []
    group_start = 0
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for c in range(group.num_columns):
            chunk = group.column(c)
            start = chunk.data_page_offset
            if chunk.has_dictionary_page and 0 < chunk.dictionary_page_offset < start:
                start = chunk.dictionary_page_offset
            end = start + chunk.total_compressed_size
            pos, row = start, group_start
            while pos < end:
                header, body = _thrift_struct(data, pos)
                kind, size = header[1], header[3]
                rows = 0
                if kind == 0:
                    rows = header[5][1]   # DataPageHeader.num_values: rows of a flat column
                elif kind == 3:
                    rows = header[8][3]   # DataPageHeaderV2.num_rows
                pages.append(Page(chunk.path_in_schema, kind, (pos, body), (body, body + size),
                                  row if kind in (0, 3) else -1, rows, 4 in header))
                row += rows
                pos = body + size
            assert pos == end, f"pages of {chunk.path_in_schema} end at {pos}, chunk at {end}"
        group_start += group.num_rows
    return pages


def blob_entries(path: Path) -> List[Tuple[int, int, int]]:
    """(row in file, entry offset, entry length) of every stored value of a .blob file."""
    data = path.read_bytes()
    assert data[-1] == 1
    (index_length,) = struct.unpack_from("<i", data, len(data) - 5)
    index = data[len(data) - 5 - index_length:len(data) - 5]
    lengths, pos, previous = [], 0, 0
    while pos < len(index):
        raw, pos = _varint(index, pos)
        previous += _zigzag(raw)
        lengths.append(previous)
    out, offset = [], 0
    for row, length in enumerate(lengths):
        if length > 0:
            out.append((row, offset, length))
            offset += length
    return out


# -- the table --------------------------------------------------------------------------------

def _payload(row: int) -> Optional[bytes]:
    if row % 13 == 0:
        return None
    if row % 17 == 0:
        return b""
    return bytes((row * 7 + k) % 251 for k in range(row % 97 + 1))


def _rows(rows: int = ROWS) -> pa.Table:
    rnd = random.Random(12)
    return pa.table({
        "id": pa.array(range(rows), pa.int64()),
        "name": [f"name-{rnd.randrange(10 ** 9)}" for _ in range(rows)],
        "score": [rnd.random() * 1000 for _ in range(rows)],
        "pic": pa.array([_payload(r) for r in range(rows)], pa.large_binary()),
    }, schema=SCHEMA)


def _read(table, options=None, projection=PROJECTION) -> pa.Table:
    if options:
        table = table.copy(options)
    builder = table.new_read_builder().with_projection(projection)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits())


def _files(warehouse: Path, suffix: str) -> List[Path]:
    return sorted((warehouse / "db.db" / "t").glob(f"bucket-*/*{suffix}"))


@pytest.fixture(scope="module", params=["none", "zstd"])
def written(request, native, tmp_path_factory):
    """A table we wrote (one data file, one .blob file), its full read and pristine copies."""
    root = tmp_path_factory.mktemp(f"checksums-{request.param}")
    warehouse = root / "warehouse"
    table = ours.create_table(warehouse, "t", SCHEMA, {**DE, "file.compression": request.param})
    ours.write(table, _rows())
    expected = _read(table).sort_by("_ROW_ID")
    assert expected.num_rows == ROWS
    pristine = root / "pristine"
    pristine.mkdir()
    copies = {}
    for path in _files(warehouse, ".parquet") + _files(warehouse, ".blob"):
        copies[path] = pristine / path.name
        shutil.copyfile(path, copies[path])
    return warehouse, expected, copies


def _id_selection(must: List[int]) -> List[int]:
    """Every 10th row (page-selective: each page is kept, strings are gathered sparsely) and
    the rows that must be read."""
    return sorted(set(range(5, ROWS, 10)) | set(must))


def _check_flips(warehouse: Path, expected: pa.Table, flips: List[dict]) -> int:
    cases = [{"id": "baseline", "warehouse": str(warehouse), "identifier": IDENTIFIER,
              "projection": PROJECTION, "digest": True}]
    wanted: Dict[str, str] = {"baseline": digest(expected)}
    for n, flip in enumerate(flips):
        spec = {k: flip[k] for k in ("path", "pristine", "position", "mask")}
        base = {"warehouse": str(warehouse), "identifier": IDENTIFIER,
                "projection": PROJECTION, "digest": True, "flip": spec}
        cases.append({**base, "id": f"{flip['what']}#{n}-scan"})
        wanted[cases[-1]["id"]] = wanted["baseline"]
        ids = _id_selection(flip["rows"])
        cases.append({**base, "id": f"{flip['what']}#{n}-ids", "row_ids": ids})
        wanted[cases[-1]["id"]] = digest(expected.filter(
            pc.is_in(expected["_ROW_ID"], pa.array(ids, pa.int64()))))
    results = run_cases(cases)
    assert results["baseline"].get("digest") == wanted["baseline"], results["baseline"]
    problems, raised = [], 0
    for case in cases[1:]:
        result = results[case["id"]]
        if result["outcome"] == "ok":
            if result["digest"] != wanted[case["id"]]:
                problems.append(f"{case['id']}: returned values that differ from the written")
        elif result["outcome"] != "error":
            problems.append(f"{case['id']}: {result['outcome']} {result.get('stderr', '')}")
        elif "builtins.OSError" not in result["mro"] or not result["message"].strip():
            problems.append(f"{case['id']}: {result['type']}: {result['message']}")
        else:
            raised += 1
    assert not problems, f"{len(problems)}/{len(cases) - 1} cases:\n" + "\n".join(problems[:30])
    return raised


def _positions(start: int, end: int, count: int, rnd: random.Random) -> List[int]:
    """The first and last byte and `count` more, spread over [start, end)."""
    if end <= start:
        return []
    picks = {start, end - 1}
    picks.update(rnd.randrange(start, end) for _ in range(count))
    return sorted(picks)


def test_our_parquet_pages_carry_crcs(written):
    warehouse, _, copies = written
    for path in _files(warehouse, ".parquet"):
        pages = parquet_pages(path)
        assert len([p for p in pages if p.column == "score" and p.kind in (0, 3)]) >= 3
        assert all(p.has_crc for p in pages), [p for p in pages if not p.has_crc][:3]


def test_flipped_byte_in_a_parquet_page_body_raises(written):
    warehouse, expected, copies = written
    rnd = random.Random(4)
    flips = []
    for path in _files(warehouse, ".parquet"):
        for page in parquet_pages(path):
            rows = [page.first_row] if page.first_row >= 0 else []
            for position in _positions(*page.body, 6, rnd):
                flips.append({"what": f"{page.column}-page@{position}", "path": str(path),
                              "pristine": str(copies[path]), "position": position,
                              "mask": 1 << rnd.randrange(8), "rows": rows})
    raised = _check_flips(warehouse, expected, flips)
    # Every body byte is under the page CRC: all of them must raise, none may pass.
    assert raised == 2 * len(flips)


def test_flipped_byte_in_a_parquet_page_header_never_returns_wrong_values(written):
    # Headers carry no checksum; a flip there must still not produce a different value (a
    # flip in e.g. the page statistics, which readers ignore, may read fine).
    warehouse, expected, copies = written
    rnd = random.Random(5)
    flips = []
    for path in _files(warehouse, ".parquet"):
        for page in parquet_pages(path):
            rows = [page.first_row] if page.first_row >= 0 else []
            for position in range(*page.header):
                flips.append({"what": f"{page.column}-header@{position}", "path": str(path),
                              "pristine": str(copies[path]), "position": position,
                              "mask": 1 << rnd.randrange(8), "rows": rows})
    _check_flips(warehouse, expected, flips)


def test_flipped_byte_in_a_blob_entry_raises(written):
    warehouse, expected, copies = written
    rnd = random.Random(6)
    flips = []
    for path in _files(warehouse, ".blob"):
        entries = blob_entries(path)
        for row, offset, length in rnd.sample(entries, 40) + [entries[0], entries[-1]]:
            # Payload bytes, and the entry's magic, length and CRC.
            positions = _positions(offset + 4, offset + length - 12, 2, rnd)
            positions += [offset + rnd.randrange(4), offset + length - 12 + rnd.randrange(12)]
            for position in positions:
                flips.append({"what": f"blob-row{row}@{position}", "path": str(path),
                              "pristine": str(copies[path]), "position": position,
                              "mask": 1 << rnd.randrange(8), "rows": [row]})
    raised = _check_flips(warehouse, expected, flips)
    assert raised == 2 * len(flips)


# -- descriptors, nested BLOBs, sizes ------------------------------------------------------------

def _flip_byte(path: Path, position: int) -> None:
    data = bytearray(path.read_bytes())
    data[position] ^= 0x04
    path.write_bytes(bytes(data))


def test_descriptor_reads_verify_the_payload(native, tmp_path):
    from paimon_rowid import BlobDescriptor
    from paimon_rowid.blob import resolve_blobs
    table = ours.create_table(tmp_path, "t", SCHEMA, DE)
    ours.write(table, _rows(200))
    descriptors = _read(table, {"blob-as-descriptor": "true"}).sort_by("_ROW_ID")
    (blob,) = _files(tmp_path, ".blob")
    entries = blob_entries(blob)
    row, offset, length = entries[len(entries) // 2]
    other = entries[len(entries) // 2 + 1][0]
    _flip_byte(blob, offset + 4 + (length - 16) // 2)
    raw = descriptors["pic"].to_pylist()
    name = re.escape(blob.name)
    with pytest.raises(OSError, match=rf"{name}.*CRC32 mismatch"):
        BlobDescriptor.deserialize(raw[row]).read()
    assert BlobDescriptor.deserialize(raw[other]).read() == _payload(other)
    with pytest.raises(OSError, match=name):
        resolve_blobs(descriptors, ["pic"])
    ok = descriptors.slice(0, row)
    assert resolve_blobs(ok, ["pic"])["pic"] == [_payload(r) for r in range(row)]
    # The scan reads the payload itself and names the row id.
    with pytest.raises(OSError, match=rf"{name}.*row id {row}\b"):
        _read(table)


NESTED = pa.schema([pa.field("id", pa.int64(), nullable=False),
                    ("pics", pa.list_(pa.large_binary())),
                    ("named", pa.map_(pa.string(), pa.large_binary()))])


def test_nested_blob_payloads_are_verified(native, tmp_path):
    from paimon_rowid.blob import resolve_blobs
    rows = 30
    pics = [[bytes([r, k]) * (k + 3) for k in range(r % 4)] for r in range(rows)]
    named = [[(f"k{k}", bytes([k, r]) * 5) for k in range(r % 3 + 1)] for r in range(rows)]
    table = ours.create_table(tmp_path, "t", NESTED, DE)
    ours.write(table, pa.table({"id": range(rows), "pics": pics, "named": named},
                               schema=NESTED))
    projection = ["id", "pics", "named", "_ROW_ID"]
    before = _read(table, projection=projection).sort_by("_ROW_ID")
    descriptors = _read(table, {"blob-as-descriptor": "true"}, projection).sort_by("_ROW_ID")
    blobs = {p.name: p for p in _files(tmp_path, ".blob")}
    assert len(blobs) == 2
    for victim in blobs.values():
        pristine = victim.read_bytes()
        row, offset, length = blob_entries(victim)[-1]
        # The last element / value bytes: inside the payload, before its indexes.
        _flip_byte(victim, offset + length - 12 - 8)
        with pytest.raises(OSError, match=victim.name):
            _read(table, projection=projection)
        (magic,) = struct.unpack_from("<I", pristine, blob_entries(victim)[0][1] + 4)
        column = "pics" if magic == 1094861634 else "named"  # ARRAY<BLOB> or MAP<K, BLOB>
        with pytest.raises(OSError, match=victim.name):
            resolve_blobs(descriptors, [column])
        fine = resolve_blobs(descriptors.slice(0, row), [column])[column]
        assert len(fine) == row and all(cell is not None for cell in fine)
        victim.write_bytes(pristine)
    assert _read(table, projection=projection).sort_by("_ROW_ID").equals(before)


@pytest.mark.parametrize("suffix", [".parquet", ".blob"])
def test_data_file_of_another_size_than_its_manifest_entry_raises(native, tmp_path, suffix):
    table = ours.create_table(tmp_path, "t", SCHEMA, DE)
    ours.write(table, _rows(300))
    ours.write(table, _rows(50))
    first, second = _files(tmp_path, suffix)[:2]
    sizes = (first.stat().st_size, second.stat().st_size)
    assert sizes[0] != sizes[1]
    shutil.copyfile(second, first)  # one data file replaced by another
    with pytest.raises(OSError) as info:
        _read(table)
    message = str(info.value)
    assert first.name in message and str(sizes[1]) in message and str(sizes[0]) in message, \
        message
