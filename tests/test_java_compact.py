"""Tables compacted by Java Paimon's own data-evolution compaction read (and update) the same
through paimon_rowid (issue 17, compatibility).

Java builds a data-evolution table (three appends, then four partial-column updates of
``c_int`` by row id, so every row-id group holds a base file plus update files), tags it, and
compacts it with its core API (``DataEvolutionCompactCoordinator`` plans,
``DataEvolutionCompactTask`` rewrites, one ``COMPACT`` commit through ``BatchTableCommit``: the
harness's ``compact`` command). Then:

* Java's own read is unchanged (values and ``_ROW_ID``; ``_SEQUENCE_NUMBER`` see below);
* our reads (full, projections, row ranges, ``read_by_row_id``) equal Java's, and the
  pre-compaction tag still reads the same in both;
* the snapshot is ``COMPACT``; the live normal files went down (Java's file listing and our
  scan agree); the output file's metadata is what Java's task promises;
* our ``update_by_row_id`` on the compacted table lands, and Java reads the result as we do;
  Java then compacts again (taking our partial files in) and ours still reads like Java;
* a BLOB table: Java compacts the normal files and leaves the ``.blob`` files alone; asking it
  to compact ``.blob`` files too fails in 1.4.2 (pinned).

Java 1.4.2 facts pinned here (docs/java-oracle.md, "Java compaction"): the planner merges
*adjacent* row-id groups of a partition into one task, so one output file covers several
former groups; the output's ``_FILE_SOURCE`` is ``APPEND`` (not ``COMPACT``); its
min/max sequence numbers are the inputs' min/max, so rows of a merged-in group whose newest
file was older now read the output's max as ``_SEQUENCE_NUMBER`` (in Java and in ours).
"""
from __future__ import annotations

from typing import Any, Dict, List

import pytest

from java import (
    JAVA_PAIMON_VERSION,
    JavaOracleError,
    _load_dump,
    arrow_to_neutral,
    neutral_to_arrow,
)
from java_compat_table import (
    DE_OPTIONS,
    FIELDS,
    NAMES,
    SYS,
    assert_same_rows,
    our_read,
    rows,
    update_rows,
)

pytestmark = [pytest.mark.native, pytest.mark.java]

FULL = NAMES + SYS
LAYOUTS = {"plain": [], "pstr": ["p_str"]}
UPDATE_COLUMN = "c_int"
# (first id, count) of the three appends, then the row ids of four updates of c_int. The
# groups' newest files differ: group 0..29 last updated by update 2, 30..54 by update 3,
# 55..69 by update 4 (in the unpartitioned layout).
APPENDS = [(0, 30), (30, 25), (55, 15)]
UPDATES = [[0, 3, 17, 31, 60], [1, 3, 45, 29], [2, 33, 34, 54], [5, 61, 69, 55]]
NUM_ROWS = 70
COMPACT_OPTIONS = {"compaction.min.file-num": "2"}
# Java 1.4.2's DataEvolutionCompactTask writes through the append writer, whose files say
# APPEND; newer Paimon (format.md §5.5) says COMPACT.
JAVA_COMPACT_FILE_SOURCE = {"1.4.2": "APPEND"}
OUR_UPDATE_COLUMNS = ["c_int", "c_string"]
OUR_UPDATE_IDS = [0, 4, 29, 30, 54, 55, 69]
BY_ROW_ID_IDS = [0, 1, 3, 17, 29, 30, 31, 45, 54, 55, 61, 69]


READS = {
    "full": {"projection": FULL},
    "updated_column": {"projection": [UPDATE_COLUMN, "_ROW_ID"]},
    "system_first": {"projection": SYS + ["c_ts9", "c_dec38", "id"]},
    "nested": {"projection": ["c_row", "c_array_row", "c_map", "_ROW_ID"]},
    "row_ranges": {"projection": FULL, "row_ranges": [(2, 5), (28, 31), (54, 56), (68, 90)]},
    "tag_before": {"projection": FULL, "tag": "t_before"},
}




def _is_normal(name: str) -> bool:
    return not name.endswith(".blob") and ".vector." not in name


def _normal_files(files: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [f for f in files if _is_normal(f["file_name"])]


def _our_normal_file_count(warehouse: str, identifier: str, tag=None) -> int:
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(identifier)
    if tag is not None:
        table = table.copy({"scan.tag-name": tag})
    splits = table.new_read_builder().new_scan().plan().splits()
    return sum(1 for s in splits for p in s.file_paths if _is_normal(p.rsplit("/", 1)[-1]))


class Compacted:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def _run(java, cmds: List[Dict[str, Any]]) -> List[Any]:
    """One JVM for all ``cmds``; dump results become Dumps; the first error is raised."""
    results = java.run_all(cmds)
    return [_load_dump(cmd, r) if cmd["cmd"] == "dump" else r for cmd, r in zip(cmds, results)]


def _build_cmds(java, warehouse: str, identifier: str, keys: List[str]) -> List[Dict[str, Any]]:
    """Create, three appends, four updates of c_int (snapshots 1..7)."""
    cmds = [java.create_table_cmd(warehouse, identifier, FIELDS, keys, DE_OPTIONS)]
    cmds += [java.write_cmd(warehouse, identifier, rows(first, count, seed=10 + k))
             for k, (first, count) in enumerate(APPENDS)]
    cmds += [java.update_cmd(warehouse, identifier,
                             update_rows(ids, [UPDATE_COLUMN], seed=20 + k), [UPDATE_COLUMN])
             for k, ids in enumerate(UPDATES)]
    return cmds


@pytest.fixture(scope="module")
def compacted(native, java, tmp_path_factory):
    """Per layout two identical Java-built tables: ``db.<layout>`` (read checks) and
    ``db.<layout>_upd`` (our update lands on it). One JVM builds, tags, lists and dumps all;
    a second compacts, lists and dumps all (including every case of READS)."""
    warehouse = str(tmp_path_factory.mktemp("javacompact") / "warehouse")
    build: List[Dict[str, Any]] = []
    for layout, keys in LAYOUTS.items():
        for identifier in (f"db.{layout}", f"db.{layout}_upd"):
            build += _build_cmds(java, warehouse, identifier, keys)
            build += [java.tag_cmd(warehouse, identifier, "t_before"),
                      java.files_cmd(warehouse, identifier),
                      java.dump_cmd(warehouse, identifier, projection=FULL)]
    built = iter(_run(java, build))
    before: Dict[str, Any] = {}
    for layout in LAYOUTS:
        for identifier in (f"db.{layout}", f"db.{layout}_upd"):
            steps = [next(built) for _ in range(1 + len(APPENDS) + len(UPDATES))]
            next(built)  # tag
            before[identifier] = (steps[-1]["snapshot_id"], next(built), next(built))
    compact: List[Dict[str, Any]] = []
    for layout in LAYOUTS:
        for identifier in (f"db.{layout}", f"db.{layout}_upd"):
            compact += [java.compact_cmd(warehouse, identifier, options=COMPACT_OPTIONS),
                        java.files_cmd(warehouse, identifier),
                        {"cmd": "snapshot", "warehouse": warehouse, "identifier": identifier},
                        java.dump_cmd(warehouse, identifier, projection=FULL)]
        compact += [java.dump_cmd(warehouse, f"db.{layout}", **spec) for spec in READS.values()]
    done = iter(_run(java, compact))
    out = {}
    for layout in LAYOUTS:
        for identifier in (f"db.{layout}", f"db.{layout}_upd"):
            snapshot_id, files_before, dump_before = before[identifier]
            out[identifier] = Compacted(
                warehouse=warehouse, identifier=identifier, before_snapshot=snapshot_id,
                files_before=files_before, dump_before=dump_before,
                ours_before=our_read(warehouse, identifier, projection=FULL, tag="t_before"),
                our_files_before=_our_normal_file_count(warehouse, identifier, tag="t_before"),
                result=next(done), files_after=next(done), snapshot_after=next(done),
                dump_after=next(done))
        out[f"db.{layout}"].reads = {name: next(done) for name in READS}
    return out


def _covering(files: List[Dict[str, Any]], row_id: int, partition) -> Dict[str, Any]:
    hits = [f for f in _normal_files(files) if f["partition"] == partition
            and f["first_row_id"] <= row_id < f["first_row_id"] + f["row_count"]]
    return max(hits, key=lambda f: f["max_sequence_number"])


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_java_compaction_commits_compact_snapshot(compacted, layout):
    c = compacted[f"db.{layout}"]
    assert c.result["snapshot_id"] == c.before_snapshot + 1
    assert c.result["commit_kind"] == "COMPACT"
    assert c.snapshot_after["commitKind"] == "COMPACT"
    assert c.snapshot_after["totalRecordCount"] == NUM_ROWS
    tasks = c.result["tasks"]
    assert tasks and not any(t["blob_task"] for t in tasks)

    live_before = {f["file_name"]: f for f in c.files_before}
    live_after = {f["file_name"]: f for f in c.files_after}
    for task in tasks:
        before, after = task["before"], task["after"]
        assert len(after) == 1, task
        out = after[0]
        assert all(f["file_name"] in live_before for f in before)
        assert not any(f["file_name"] in live_after for f in before)  # DELETE entries
        assert out["file_name"] in live_after and out["file_name"] not in live_before
        # One output over the union of the inputs' (contiguous) row-id groups.
        groups = sorted({(f["first_row_id"], f["row_count"]) for f in before})
        for (a, n), (b, _) in zip(groups, groups[1:]):
            assert a + n == b, groups
        assert out["first_row_id"] == groups[0][0]
        assert out["row_count"] == sum(n for _, n in groups)
        assert out["min_sequence_number"] == min(f["min_sequence_number"] for f in before)
        assert out["max_sequence_number"] == max(f["max_sequence_number"] for f in before)
        if JAVA_PAIMON_VERSION in JAVA_COMPACT_FILE_SOURCE:
            assert out["file_source"] == JAVA_COMPACT_FILE_SOURCE[JAVA_PAIMON_VERSION]
        assert live_after[out["file_name"]]["write_cols"] is None  # every column
    # Every live normal file is now the only one over its row range.
    normal_after = _normal_files(c.files_after)
    spans = [(tuple(f["partition"]), f["first_row_id"], f["row_count"]) for f in normal_after]
    assert len(spans) == len(set(spans))
    assert len(normal_after) < len(_normal_files(c.files_before))
    assert sum(f["row_count"] for f in normal_after) == NUM_ROWS
    # Our scan sees the same live files as Java's listing, before and after.
    assert c.our_files_before == len(_normal_files(c.files_before))
    assert _our_normal_file_count(c.warehouse, c.identifier) == len(normal_after)
    assert _our_normal_file_count(c.warehouse, c.identifier, tag="t_before") == \
        c.our_files_before


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_java_read_unchanged_by_its_compaction(compacted, layout):
    """Values and _ROW_ID are unchanged; _SEQUENCE_NUMBER becomes the covering output file's
    max sequence number (a merged-in group with an older newest file reads a larger one)."""
    c = compacted[f"db.{layout}"]
    before, after = c.dump_before, c.dump_after
    seq = before.names.index("_SEQUENCE_NUMBER")
    assert after.names == before.names and len(after.rows) == len(before.rows) == NUM_ROWS
    strip = [[v for i, v in enumerate(r) if i != seq] for r in before.rows]
    assert [[v for i, v in enumerate(r) if i != seq] for r in after.rows] == strip
    part = [before.names.index(k) for k in LAYOUTS[layout]]
    row_id = before.names.index("_ROW_ID")
    expected = [_covering(c.files_after, r[row_id], [r[i] for i in part])["max_sequence_number"]
                for r in after.rows]
    assert [r[seq] for r in after.rows] == expected
    # Before compaction each row read its group's newest file's sequence number, and at least
    # one merged-in row now reads a larger one in the unpartitioned layout (groups differ).
    assert [r[seq] for r in before.rows] == [
        _covering(c.files_before, r[row_id], [r[i] for i in part])["max_sequence_number"]
        for r in before.rows]
    if layout == "plain":
        assert any(a[seq] > b[seq] for a, b in zip(after.rows, before.rows))


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_our_reads_of_java_compacted_table(compacted, layout):
    c = compacted[f"db.{layout}"]
    for name, spec in READS.items():
        dump = c.reads[name]
        names, ours = our_read(c.warehouse, c.identifier, **spec)
        assert_same_rows(names, ours, dump, f"{layout}/{name}")
    # The pre-compaction tag reads what the table read before, in ours too.
    names, ours = our_read(c.warehouse, c.identifier, projection=FULL, tag="t_before")
    assert (names, ours) == c.ours_before
    assert_same_rows(names, ours, c.dump_before, f"{layout}/tag_before_vs_dump_before")


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_our_read_by_row_id_of_java_compacted_table(compacted, layout):
    import pyarrow as pa

    from paimon_rowid import read_by_row_id
    c = compacted[f"db.{layout}"]
    projection = ["id", UPDATE_COLUMN, "c_string", "c_ts9", "c_row"]
    got = read_by_row_id(c.identifier, pa.table({"_ROW_ID": pa.array(BY_ROW_ID_IDS,
                                                                      pa.int64())}),
                         {"warehouse": c.warehouse}, projection=projection)
    got = got.sort_by("_ROW_ID")
    assert got.column_names == projection + ["_ROW_ID"]
    index = {n: i for i, n in enumerate(c.dump_after.names)}
    want = [[r[index[n]] for n in projection + ["_ROW_ID"]] for r in c.dump_after.rows
            if r[index["_ROW_ID"]] in set(BY_ROW_ID_IDS)]
    assert arrow_to_neutral(got) == want


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_our_update_on_java_compacted_table(compacted, java, layout):
    """Our update_by_row_id lands on Java's compacted (merged-group) files; Java then reads
    exactly what we read, with the updated values."""
    from paimon_rowid import CatalogFactory
    from paimon_rowid.row_id_jobs import update_by_row_id
    c = compacted[f"db.{layout}_upd"]
    warehouse, identifier = c.warehouse, c.identifier
    compacted_snapshot, files, before = c.result["snapshot_id"], c.files_after, c.dump_after
    assert c.result["commit_kind"] == "COMPACT"

    table = CatalogFactory.create({"warehouse": warehouse}).get_table(identifier)
    new_values = update_rows(OUR_UPDATE_IDS, OUR_UPDATE_COLUMNS, seed=99)
    source = neutral_to_arrow(new_values, table.read_schema(["_ROW_ID"] + OUR_UPDATE_COLUMNS))
    update_by_row_id(identifier, source, {"warehouse": warehouse},
                     update_cols=OUR_UPDATE_COLUMNS)
    snapshot = table.latest_snapshot()
    assert snapshot["id"] == compacted_snapshot + 1

    specs = {"full": {"projection": FULL},
             "updated": {"projection": OUR_UPDATE_COLUMNS + ["_ROW_ID"]},
             "at_compaction": {"projection": FULL, "snapshot_id": compacted_snapshot}}
    # Java reads, then compacts again (now merging OUR partial files) and reads once more.
    *dump_list, java_files, again, files_again, dump_again = _run(
        java, [java.dump_cmd(warehouse, identifier, **spec) for spec in specs.values()]
        + [java.files_cmd(warehouse, identifier),
           java.compact_cmd(warehouse, identifier, options=COMPACT_OPTIONS),
           java.files_cmd(warehouse, identifier),
           java.dump_cmd(warehouse, identifier, projection=FULL)])
    dumps = dict(zip(specs, dump_list))
    for name, spec in specs.items():
        names, ours = our_read(warehouse, identifier, **spec)
        assert_same_rows(names, ours, dumps[name], f"{layout}/after_our_update/{name}")
    assert dumps["at_compaction"].rows == before.rows

    # The updated rows hold the new values, the others are untouched.
    index = {n: i for i, n in enumerate(FULL)}
    by_id = {v["_ROW_ID"]: v for v in new_values}
    for old, new in zip(before.rows, dumps["full"].rows):
        row_id = old[index["_ROW_ID"]]
        for column in NAMES:
            expect = by_id[row_id][column] if row_id in by_id and column in by_id[row_id] \
                else old[index[column]]
            assert new[index[column]] == expect, (row_id, column)
    # Our update wrote one partial file per touched compacted file, over its whole range.
    compacted_ranges = {(tuple(f["partition"]), f["first_row_id"], f["row_count"])
                        for f in _normal_files(files)}
    added = [f for f in _normal_files(java_files)
             if f["file_name"] not in {g["file_name"] for g in files}]
    assert added
    for f in added:
        assert (tuple(f["partition"]), f["first_row_id"], f["row_count"]) in compacted_ranges
        assert sorted(f["write_cols"]) == sorted(OUR_UPDATE_COLUMNS)
    # Java's second compaction takes our partial files in: one normal file per range again,
    # Java's read unchanged but for _SEQUENCE_NUMBER, and ours equal to Java's.
    assert again["commit_kind"] == "COMPACT" and again["tasks"]
    assert any(f["file_name"] in {a["file_name"] for a in added}
               for t in again["tasks"] for f in t["before"])
    spans = [(tuple(f["partition"]), f["first_row_id"], f["row_count"])
             for f in _normal_files(files_again)]
    assert len(spans) == len(set(spans))
    seq = FULL.index("_SEQUENCE_NUMBER")
    assert [r[:seq] for r in dump_again.rows] == [r[:seq] for r in dumps["full"].rows]
    names, ours = our_read(warehouse, identifier, projection=FULL)
    assert_same_rows(names, ours, dump_again, f"{layout}/after_second_java_compaction")


# ------------------------------------------------------------------------------------------
# a BLOB table: Java compacts the normal files only
# ------------------------------------------------------------------------------------------

BLOB_FIELDS = [{"name": "id", "type": "BIGINT NOT NULL"}, {"name": "label", "type": "STRING"},
               {"name": "pic", "type": "BLOB"}, {"name": "score", "type": "INT"}]
BLOB_NAMES = [f["name"] for f in BLOB_FIELDS]
# Java 1.4.2's DataEvolutionCompactTask refuses .blob tasks (the planner makes them when
# asked with compact_blob): UnsupportedOperationException "Blob task is not supported".
JAVA_REFUSES_BLOB_TASKS = {"1.4.2": "Blob task is not supported"}


def _blob_rows(first: int, count: int) -> List[Dict[str, Any]]:
    import base64
    out = []
    for i in range(first, first + count):
        pic = None if i % 7 == 3 else base64.b64encode(bytes([i % 251]) * (i * 37 % 5000)
                                                       ).decode("ascii")
        out.append({"id": i, "label": f"l{i}", "pic": pic, "score": i})
    return out


def test_java_compacts_blob_table_normal_files(native, java, tmp_path):
    """Java rewrites the normal files of each group (blob columns excluded from the rewrite)
    and leaves the .blob files; reads (payloads included) are unchanged in Java and equal in
    ours; asking for .blob compaction fails in 1.4.2."""
    warehouse, identifier = str(tmp_path / "warehouse"), "db.blobs"
    full = BLOB_NAMES + SYS
    cmds = [java.create_table_cmd(warehouse, identifier, BLOB_FIELDS, [], DE_OPTIONS),
            java.write_cmd(warehouse, identifier, _blob_rows(0, 10)),
            java.write_cmd(warehouse, identifier, _blob_rows(10, 10)),
            java.write_cmd(warehouse, identifier, _blob_rows(20, 5))]
    cmds += [java.update_cmd(warehouse, identifier,
                             [{"_ROW_ID": r, "score": 1000 * k + r} for r in ids], ["score"])
             for k, ids in enumerate([[1, 12, 22], [2, 3, 19], [4, 24]])]
    cmds += [java.files_cmd(warehouse, identifier),
             java.dump_cmd(warehouse, identifier, projection=full),
             java.compact_cmd(warehouse, identifier, options=COMPACT_OPTIONS),
             java.files_cmd(warehouse, identifier),
             java.dump_cmd(warehouse, identifier, projection=full),
             java.compact_cmd(warehouse, identifier, options=COMPACT_OPTIONS,
                              compact_blob=True)]
    results = java.run_batch(cmds)
    for result in results[:-1]:
        if isinstance(result, Exception):
            raise result
    files_before, files_after = results[-6], results[-3]
    dump_before, dump_after = (_load_dump(cmds[-5], results[-5]),
                               _load_dump(cmds[-2], results[-2]))
    compact, blob_compact = results[-4], results[-1]

    assert compact["commit_kind"] == "COMPACT" and compact["tasks"]
    blobs_before = sorted(f["file_name"] for f in files_before
                          if f["file_name"].endswith(".blob"))
    blobs_after = sorted(f["file_name"] for f in files_after if f["file_name"].endswith(".blob"))
    assert blobs_before and blobs_after == blobs_before
    assert len(_normal_files(files_after)) < len(_normal_files(files_before))
    for task in compact["tasks"]:
        assert not any(f["file_name"].endswith(".blob") for f in task["before"])
        out = {f["file_name"]: f for f in files_after}[task["after"][0]["file_name"]]
        assert out["write_cols"] == ["id", "label", "score"]  # all but the .blob column
    # The rewrite leaves pic in its .blob files; the output holds the other columns.
    seq = dump_before.names.index("_SEQUENCE_NUMBER")
    assert [r[:seq] for r in dump_after.rows] == [r[:seq] for r in dump_before.rows]
    names, ours = our_read(warehouse, identifier, projection=full)
    assert_same_rows(names, ours, dump_after, "blob/after_java_compaction")
    names, ours = our_read(warehouse, identifier, projection=["pic", "score", "_ROW_ID"],
                           row_ranges=[(2, 4), (18, 24)])
    wanted = [[r[2], r[3], r[4]] for r in dump_after.rows
              if 2 <= r[4] <= 4 or 18 <= r[4] <= 24]
    assert ours == wanted

    if JAVA_PAIMON_VERSION in JAVA_REFUSES_BLOB_TASKS:
        assert isinstance(blob_compact, JavaOracleError), blob_compact
        assert blob_compact.error_type == "java.lang.UnsupportedOperationException"
        assert JAVA_REFUSES_BLOB_TASKS[JAVA_PAIMON_VERSION] in blob_compact.message
        latest = java.run(java.files_cmd(warehouse, identifier))
        assert sorted(f["file_name"] for f in latest) == \
            sorted(f["file_name"] for f in files_after)  # nothing committed
