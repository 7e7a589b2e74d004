"""Deletion-vector (DV) test tables and checks shared by test_deletion_vectors*.py.

Tables: ``id BIGINT NOT NULL, a INT, b STRING, p STRING`` with data evolution, row tracking and
deletion vectors; "plain" (unpartitioned) or "part" (partitioned by ``p``). WRITES are the
append commits (ids ``first..first+count-1``, ``a = 10 * id``, ``b = "b<id>"``, ``p`` x/y
alternating, ``z`` for ids >= 10). Row ids are 0..12 in both layouts (which row gets which id
depends on the writer's per-partition order, so expectations are derived from a read).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence

import pyarrow as pa

SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("a", pa.int32()),
                    ("b", pa.string()), ("p", pa.string())])
ALL = SCHEMA.names
SYS = ["_ROW_ID", "_SEQUENCE_NUMBER"]
DE = {"data-evolution.enabled": "true", "row-tracking.enabled": "true"}
DV = {**DE, "deletion-vectors.enabled": "true"}
LAYOUTS = {"plain": [], "part": ["p"]}
WRITES = [(0, 5), (5, 5), (10, 3)]
NUM_ROWS = 13
BATCH_ID = 9223372036854775807
DV_MAGIC = 1581511376

INDEX_FILE = re.compile(r"^index-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+$")
INDEX_MANIFEST = re.compile(
    r"^index-manifest-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-\d+)?$")

# pypaimon's index-manifest writer schema, nullable unions and record names stripped
# (manifest/index_manifest_file.py:34-78).
INDEX_MANIFEST_FIELDS = [
    ("_VERSION", "int"), ("_KIND", "int"), ("_PARTITION", "bytes"), ("_BUCKET", "int"),
    ("_INDEX_TYPE", "string"), ("_FILE_NAME", "string"), ("_FILE_SIZE", "long"),
    ("_ROW_COUNT", "long"),
    ("_DELETIONS_VECTORS_RANGES", ["array", [("f0", "string"), ("f1", "int"), ("f2", "int"),
                                             ("_CARDINALITY", "long")]]),
    ("_EXTERNAL_PATH", "string"),
    ("_GLOBAL_INDEX", [("_ROW_RANGE_START", "long"), ("_ROW_RANGE_END", "long"),
                       ("_INDEX_FIELD_ID", "int"), ("_EXTRA_FIELD_IDS", ["array", "int"]),
                       ("_INDEX_META", "bytes"), ("_SOURCE_META", "bytes")]),
]


def partition_of(i: int) -> str:
    return "z" if i >= 10 else ("x" if i % 2 == 0 else "y")


def rows(first: int, count: int) -> pa.Table:
    ids = list(range(first, first + count))
    return pa.table({"id": ids, "a": [10 * i for i in ids], "b": [f"b{i}" for i in ids],
                     "p": [partition_of(i) for i in ids]}, schema=SCHEMA)


def pypaimon_setup(oracle, warehouse, identifier, keys, options=None) -> List[dict]:
    """Commands: create the table with pypaimon and append WRITES (one snapshot each)."""
    cmds = [oracle.create_table_cmd(warehouse, identifier, SCHEMA, partition_keys=keys,
                                    options=dict(DV if options is None else options))]
    return cmds + [oracle.write_cmd(warehouse, identifier, rows(a, n)) for a, n in WRITES]


# -- ours --------------------------------------------------------------------------------------

def catalog(warehouse):
    """Our catalog over a warehouse path or a dict of catalog options (S3)."""
    import ours
    return ours.catalog(warehouse)


def our_table(warehouse, identifier, snapshot_id=None):
    table = catalog(warehouse).get_table(identifier)
    return table if snapshot_id is None else table.copy({"scan.snapshot-id": str(snapshot_id)})


def our_setup(warehouse, name, keys, options=None, writes=WRITES):
    """Creates db.<name> with ours and appends ``writes``; returns the table."""
    import ours
    table = ours.create_table(warehouse, name, SCHEMA, dict(DV if options is None else options),
                              partition_keys=list(keys) or None)
    for a, n in writes:
        ours.write(table, rows(a, n))
    return table


def our_predicate(table, spec):
    from oracle import build_predicate
    return None if spec is None else build_predicate(
        table.new_read_builder().new_predicate_builder(), spec)


def our_delete_messages(warehouse, identifier, row_ids=None, *, spec=None, by_predicate=False):
    """(builder, messages) of ours' delete; nothing committed."""
    table = our_table(warehouse, identifier)
    builder = table.new_batch_write_builder()
    update = builder.new_update()
    if by_predicate:
        return builder, update.delete_by_predicate(our_predicate(table, spec))
    return builder, update.delete_by_row_id(row_ids)


def our_delete(warehouse, identifier, row_ids=None, *, spec=None, by_predicate=False):
    """Ours' delete, committed; returns the new snapshot id (None: nothing committed)."""
    builder, messages = our_delete_messages(warehouse, identifier, row_ids, spec=spec,
                                            by_predicate=by_predicate)
    return builder.new_commit().commit(messages)


def our_read(warehouse, identifier, projection=None, filter=None, row_ranges=None,
             snapshot_id=None) -> pa.Table:
    from paimon_rowid import Range
    table = our_table(warehouse, identifier, snapshot_id)
    builder = table.new_read_builder()
    if projection is not None:
        builder.with_projection(list(projection))
    if filter is not None:
        builder.with_filter(our_predicate(table, filter))
    scan = builder.new_scan()
    if row_ranges is not None:
        scan.with_row_ranges([Range(a, b) for a, b in row_ranges])
    return builder.new_read().to_arrow(scan.plan().splits())


# -- comparisons and metadata ----------------------------------------------------------------

def by_row_id(table: pa.Table) -> Dict[int, dict]:
    return {r.pop("_ROW_ID"): r for r in table.to_pylist()}


def same(ours: pa.Table, theirs: pa.Table, context: str) -> None:
    """Same schema and the same rows (by _ROW_ID when projected, else as a sorted multiset)."""
    assert ours.schema.equals(theirs.schema, check_metadata=False), (
        f"{context}: schema differs\nours:\n{ours.schema}\npypaimon:\n{theirs.schema}")
    if "_ROW_ID" in ours.column_names:
        assert by_row_id(ours) == by_row_id(theirs), context
    else:
        key = lambda r: json.dumps(r, sort_keys=True, default=str)  # noqa: E731
        assert sorted(ours.to_pylist(), key=key) == sorted(theirs.to_pylist(), key=key), context


def table_dir(warehouse, identifier) -> Path:
    database, name = identifier.split(".", 1)
    return Path(warehouse) / f"{database}.db" / name


def snapshot_json(warehouse, identifier, snapshot_id=None) -> Optional[dict]:
    """A snapshot file as JSON (default: the highest id), or None."""
    directory = table_dir(warehouse, identifier) / "snapshot"
    ids = sorted(int(p.name.split("-", 1)[1]) for p in directory.glob("snapshot-*"))
    if not ids:
        return None
    sid = ids[-1] if snapshot_id is None else snapshot_id
    return json.loads((directory / f"snapshot-{sid}").read_text())


def latest_id(warehouse, identifier) -> Optional[int]:
    snap = snapshot_json(warehouse, identifier)
    return None if snap is None else snap["id"]


def files(root) -> List[str]:
    out = []
    for directory, _, names in os.walk(str(root)):
        out.extend(os.path.relpath(os.path.join(directory, n), str(root)) for n in names)
    return sorted(out)


def anchors(entries: Iterable[dict]) -> Dict[tuple, dict]:
    """(partition tuple, first_row_id) -> anchor entry of each row-range group: the oldest
    normal file, min (max_sequence_number, file_name) (pypaimon's retrieve_anchor_file)."""
    out: Dict[tuple, dict] = {}
    normal = [e for e in entries if not e["file_name"].endswith(".blob")]
    for e in sorted(normal, key=lambda e: (e["max_sequence_number"], e["file_name"])):
        key = (tuple(e["partition"]), e["first_row_id"])
        out.setdefault(key, e)
    return out


def expected_dvs(entries: Iterable[dict],
                 deleted: Iterable[int]) -> Dict[tuple, Dict[str, List[int]]]:
    """partition tuple -> {anchor file name: sorted positions} for deleted row ids."""
    out: Dict[tuple, Dict[str, List[int]]] = {}
    groups = anchors(entries)
    for rid in sorted(set(deleted)):
        hits = [(k, e) for k, e in groups.items()
                if e["first_row_id"] <= rid < e["first_row_id"] + e["row_count"]]
        assert len(hits) == 1, f"row id {rid}: {hits}"
        (partition, _), anchor = hits[0]
        out.setdefault(partition, {}).setdefault(anchor["file_name"], []).append(
            rid - anchor["first_row_id"])
    return out


def _normalize(avro_type):
    """An Avro type with null-unions and record names dropped (see INDEX_MANIFEST_FIELDS)."""
    if isinstance(avro_type, list):
        rest = [t for t in avro_type if t != "null"]
        assert len(rest) == 1, avro_type
        return _normalize(rest[0])
    if isinstance(avro_type, dict):
        if avro_type["type"] == "record":
            return [(f["name"], _normalize(f["type"])) for f in avro_type["fields"]]
        if avro_type["type"] == "array":
            return ["array", _normalize(avro_type["items"])]
        return _normalize(avro_type["type"])
    return avro_type


def check_index_manifest(im: dict, expected: Dict[tuple, Dict[str, List[int]]],
                         context: str) -> None:
    """The oracle's ``index_manifest`` reply (pypaimon parsed it) is a well-formed DV index:
    one ADD entry per (partition, bucket 0) holding exactly ``expected``."""
    assert im is not None, f"{context}: no index manifest"
    assert INDEX_MANIFEST.match(im["name"]), im["name"]
    assert im["codec"] == "zstandard", context
    assert _normalize(im["schema"]) == [(n, t) for n, t in INDEX_MANIFEST_FIELDS], context
    for record in im["records"]:
        assert record["_VERSION"] == 1 and record["_KIND"] == 0, (context, record)
        assert record["_INDEX_TYPE"] == "DELETION_VECTORS" and record["_BUCKET"] == 0, context
        assert record["_EXTERNAL_PATH"] is None and record["_GLOBAL_INDEX"] is None, context
    got = {}
    for entry in im["entries"]:
        partition = tuple(entry["partition"])
        assert partition not in got, f"{context}: two DV entries for {partition}"
        assert INDEX_FILE.match(entry["file_name"]), entry["file_name"]
        assert entry["path"] == f"index/{entry['file_name']}", context
        assert entry["size"] == entry["file_size"] and entry["version"] == 1, context
        assert entry["row_count"] == len(entry["dvs"]), context
        names = [dv["data_file"] for dv in entry["dvs"]]
        assert names == sorted(names), f"{context}: bitmaps not in file-name order"
        offset = 1
        for dv in entry["dvs"]:
            assert dv["offset"] == offset, (context, dv)
            stored = bytes.fromhex(dv["stored_hex"])
            assert int.from_bytes(stored[:4], "big") == dv["length"], context
            assert int.from_bytes(stored[4:8], "big") == DV_MAGIC, context
            assert dv["cardinality"] == len(dv["positions"]), context
            # Byte-identical to pypaimon's own serialization of the same positions.
            assert dv["stored_hex"] == dv["pypaimon_hex"], (context, dv["data_file"])
            offset += dv["length"] + 8
        assert offset == entry["size"], f"{context}: trailing bytes in {entry['file_name']}"
        got[partition] = {dv["data_file"]: dv["positions"] for dv in entry["dvs"]}
    assert got == expected, context


def snapshot_files_cmds(oracle, warehouse, identifier, snapshot_ids: Sequence[int]) -> List[dict]:
    return [{"cmd": "files", "warehouse": str(warehouse), "identifier": identifier,
             "snapshot_id": s} for s in snapshot_ids]


def read_cmds(oracle, out_dir, warehouse, identifier, specs: Dict[str, dict]):
    """pypaimon read commands for named specs (keyword arguments of ``Oracle.read``); returns
    (commands, {name: output path}); load them with :func:`load_reads` after running."""
    cmds, outs = [], {}
    for name, spec in specs.items():
        outs[name] = Path(out_dir) / f"read-{Path(str(warehouse)).name}-{name}.arrow"
        cmds.append(oracle._read_cmd(warehouse, identifier, outs[name], **spec))
    return cmds, outs


def load_reads(outs: Dict[str, Path]) -> Dict[str, pa.Table]:
    from oracle import read_ipc
    return {name: read_ipc(path) for name, path in outs.items()}


def check_both_read_the_same(oracle, tmp_path, ours_wh, theirs_wh, identifier, context):
    """Ours' result (ours_wh) read by ours equals pypaimon's result (theirs_wh) read by ours,
    and pypaimon reads ours' result the same."""
    projection = ALL + ["_ROW_ID"]
    mine = our_read(ours_wh, identifier, projection)
    same(mine, our_read(theirs_wh, identifier, projection), f"{context} read by ours")
    reads, outs = read_cmds(oracle, tmp_path, ours_wh, identifier,
                            {"full": {"projection": projection}})
    oracle.run_batch(reads)
    same(mine, load_reads(outs)["full"], f"{context} ours read by pypaimon")
