"""Deletion vectors (issue 19): validations, no-op deletes, the partition fast path and
concurrent deletes, against pypaimon 2.1.0 (memo pypaimon-merge-into-and-joins.md §2.4/§2.5;
FINDINGS.md §5/§6).

(e) Every validation of delete_by_row_id / delete_by_predicate raises pypaimon's exception
    type and message (the same cases are run in pypaimon to pin them) and commits nothing: no
    new snapshot, no new file anywhere under the table. Deletes that change nothing return []
    and committing [] makes no snapshot. A partition-only predicate drops whole files (also
    without DVs), a mixed predicate goes through DVs.
(f) A delete planned on a stale snapshot: conflicts when another delete replaced the bucket's
    DV file or set a DV on the same anchor (CommitConflictException, pypaimon's message, our
    staged index file removed); commits when the other delete hit another anchor, or when the
    concurrent commit was an append or an update. pypaimon detects the same conflicts against
    our commits.
"""
from __future__ import annotations

import pyarrow as pa
import pytest

import dv_tables as dv
from dv_tables import ALL

pytestmark = pytest.mark.oracle

DE_MSG = "delete requires 'data-evolution.enabled' = 'true'."
DV_MSG = "delete requires 'deletion-vectors.enabled' = 'true'."
# Ours where pypaimon's points the wrong way (issue 47): a table with neither option hears of
# both, not only of data evolution (to then meet the row-tracking refusal once that is set).
PLAIN_MSG = ("delete requires 'data-evolution.enabled' = 'true' and 'row-tracking.enabled' = "
             "'true' (both are set when the table is created).")
OURS_DIFFER = {"plain_empty_list": PLAIN_MSG, "plain_ids": PLAIN_MSG,
               "plain_predicate": PLAIN_MSG}
RANGES = "['[0, 4]', '[5, 9]', '[10, 12]']"
TABLES = {"de": dv.DE, "plain": {}, "dv": dv.DV, "empty": dv.DV}

# (table, call, argument, exception type, exact message)
INVALID = {
    "de_empty_list": ("de", "row_id", [], ValueError, DV_MSG),
    "de_ids": ("de", "row_id", [0], ValueError, DV_MSG),
    "de_predicate_none": ("de", "predicate", None, ValueError, DV_MSG),
    "de_predicate": ("de", "predicate", ["equal", "id", [1]], ValueError, DV_MSG),
    "plain_empty_list": ("plain", "row_id", [], ValueError, DE_MSG),
    "plain_ids": ("plain", "row_id", [0], ValueError, DE_MSG),
    # pypaimon fails its matching read first here (KeyError '_ROW_ID'): see test_pinned_...
    "plain_predicate": ("plain", "predicate", ["equal", "id", [1]], ValueError, DE_MSG),
    "null_id": ("dv", "row_id", [2, None], ValueError, "_ROW_ID value must not be null."),
    "past_the_end": ("dv", "row_id", [13], ValueError,
                     f"Row ID 13 does not belong to any valid range {RANGES}"),
    "negative": ("dv", "row_id", [-1], ValueError,
                 f"Row ID -1 does not belong to any valid range {RANGES}"),
    "one_bad_id": ("dv", "row_id", [0, 7, 99], ValueError,  # nothing written for 0 and 7
                   f"Row ID 99 does not belong to any valid range {RANGES}"),
    "no_snapshot": ("empty", "row_id", [0], ValueError,
                    "Row ID 0 does not belong to any valid range []"),
}


def _writes(name):
    return [] if name == "empty" else dv.WRITES


@pytest.fixture(scope="module")
def tables(tmp_path_factory, native):
    """Ours' tables for the validation cases (never changed by them)."""
    warehouse = str(tmp_path_factory.mktemp("dv-validation"))
    for name, options in TABLES.items():
        dv.our_setup(warehouse, name, [], options=options, writes=_writes(name))
    return warehouse


@pytest.fixture(scope="module")
def pinned(tmp_path_factory, oracle):
    """pypaimon's answer to every INVALID case on the same tables (one process)."""
    warehouse = str(tmp_path_factory.mktemp("dv-validation-pypaimon"))
    cmds = []
    for name, options in TABLES.items():
        cmds.append(oracle.create_table_cmd(warehouse, f"db.{name}", dv.SCHEMA,
                                            options=dict(options)))
        cmds += [oracle.write_cmd(warehouse, f"db.{name}", dv.rows(a, n))
                 for a, n in _writes(name)]
    for table, call, arg, _, _ in INVALID.values():
        cmds.append(oracle.delete_cmd(warehouse, f"db.{table}", arg) if call == "row_id" else
                    oracle.delete_cmd(warehouse, f"db.{table}", filter=arg, by_predicate=True))
    return dict(zip(INVALID, oracle.run_batch(cmds)[-len(INVALID):]))


@pytest.mark.parametrize("case", list(INVALID))
def test_pinned_messages_are_pypaimons(pinned, case):
    from oracle import OracleError
    _, _, _, error, message = INVALID[case]
    got = pinned[case]
    assert isinstance(got, OracleError), f"{case}: pypaimon returned {got}"
    if case == "plain_predicate":  # pypaimon artefact: the _ROW_ID read fails before the check
        assert (got.error_type, got.message) == (
            "KeyError", "'Field \"_ROW_ID\" does not exist in schema'")
        return
    assert (got.error_type, got.message) == (error.__name__, message)


@pytest.mark.native
@pytest.mark.parametrize("case", list(INVALID))
def test_invalid_deletes_raise_and_commit_nothing(tables, case):
    table, call, arg, error, message = INVALID[case]
    ident = f"db.{table}"
    before, snapshot = dv.files(tables), dv.latest_id(tables, ident)
    with pytest.raises(error) as info:
        if call == "row_id":
            dv.our_delete(tables, ident, arg)
        else:
            dv.our_delete(tables, ident, spec=arg, by_predicate=True)
    assert str(info.value) == OURS_DIFFER.get(case, message)
    assert dv.latest_id(tables, ident) == snapshot and dv.files(tables) == before


@pytest.mark.native
def test_deletes_that_change_nothing_commit_nothing(warehouse):
    dv.our_setup(warehouse, "t", ["p"])
    dv.our_setup(warehouse, "e", [], writes=[])
    assert dv.our_delete(warehouse, "db.t", [1, 1, 12, 1]) == 4  # duplicates: one bit each
    before = dv.files(warehouse)
    for ident, call, arg in [("db.t", "row_id", []), ("db.t", "row_id", [1, 12]),
                             ("db.t", "predicate", ["equal", "p", ["nope"]]),
                             ("db.t", "predicate", ["equal", "id", [99]]),
                             ("db.e", "predicate", None),
                             ("db.e", "predicate", ["equal", "id", [1]])]:
        builder, messages = dv.our_delete_messages(
            warehouse, ident, arg if call == "row_id" else None, spec=arg,
            by_predicate=call == "predicate")
        assert list(messages) == [], (ident, arg)
        assert builder.new_commit().commit(messages) is None
    assert dv.files(warehouse) == before
    assert dv.latest_id(warehouse, "db.t") == 4 and dv.latest_id(warehouse, "db.e") is None
    got = dv.our_read(warehouse, "db.t", ["_ROW_ID"])
    assert sorted(got["_ROW_ID"].to_pylist()) == [i for i in range(13) if i not in (1, 12)]


@pytest.mark.native
def test_partition_only_predicates(warehouse, oracle, tmp_path):
    """memo §2.4: a predicate on partition keys only drops the partitions' files (and DV
    entries) in an OVERWRITE commit, with or without DVs; a mixed predicate uses DVs."""
    dv.our_setup(warehouse, "pde", ["p"], options=dv.DE)
    dv.our_setup(warehouse, "pdv", ["p"])
    rows = dv.by_row_id(dv.our_read(warehouse, "db.pdv", ALL + ["_ROW_ID"]))
    of = lambda *parts: {i for i, r in rows.items() if r["p"] in parts}  # noqa: E731
    # No DVs: the fast path needs neither deletion vectors nor a DV index.
    assert dv.our_delete(warehouse, "db.pde", spec=["equal", "p", ["z"]], by_predicate=True) == 4
    snap = dv.snapshot_json(warehouse, "db.pde")
    assert (snap["commitKind"], snap["deltaRecordCount"], snap["totalRecordCount"]) == \
        ("OVERWRITE", -3, 10)
    assert snap.get("indexManifest") is None
    # DVs in x and z, then drop y and z (an OR of partitions), then x: no DV entry is left.
    x_and_z = {min(of("x")), min(of("z"))}
    assert dv.our_delete(warehouse, "db.pdv", sorted(x_and_z)) == 4
    assert dv.our_delete(warehouse, "db.pdv", by_predicate=True, spec=[
        "or", [["equal", "p", ["y"]], ["equal", "p", ["z"]]]]) == 5
    assert dv.snapshot_json(warehouse, "db.pdv")["commitKind"] == "OVERWRITE"
    mixed = ["and", [["equal", "p", ["x"]], ["equal", "id", [rows[max(of("x"))]["id"]]]]]
    assert dv.our_delete(warehouse, "db.pdv", spec=mixed, by_predicate=True) == 6
    snap6 = dv.snapshot_json(warehouse, "db.pdv")
    assert snap6["deltaRecordCount"] == 0 and snap6["totalRecordCount"] == len(of("x"))
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, "db.pdv",
                               {"pdv": {"projection": ALL + ["_ROW_ID"]}})
    reads2, outs2 = dv.read_cmds(oracle, tmp_path, warehouse, "db.pde",
                                 {"pde": {"projection": ALL + ["_ROW_ID"]}})
    replies = oracle.run_all(reads + reads2 + [
        {"cmd": "entries", "warehouse": warehouse, "identifier": "db.pdv"},
        oracle.index_manifest_cmd(warehouse, "db.pdv")])
    live = of("x") - x_and_z - {max(of("x"))}
    expected = dv.expected_dvs(replies[-2], of("x") - live)
    dv.check_index_manifest(replies[-1], expected, "pdv")
    theirs = {**dv.load_reads(outs), **dv.load_reads(outs2)}
    assert set(dv.by_row_id(theirs["pdv"])) == live
    assert set(dv.by_row_id(theirs["pde"])) == of("x", "y")
    for name in ("pdv", "pde"):
        dv.same(dv.our_read(warehouse, f"db.{name}", ALL + ["_ROW_ID"]), theirs[name], name)
    assert dv.our_delete(warehouse, "db.pdv", spec=["equal", "p", ["x"]], by_predicate=True) == 7
    snap = dv.snapshot_json(warehouse, "db.pdv")
    assert snap.get("indexManifest") is None and snap["totalRecordCount"] == 0


# -- (f) stale-base deletes -------------------------------------------------------------------

def _staged(warehouse, ident, row_ids):
    """Ours' delete planned now, committed by the caller later: (builder, messages, files
    the planning wrote)."""
    before = set(dv.files(warehouse))
    builder, messages = dv.our_delete_messages(warehouse, ident, row_ids)
    return builder, messages, set(dv.files(warehouse)) - before


@pytest.mark.native
@pytest.mark.parametrize("prior, theirs, message", [
    ([0], [6], r"^Deletion vector index conflict detected: index file index-\S+ is not "
               r"present in the latest snapshot\. "),
    (None, [2], r"^Deletion vector index conflict detected: data file data-\S+\.parquet "
                r"already has a newer deletion vector index file index-\S+\. "),
], ids=["bucket_dv_replaced", "same_anchor"])
def test_stale_delete_conflicts(warehouse, oracle, prior, theirs, message):
    from paimon_rowid import CommitConflictException
    dv.our_setup(warehouse, "t", [])
    if prior:
        dv.our_delete(warehouse, "db.t", prior)
    base = dv.latest_id(warehouse, "db.t")
    builder, messages, staged = _staged(warehouse, "db.t", [1])
    assert staged and all(name.startswith("db.db/t/index/index-") for name in staged)
    assert oracle.run(oracle.delete_cmd(warehouse, "db.t", theirs))["snapshot_id"] == base + 1
    after_theirs = dv.files(warehouse)
    with pytest.raises(CommitConflictException, match=message) as info:
        builder.new_commit().commit(messages)
    assert isinstance(info.value, RuntimeError)
    assert dv.latest_id(warehouse, "db.t") == base + 1
    assert dv.files(warehouse) == sorted(set(after_theirs) - staged), "staged DV file left"
    got = dv.our_read(warehouse, "db.t", ["_ROW_ID"])["_ROW_ID"].to_pylist()
    assert 1 in got and not set(theirs + (prior or [])) & set(got)


@pytest.mark.native
def test_stale_delete_of_another_anchor_commits(warehouse, oracle, tmp_path):
    """No DVs in the bucket at the base and another anchor: both DV entries are kept (one
    bucket, two index files), both readers apply both, and the next delete merges them."""
    dv.our_setup(warehouse, "t", [])
    builder, messages, _ = _staged(warehouse, "db.t", [1])  # group [0, 4]
    oracle.run(oracle.delete_cmd(warehouse, "db.t", [6]))   # group [5, 9]
    assert builder.new_commit().commit(messages) == 5
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, "db.t",
                               {"full": {"projection": ALL + ["_ROW_ID"]}})
    replies = oracle.run_all(reads + [oracle.index_manifest_cmd(warehouse, "db.t")])
    assert len(replies[-1]["entries"]) == 2
    theirs = dv.load_reads(outs)["full"]
    assert set(dv.by_row_id(theirs)) == set(range(13)) - {1, 6}
    dv.same(dv.our_read(warehouse, "db.t", ALL + ["_ROW_ID"]), theirs, "two DV files")
    assert dv.our_delete(warehouse, "db.t", [10]) == 6
    replies = oracle.run_all([{"cmd": "entries", "warehouse": warehouse, "identifier": "db.t"},
                              oracle.index_manifest_cmd(warehouse, "db.t")])
    dv.check_index_manifest(replies[-1], dv.expected_dvs(replies[-2], {1, 6, 10}), "merged")


@pytest.mark.native
def test_pypaimon_detects_conflicts_with_our_deletes(warehouse, oracle, tmp_path):
    """pypaimon plans a delete, ours commits one in the same bucket, pypaimon's commit then
    conflicts (its index_deletes name the file ours replaced); nothing of it is visible."""
    dv.our_setup(warehouse, "t", [])
    dv.our_delete(warehouse, "db.t", [0])
    pickled = str(tmp_path / "messages.pkl")
    oracle.run(oracle.delete_cmd(warehouse, "db.t", [1], messages_out=pickled))
    assert dv.our_delete(warehouse, "db.t", [6]) == 5
    reads, outs = dv.read_cmds(oracle, tmp_path, warehouse, "db.t",
                               {"full": {"projection": ["_ROW_ID"]}})
    replies = oracle.run_batch([oracle.commit_messages_cmd(warehouse, "db.t", pickled)] + reads)
    assert getattr(replies[0], "error_type", None) == "RuntimeError", replies[0]
    assert replies[0].message.startswith(
        "Deletion vector index conflict detected: index file index-")
    assert dv.latest_id(warehouse, "db.t") == 5
    assert sorted(dv.load_reads(outs)["full"]["_ROW_ID"].to_pylist()) == \
        [i for i in range(13) if i not in (0, 6)]


@pytest.mark.native
def test_stale_delete_commits_after_an_append_or_an_update(warehouse):
    """An append or a partial-column update between plan and commit does not conflict with a
    delete, and a stale append commits after a delete (pypaimon: both orders commit)."""
    import ours
    table = dv.our_setup(warehouse, "t", [])
    builder, messages, _ = _staged(warehouse, "db.t", [1])
    ours.write(table, dv.rows(13, 2))  # 4
    update = dv.our_table(warehouse, "db.t").new_batch_write_builder()
    update.new_commit().commit(update.new_update().with_update_type(["b"])
                               .update_by_arrow_with_row_id(pa.table({
                                   "_ROW_ID": pa.array([2], pa.int64()), "b": ["u2"]})))  # 5
    assert builder.new_commit().commit(messages) == 6
    append = dv.our_table(warehouse, "db.t").new_batch_write_builder()
    writer = append.new_write()
    writer.write_arrow(dv.rows(15, 1))
    staged_append = writer.prepare_commit()
    assert dv.our_delete(warehouse, "db.t", [3, 14]) == 7
    assert append.new_commit().commit(staged_append) == 8
    got = dv.by_row_id(dv.our_read(warehouse, "db.t", ["b", "_ROW_ID"]))
    assert set(got) == set(range(16)) - {1, 3, 14} and got[2]["b"] == "u2"
    snaps = [dv.snapshot_json(warehouse, "db.t", s) for s in (6, 7, 8)]
    assert [s["commitKind"] for s in snaps] == ["OVERWRITE", "OVERWRITE", "APPEND"]
    assert snaps[2]["indexManifest"] == snaps[1]["indexManifest"]


@pytest.mark.native
def test_stale_delete_of_a_dropped_anchor_conflicts(warehouse):
    from paimon_rowid import CommitConflictException
    dv.our_setup(warehouse, "t", ["p"])
    rows = dv.by_row_id(dv.our_read(warehouse, "db.t", ["p", "_ROW_ID"]))
    x = min(i for i, r in rows.items() if r["p"] == "x")
    builder, messages, staged = _staged(warehouse, "db.t", [x])
    assert dv.our_delete(warehouse, "db.t", spec=["equal", "p", ["x"]], by_predicate=True) == 4
    after = dv.files(warehouse)
    with pytest.raises(CommitConflictException,
                       match=r"^Deletion vector index conflict detected: data file data-\S+ "
                             r"is not present in the latest snapshot\. "):
        builder.new_commit().commit(messages)
    assert dv.latest_id(warehouse, "db.t") == 4
    assert dv.files(warehouse) == sorted(set(after) - staged)
