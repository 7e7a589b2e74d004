#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets, fuzz/corpus/<target>/, from real files.

Small tables are written into a scratch warehouse by paimon-rowid (this interpreter: run it
with the project's .venv) and by pypaimon (the oracle in .venv-oracle, through
tests/oracle/driver.py); their manifests, manifest lists, index manifests, snapshots, tags,
schemas and .blob files are copied, and the bytes the engine ships between processes
(serialized commit messages, splits and row-id indexes) are taken from our Python API.
Targets whose input is a part of a file get that part: BinaryRows (partitions and stats rows
of the manifests, prefixed with the type selector of fuzz_binary_row.cc), DeltaVarint
indexes and nested ARRAY/MAP payloads (cut out of the .blob files), BlobDescriptors (read
with blob-as-descriptor), the data types of the schemas, DECIMAL bytes of the values written.

Usage: .venv/bin/python fuzz/make_corpus.py [--out fuzz/corpus] [--oracle .venv-oracle/bin/python]
Files are named by content hash; file names written by the engines are random, so a re-run
adds new seeds: delete fuzz/corpus/<target>/ first to regenerate. Without the oracle the
pypaimon part is skipped (with a warning).
"""
from __future__ import annotations

import argparse
import decimal
import hashlib
import json
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

import pyarrow as pa

ROOT = Path(__file__).resolve().parent.parent
DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
LB = pa.large_binary()
# Keep the committed corpus small: files above this are not copied.
MAX_SEED_BYTES = 24 * 1024

# fuzz_binary_row.cc's type menu, by the layout each Paimon type needs.
BINARY_ROW_TYPES = {"BOOLEAN": 0, "TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4,
                    "FLOAT": 5, "DOUBLE": 6, "DATE": 7, "TIME": 8, "STRING": 10, "BYTES": 12,
                    "DECIMAL_COMPACT": 15, "DECIMAL_WIDE": 17, "TIMESTAMP3": 20,
                    "TIMESTAMP6": 21, "TIMESTAMP9": 22, "LTZ6": 23}
# fuzz_blob_nested.cc's key menu (mode byte = 2 * index + 1 for a MAP payload).
NESTED_KEY_TYPES = {"TINYINT": 0, "SMALLINT": 1, "INT": 2, "BIGINT": 3, "BOOLEAN": 4,
                    "DECIMAL_COMPACT": 5, "DECIMAL_WIDE": 6, "DATE": 7, "TIME": 8, "BYTES": 9,
                    "STRING": 10}

SMALL_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False), ("flag", pa.bool_()), ("small", pa.int16()),
    ("price", pa.decimal128(10, 2)), ("big", pa.decimal128(30, 6)), ("name", pa.string()),
    ("ts", pa.timestamp("us")), ("p", pa.string())])
WIDE_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False), ("c_tiny", pa.int8()), ("c_int", pa.int32()),
    ("c_float", pa.float32()), ("c_double", pa.float64()), ("c_bin", pa.binary()),
    ("c_date", pa.date32()), ("c_time", pa.time32("ms")), ("c_ts3", pa.timestamp("ms")),
    ("c_ltz", pa.timestamp("us", tz="UTC")), ("c_arr", pa.list_(pa.int32())),
    ("c_map", pa.map_(pa.string(), pa.int64())),
    ("c_row", pa.struct([("a", pa.int32()), ("b", pa.string())])),
    ("p_str", pa.string()), ("p_int", pa.int32())])
BLOB_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("name", pa.string()),
                         ("pic", LB)])
NESTED_SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False), ("arr", pa.list_(LB)),
    ("by_name", pa.map_(pa.string(), LB)), ("by_int", pa.map_(pa.int32(), LB)),
    ("by_dec", pa.map_(pa.decimal128(22, 4), LB))])


class Corpus:
    """Seeds by target; at most `limit` per target from each source (table)."""

    def __init__(self, out: Path):
        self.out = out
        self.source = ""
        self.counts: Dict[str, int] = {}
        self.per_source: Dict[tuple, int] = {}

    def add(self, target: str, data: bytes, limit: int = 6) -> None:
        key = (target, self.source)
        if len(data) > MAX_SEED_BYTES or self.per_source.get(key, 0) >= limit:
            return
        folder = self.out / target
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / hashlib.sha1(data).hexdigest()[:16]
        if not path.exists():
            path.write_bytes(data)
            self.counts[target] = self.counts.get(target, 0) + 1
            self.per_source[key] = self.per_source.get(key, 0) + 1


# ------------------------------------------------------------------------ writing tables

def small_rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": ids, "flag": [i % 3 == 0 if i % 5 else None for i in ids],
        "small": [i * 7 % 300 - 150 for i in ids],
        "price": [decimal.Decimal(i * 1234 - 5000) / 100 for i in ids],
        "big": [decimal.Decimal(i - 20) * 10 ** 20 + decimal.Decimal(i) / 10 ** 6 for i in ids],
        "name": [f"name-{i}" if i % 4 else None for i in ids],
        "ts": pa.array([1_700_000_000_000_000 + i * 1_234_567 for i in ids], pa.timestamp("us")),
        "p": ["x" if i % 2 else "y" for i in ids]}, schema=SMALL_SCHEMA)


def wide_rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    return pa.table({
        "id": ids, "c_tiny": [i % 100 - 50 for i in ids], "c_int": [i * 1009 for i in ids],
        "c_float": [i / 8 for i in ids], "c_double": [i / 3 for i in ids],
        "c_bin": [bytes([i % 256]) * (i % 4) for i in ids],
        "c_date": pa.array([19000 + i for i in ids], pa.date32()),
        "c_time": pa.array([i * 1000 for i in ids], pa.time32("ms")),
        "c_ts3": pa.array([1_700_000_000_000 + i for i in ids], pa.timestamp("ms")),
        "c_ltz": pa.array([1_700_000_000_000_000 + i for i in ids], pa.timestamp("us", tz="UTC")),
        "c_arr": [[i, None, i + 1][: i % 4] for i in ids],
        "c_map": [[(f"k{k}", i * k) for k in range(i % 3)] for i in ids],
        "c_row": [{"a": i, "b": f"r{i}"} if i % 5 else None for i in ids],
        "p_str": [["a", "b", "c"][i % 3] for i in ids],
        "p_int": [1 + i % 2 for i in ids]}, schema=WIDE_SCHEMA)


def blob_rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    pics = [None if i % 7 == 3 else bytes([i % 256]) * (i % 40) for i in ids]
    return pa.table({"id": ids, "name": [f"b{i}" for i in ids], "pic": pa.array(pics, LB)},
                    schema=BLOB_SCHEMA)


def nested_rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    blob = lambda i, k: bytes([(i * 7 + k) % 256]) * ((i + k) % 9)  # noqa: E731
    return pa.table({
        "id": ids,
        "arr": pa.array([None if i % 6 == 5 else [None if k == 1 else blob(i, k)
                                                   for k in range(i % 4)] for i in ids],
                        pa.list_(LB)),
        "by_name": pa.array([[(f"n{k}", blob(i, k)) for k in range(i % 3)] for i in ids],
                            pa.map_(pa.string(), LB)),
        "by_int": pa.array([[(k - 1, None if k == 2 else blob(i, k)) for k in range(i % 4)]
                            for i in ids], pa.map_(pa.int32(), LB)),
        "by_dec": pa.array([[(decimal.Decimal(i * 10 ** 12 + k) / 10 ** 4, blob(i, k))
                             for k in range(i % 3)] for i in ids],
                           pa.map_(pa.decimal128(22, 4), LB))}, schema=NESTED_SCHEMA)


def write_ours(warehouse: Path, corpus: Corpus) -> None:
    from paimon_rowid import CatalogFactory, Schema
    from paimon_rowid._internal._lib import native

    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    catalog.create_database("db", True)

    def create(name, schema, options, partition_keys=None):
        corpus.source = name
        catalog.create_table(f"db.{name}", Schema.from_pyarrow_schema(
            schema, partition_keys=partition_keys, options=options), False)
        return catalog.get_table(f"db.{name}")

    def write(table, data):
        builder = table.new_batch_write_builder()
        writer, committer = builder.new_write(), builder.new_commit()
        writer.write_arrow(data)
        messages = writer.prepare_commit()
        for m in messages:
            corpus.add("commit_message", m.to_bytes())
        committer.commit(messages)
        writer.close()
        committer.close()

    def update(table, data, columns):
        builder = table.new_batch_write_builder()
        messages = builder.new_update().with_update_type(columns).update_by_arrow_with_row_id(data)
        for m in messages:
            corpus.add("commit_message", m.to_bytes())
        committer = builder.new_commit()
        committer.commit(messages)
        committer.close()

    def ship(table):  # splits and the row-id index, as shipped to workers
        for split in table.new_read_builder().new_scan().plan().splits():
            corpus.add("split", split.serialize())
        snapshot = json.loads(max((Path(table.path) / "snapshot").glob("snapshot-*"),
                                  key=lambda p: int(p.name.split("-")[1])).read_text())
        index = native().RowIdIndex.build(table._native, int(snapshot["id"]))
        corpus.add("row_id_index", index.serialize())

    small = create("small", SMALL_SCHEMA, {**DE, "manifest.compression": "none"}, ["p"])
    write(small, small_rows(0, 12))
    write(small, small_rows(12, 5))
    update(small, pa.table({"_ROW_ID": pa.array([1, 4, 13], pa.int64()),
                            "name": ["u1", None, "u13"]}), ["name"])
    small.create_tag("t1")
    ship(small)

    for codec in ("zstd", "deflate", "snappy"):
        try:
            wide = create(f"wide_{codec}", WIDE_SCHEMA, {**DE, "manifest.compression": codec},
                          ["p_str", "p_int"])
        except Exception as e:  # a codec the writer does not offer: skip it
            print(f"make_corpus: no table with manifest.compression={codec}: {e}", file=sys.stderr)
            continue
        write(wide, wide_rows(0, 9))
        write(wide, wide_rows(9, 4))
        ship(wide)

    blobs = create("blobs", BLOB_SCHEMA, {**DE, "blob.target-file-size": "1 kb"})
    write(blobs, blob_rows(0, 30))
    update(blobs, pa.table({"_ROW_ID": pa.array([2, 5], pa.int64()), "name": ["u2", None]}),
           ["name"])
    ship(blobs)
    read = blobs.copy({"blob-as-descriptor": "true"}).new_read_builder()
    descriptors = read.new_read().to_arrow(read.new_scan().plan().splits())
    for value in descriptors.column("pic").to_pylist()[:10]:
        if value is not None:
            corpus.add("blob_descriptor", value)

    nested = create("nested", NESTED_SCHEMA, {**DE, "blob.target-file-size": "2 kb"})
    write(nested, nested_rows(0, 16))
    ship(nested)


# ------------------------------------------------------------------------ pypaimon

def write_pypaimon(warehouse: Path, oracle: str, scratch: Path) -> None:
    driver = ROOT / "tests" / "oracle" / "driver.py"

    def run(cmd):
        reply = subprocess.run([oracle, str(driver), "-"], input=json.dumps(cmd), text=True,
                               capture_output=True, check=True)
        result = json.loads(reply.stdout.strip().splitlines()[-1])
        if not result.get("ok"):
            raise RuntimeError(f"pypaimon {cmd['cmd']}: {result.get('message')}")
        return result.get("result")

    def ipc(name, table):
        path = scratch / f"{name}.arrow"
        with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
        return str(path)

    for name, schema, rows, options, keys in [
            ("py_small", SMALL_SCHEMA, small_rows, DE, ["p"]),
            ("py_wide", WIDE_SCHEMA, wide_rows, DE, ["p_str", "p_int"]),
            ("py_blobs", BLOB_SCHEMA, blob_rows, {**DE, "blob.target-file-size": "1 kb"}, []),
            ("py_nested", NESTED_SCHEMA, nested_rows, {**DE, "blob.target-file-size": "2 kb"},
             [])]:
        ident = f"db.{name}"
        try:
            run({"cmd": "create_table", "warehouse": str(warehouse), "identifier": ident,
                 "schema_ipc": ipc(f"{name}_schema", schema.empty_table()),
                 "partition_keys": keys, "options": options})
            run({"cmd": "write", "warehouse": str(warehouse), "identifier": ident,
                 "data_ipc": ipc(f"{name}_1", rows(0, 10))})
            run({"cmd": "write", "warehouse": str(warehouse), "identifier": ident,
                 "data_ipc": ipc(f"{name}_2", rows(10, 6))})
            run({"cmd": "create_tag", "warehouse": str(warehouse), "identifier": ident,
                 "tag": "py_tag"})
        except Exception as e:  # noqa: BLE001 - a table pypaimon cannot write is skipped
            print(f"make_corpus: pypaimon {name}: {e}", file=sys.stderr)


# ------------------------------------------------------------------------ harvesting files

def decode_delta_varint(data: bytes) -> List[int]:
    out, previous, pos = [], 0, 0
    while pos < len(data):
        value, shift = 0, 0
        while True:
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        delta = (value >> 1) ^ -(value & 1)
        previous = (previous + delta) & (2 ** 64 - 1)
        out.append(previous - 2 ** 64 if previous >= 2 ** 63 else previous)
    return out


def blob_payloads(data: bytes):
    """(index bytes, [payload bytes of each value entry]) of a .blob file."""
    index_length = struct.unpack_from("<i", data, len(data) - 5)[0]
    index = data[len(data) - 5 - index_length: len(data) - 5]
    payloads, offset = [], 0
    for length in decode_delta_varint(index):
        if length > 0:
            payloads.append(data[offset + 4: offset + length - 12])
            offset += length
    return index, payloads


def type_key(sql) -> Optional[str]:
    """The BINARY_ROW_TYPES / NESTED_KEY_TYPES key of a schema-JSON type (None: not atomic)."""
    if not isinstance(sql, str):
        return None
    t = sql.replace(" NOT NULL", "").strip()
    base = t.split("(")[0].strip()
    if base.startswith("DECIMAL"):
        precision = int(t[t.index("(") + 1:].split(",")[0]) if "(" in t else 10
        return "DECIMAL_COMPACT" if precision <= 18 else "DECIMAL_WIDE"
    if base.startswith("TIMESTAMP"):
        precision = int(t[t.index("(") + 1:].split(")")[0]) if "(" in t else 6
        if "LOCAL TIME ZONE" in t:
            return "LTZ6"
        return "TIMESTAMP3" if precision <= 3 else "TIMESTAMP6" if precision <= 6 else "TIMESTAMP9"
    if base in ("VARCHAR", "CHAR", "STRING"):
        return "STRING"
    if base in ("VARBINARY", "BINARY", "BYTES"):
        return "BYTES"
    return base if base in BINARY_ROW_TYPES or base in NESTED_KEY_TYPES else None


def json_types(node, out: List[str]) -> None:
    """Every type string (SQL form) in a schema JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("type", "element", "key", "value") and isinstance(value, str):
                out.append(value)
            json_types(value, out)
    elif isinstance(node, list):
        for value in node:
            json_types(value, out)


MANIFEST_ROWS = r'''
import json, sys, fastavro
out = []
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for record in fastavro.reader(f):
            if "_FILE" not in record:
                continue
            stats = record["_FILE"]["_VALUE_STATS"]
            out.append({"manifest": path, "partition": record["_PARTITION"].hex(),
                        "min": stats["_MIN_VALUES"].hex(), "max": stats["_MAX_VALUES"].hex(),
                        "cols": record["_FILE"].get("_VALUE_STATS_COLS"),
                        "write_cols": record["_FILE"].get("_WRITE_COLS")})
print(json.dumps(out))
'''


def harvest(warehouse: Path, corpus: Corpus, oracle: Optional[str]) -> None:
    for table in sorted((warehouse / "db.db").iterdir()):
        corpus.source = table.name
        print(f"make_corpus: harvesting {table.name}", file=sys.stderr)
        schema_files = sorted((table / "schema").glob("schema-*"))
        schema = json.loads(schema_files[-1].read_text())
        fields = {f["name"]: f["type"] for f in schema["fields"]}
        for f in schema_files:
            corpus.add("table_schema", f.read_bytes())
            types: List[str] = []
            json_types(json.loads(f.read_text()), types)
            for t in types:
                corpus.add("data_type", t.encode(), limit=30)
        for f in sorted((table / "snapshot").glob("snapshot-*")):
            corpus.add("snapshot", f.read_bytes())
        for f in sorted((table / "tag").glob("tag-*")) if (table / "tag").exists() else []:
            corpus.add("snapshot", f.read_bytes())
        manifests = sorted((table / "manifest").glob("*"))
        for f in manifests:
            corpus.add("manifest", f.read_bytes(), limit=5)
            corpus.add("avro", f.read_bytes(), limit=3)
        for f in sorted(table.rglob("*.blob")):
            data = f.read_bytes()
            corpus.add("blob_file", data)
            index, payloads = blob_payloads(data)
            corpus.add("delta_varint", index)
            for t in fields.values():
                if not isinstance(t, dict):
                    continue
                if t.get("type", "").startswith("ARRAY") and payloads[:1]:
                    mode = 0
                elif t.get("type", "").startswith("MAP"):
                    key = type_key(t.get("key"))
                    if key not in NESTED_KEY_TYPES:
                        continue
                    mode = 2 * NESTED_KEY_TYPES[key] + 1
                else:
                    continue
                magic = struct.pack("<I", 1094861634 if mode == 0 else 0x4D424342)
                for p in payloads[:8]:
                    if p.startswith(magic):
                        corpus.add("blob_nested", bytes([mode]) + p)
                        trailer = 4 if mode == 0 else 8
                        index_lengths = struct.unpack_from("<" + "i" * (trailer // 4), p,
                                                           len(p) - trailer)
                        end = len(p) - trailer
                        corpus.add("delta_varint", p[end - sum(index_lengths):end])
        if oracle and manifests:
            binary_rows(table, fields, schema.get("partitionKeys", []), manifests, corpus, oracle)


def binary_rows(table: Path, fields: Dict, partition_keys: List[str], manifests: List[Path],
                corpus: Corpus, oracle: str) -> None:
    reply = subprocess.run([oracle, "-c", MANIFEST_ROWS] + [str(m) for m in manifests],
                           text=True, capture_output=True, check=True)

    def selector(names):
        keys = [type_key(fields.get(n)) for n in names]
        if len(keys) > 8 or any(k not in BINARY_ROW_TYPES for k in keys):
            return None
        return bytes([len(keys)] + [BINARY_ROW_TYPES[k] for k in keys])

    for row in json.loads(reply.stdout):
        if partition_keys and (prefix := selector(partition_keys)) is not None:
            corpus.add("binary_row", prefix + bytes.fromhex(row["partition"]), limit=12)
        cols = row["cols"] or row["write_cols"] or list(fields)
        if (prefix := selector(cols)) is not None:
            for side in ("min", "max"):
                corpus.add("binary_row", prefix + bytes.fromhex(row[side]), limit=12)


def decimal_seeds(corpus: Corpus) -> None:
    """Java BigInteger.toByteArray() forms of unscaled values like those written above."""
    corpus.source = "decimals"
    for value in [0, 1, -1, 127, 128, -128, -129, 2 ** 63, -(2 ** 63) - 1, 10 ** 26 + 7,
                  -(10 ** 30), 2 ** 127 - 1, -(2 ** 127)]:
        length = (value + (value < 0)).bit_length() // 8 + 1
        corpus.add("decimal_bytes", value.to_bytes(length, "big", signed=True), limit=20)


def deletion_vector_seeds(corpus: Corpus) -> None:
    """Deletion vectors written by our delete (sparse array containers, a dense bitmap
    container, two containers), cut out of their index files at the recorded ranges; and a
    hand-made run-container bitmap (cookie 12347), the form Java's run-optimized vectors take."""
    from paimon_rowid import CatalogFactory, Schema
    corpus.source = "deletion_vectors"
    with tempfile.TemporaryDirectory(prefix="paimon-rowid-dv-") as tmp:
        catalog = CatalogFactory.create({"warehouse": tmp})
        catalog.create_database("db", True)
        catalog.create_table("db.t", Schema.from_pyarrow_schema(
            pa.schema([pa.field("id", pa.int64(), nullable=False)]),
            options=dict(DE, **{"deletion-vectors.enabled": "true"})), False)
        table = catalog.get_table("db.t")
        builder = table.new_batch_write_builder()
        write = builder.new_write()
        write.write_arrow(pa.table({"id": pa.array(range(140000), pa.int64())}))
        builder.new_commit().commit(write.prepare_commit())
        for ids in ([3, 9], list(range(0, 20000, 3)), [70000, 70001, 139999]):
            update = table.new_batch_write_builder().new_update()
            table.new_batch_write_builder().new_commit().commit(update.delete_by_row_id(ids))
            index_dir = Path(tmp) / "db.db" / "t" / "index"
            newest = max(index_dir.iterdir(), key=lambda f: f.stat().st_mtime)
            data = newest.read_bytes()
            size = struct.unpack(">i", data[1:5])[0]
            corpus.add("deletion_vector", data[5:5 + size], limit=10)
    run = struct.pack(">i", 1581511376) + struct.pack("<IBHHHHHHH", 12347, 1, 0, 3, 2, 3, 2,
                                                       10, 0)
    corpus.add("deletion_vector", run, limit=10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "fuzz" / "corpus"))
    parser.add_argument("--oracle", default=str(ROOT / ".venv-oracle" / "bin" / "python"))
    args = parser.parse_args()
    oracle = args.oracle if Path(args.oracle).exists() else None
    if oracle is None:
        print(f"make_corpus: warning: no pypaimon oracle at {args.oracle}; ours only",
              file=sys.stderr)
    corpus = Corpus(Path(args.out))
    with tempfile.TemporaryDirectory(prefix="paimon-rowid-corpus-") as tmp:
        # A fixed warehouse path: the splits and indexes carry it.
        warehouse = Path("/tmp/paimon-rowid-corpus-warehouse")
        shutil.rmtree(warehouse, ignore_errors=True)
        try:
            write_ours(warehouse, corpus)
            if oracle:
                write_pypaimon(warehouse, oracle, Path(tmp))
            harvest(warehouse, corpus, oracle)
        finally:
            shutil.rmtree(warehouse, ignore_errors=True)
    decimal_seeds(corpus)
    deletion_vector_seeds(corpus)
    for target, n in sorted(corpus.counts.items()):
        print(f"make_corpus: {target}: {n} new seed(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
