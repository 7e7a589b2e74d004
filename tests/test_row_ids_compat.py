"""The embedded row-id jobs (paimon_rowid.row_id_jobs) against pypaimon on one warehouse.

(a) Random update workloads (columns of every type incl. nullable, nested and decimal ones;
    random row subsets, whole groups, unsorted sources; several rounds; partitioned and not;
    many file groups) applied by us read identically in pypaimon and in ours, and equal a
    model kept in Python.
(b) The same updates applied by pypaimon (its table-level update_by_arrow_with_row_id) on a
    copy of the table give identical final reads (and we read its partial files right).
(c) read_by_row_id equals pypaimon's read of the same ids (row ranges), latest and at an
    older snapshot.
(d) Our update files: one per touched group, first_row_id = group start, row_count = group
    rows, write_cols = update cols, sequence number = the snapshot; one APPEND snapshot per
    call; nextRowId unchanged.
(e) A pypaimon update committed between our plan and our commit: a different column is
    fine; the same column fails ours with CommitConflictException and leaves no file behind.
"""
from __future__ import annotations

import copy
import random
import shutil
from pathlib import Path
from typing import Dict, List

import pyarrow as pa
import pytest

import de_tables

pytestmark = pytest.mark.native

DE = de_tables.DE_OPTIONS
SCHEMA = de_tables.SCHEMA
BATCH_ID = 9223372036854775807
UPDATABLE = [f.name for f in SCHEMA if f.name.startswith("c_")]
ALL = SCHEMA.names
WRITES = [(0, 37), (37, 23), (60, 1), (61, 29)]  # (first id, count): one commit each
ROUNDS = 6


def _catalog(warehouse):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create({"warehouse": str(warehouse)})


def _our_write(table, data):
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    snapshot = commit.commit(write.prepare_commit())
    write.close()
    return snapshot


def _our_full_read(warehouse, identifier, snapshot_id=None) -> pa.Table:
    table = _catalog(warehouse).get_table(identifier)
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    builder = table.new_read_builder().with_projection(ALL + ["_ROW_ID"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


def _rows_by_id(table: pa.Table) -> Dict[int, dict]:
    return {r.pop("_ROW_ID"): r for r in table.to_pylist()}


def _same(ours: pa.Table, theirs: pa.Table, context: str) -> None:
    """Same schema (names, types, nullability) and the same rows by _ROW_ID."""
    assert ours.schema.equals(theirs.schema, check_metadata=False), (
        f"{context}: schema differs\nours:\n{ours.schema}\npypaimon:\n{theirs.schema}")
    a, b = _rows_by_id(ours), _rows_by_id(theirs)
    assert a.keys() == b.keys(), f"{context}: row ids differ"
    bad = [(i, a[i], b[i]) for i in sorted(a) if a[i] != b[i]]
    assert not bad, f"{context}: {len(bad)} rows differ; first (id, ours, pypaimon): {bad[0]}"


def _assert_model(table: pa.Table, model: Dict[int, dict], context: str) -> None:
    got = _rows_by_id(table)
    assert got.keys() == model.keys(), f"{context}: row ids differ from the model"
    bad = [(i, {k: (got[i][k], v) for k, v in model[i].items() if got[i][k] != v})
           for i in sorted(model) if got[i] != model[i]]
    assert not bad, f"{context}: {len(bad)} rows differ from the model; first: {bad[0]}"


def _groups(entries) -> Dict[int, dict]:
    """first_row_id -> the base (full-row) entry of that group."""
    return {e["first_row_id"]: e for e in entries if e["write_cols"] is None}


def _owner(groups: Dict[int, dict], row_id: int) -> int:
    start = max(g for g in groups if g <= row_id)
    assert row_id < start + groups[start]["row_count"]
    return start


def _workload(rnd: random.Random, groups: Dict[int, dict], round_no: int):
    """(row ids in source order, update columns, source table) of one random round."""
    all_ids = sorted(i for g, e in groups.items() for i in range(g, g + e["row_count"]))
    kind = round_no % 3
    if kind == 0:  # scattered rows across groups
        ids = rnd.sample(all_ids, rnd.randint(1, len(all_ids) // 3))
    elif kind == 1:  # whole groups (no current values to read) plus a few strays
        whole = rnd.sample(sorted(groups), min(2, len(groups)))
        ids = [i for g in whole for i in range(g, g + groups[g]["row_count"])]
        ids += rnd.sample([i for i in all_ids if i not in set(ids)], 3)
    else:  # one contiguous run
        start = rnd.randrange(len(all_ids) - 10)
        ids = all_ids[start:start + rnd.randint(1, 25)]
    rnd.shuffle(ids)
    cols = rnd.sample(UPDATABLE, rnd.randint(1, 4))
    return ids, cols, de_tables.update_rows(ids, cols, seed=1000 * round_no + len(ids))


LAYOUTS = {"plain": ([], "ours"), "pstr": (["p_str"], "ours"),
           "pboth": (["p_str", "p_int"], "pypaimon")}


def _read_cases(rnd: random.Random, all_ids: List[int], snapshots: List[int]):
    """(ids with duplicates, unsorted; projection; snapshot id or None) for read_by_row_id."""
    cases = []
    for k in range(6):
        ids = rnd.sample(all_ids, rnd.randint(1, 30))
        ids += rnd.sample(ids, min(3, len(ids)))  # duplicates: one row each
        rnd.shuffle(ids)
        projection = rnd.sample(ALL, rnd.randint(1, 6))
        snapshot_id = None if k % 2 == 0 else rnd.choice(snapshots)
        cases.append((ids, projection, snapshot_id))
    return cases


@pytest.fixture(scope="module")
def runs(tmp_path_factory, oracle, native):
    """Per layout: the table written (by us or pypaimon), copied to a second warehouse, then
    ROUNDS random updates applied by us to the first and by pypaimon to the copy. Two
    pypaimon processes in all (set-up, then replay + every read and metadata query)."""
    from oracle import read_ipc
    from paimon_rowid import Schema
    from paimon_rowid.row_id_jobs import update_by_row_id
    root = tmp_path_factory.mktemp("rowid-compat")
    out = {}
    setup = []
    for name, (keys, writer) in LAYOUTS.items():
        run = out[name] = {"ours_wh": str(root / f"{name}-ours"),
                           "theirs_wh": str(root / f"{name}-pypaimon"),
                           "identifier": f"db.{name}", "keys": keys}
        wh, identifier = run["ours_wh"], run["identifier"]
        if writer == "ours":
            catalog = _catalog(wh)
            catalog.create_database("db", True)
            catalog.create_table(identifier, Schema.from_pyarrow_schema(
                SCHEMA, partition_keys=keys, options=dict(DE)), False)
            table = catalog.get_table(identifier)
            for a, n in WRITES:
                _our_write(table, de_tables.rows(a, n, seed=a))
        else:
            setup.append(oracle.create_table_cmd(wh, identifier, SCHEMA, partition_keys=keys,
                                                 options=dict(DE)))
            setup += [oracle.write_cmd(wh, identifier, de_tables.rows(a, n, seed=a))
                      for a, n in WRITES]
        run["setup_reply"] = len(setup)
        setup += [{"cmd": "entries", "warehouse": wh, "identifier": identifier},
                  {"cmd": "snapshot", "warehouse": wh, "identifier": identifier}]
    replies = oracle.run_all(setup)
    written = pa.concat_tables([de_tables.rows(a, n, seed=a) for a, n in WRITES])
    final = []
    for name, run in out.items():
        wh, identifier = run["ours_wh"], run["identifier"]
        at = run.pop("setup_reply")
        groups, base = _groups(replies[at]), replies[at + 1]
        shutil.copytree(Path(wh) / "db.db", Path(run["theirs_wh"]) / "db.db")
        initial = _our_full_read(wh, identifier)
        # Every written row is there once, whatever row id it got.
        assert sorted(_rows_by_id(initial).values(), key=lambda r: r["id"]) == \
            written.to_pylist()
        model = _rows_by_id(initial)
        models = {base["id"]: copy.deepcopy(model)}
        rnd = random.Random(sum(map(ord, name)))
        rounds = []
        for round_no in range(ROUNDS):
            ids, cols, data = _workload(rnd, groups, round_no)
            threads = [None, 1, 3][round_no % 3]
            result = update_by_row_id(identifier, data, {"warehouse": wh},
                                      update_cols=cols, num_partitions=threads)
            assert result == {"num_updated": len(ids)}
            snapshot_id = _catalog(wh).get_table(identifier).latest_snapshot()["id"]
            for row in data.to_pylist():
                model[row["_ROW_ID"]].update({c: row[c] for c in cols})
            models[snapshot_id] = copy.deepcopy(model)
            rounds.append({"ids": ids, "cols": cols, "data": data, "snapshot_id": snapshot_id})
        run.update(groups=groups, base_snapshot=base, rounds=rounds, model=model,
                   models=models, read_cases=_read_cases(rnd, sorted(model), sorted(models)))
        # pypaimon: replay on the copy; read both tables; the metadata of ours.
        cmds = [oracle.update_cmd(run["theirs_wh"], identifier, r["data"], r["cols"])
                for r in rounds]
        cmds += [{"cmd": "entries", "warehouse": wh, "identifier": identifier,
                  "snapshot_id": r["snapshot_id"], "delta": True} for r in rounds]
        cmds += [{"cmd": "snapshot", "warehouse": wh, "identifier": identifier,
                  "snapshot_id": r["snapshot_id"]} for r in rounds]
        reads = [(run["theirs_wh"], {"projection": ALL + ["_ROW_ID"]}),
                 (wh, {"projection": ALL + ["_ROW_ID"]})]
        reads += [(wh, {"projection": projection + ["_ROW_ID"],
                        "row_ranges": [[i, i] for i in sorted(set(ids))],
                        "snapshot_id": snapshot_id})
                  for ids, projection, snapshot_id in run["read_cases"]]
        outs = []
        for read_wh, spec in reads:
            outs.append(root / f"read-{name}-{len(outs)}.arrow")
            cmds.append(oracle._read_cmd(read_wh, identifier, outs[-1], **spec))
        final.append((run, cmds, outs))
    replies = oracle.run_all([cmd for _, cmds, _ in final for cmd in cmds])
    offset = 0
    for run, cmds, outs in final:
        mine, offset = replies[offset:offset + len(cmds)], offset + len(cmds)
        n = len(run["rounds"])
        tables = [read_ipc(path) for path in outs]
        run.update(their_snapshots=[r["snapshot_id"] for r in mine[:n]],
                   deltas=mine[n:2 * n], snapshots=mine[2 * n:3 * n],
                   pypaimon_read_of_theirs=tables[0], pypaimon_read_of_ours=tables[1],
                   pypaimon_read_cases=tables[2:])
    return out


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_our_updates_read_the_same_everywhere(runs, layout):
    run = runs[layout]
    ours = _our_full_read(run["ours_wh"], run["identifier"])
    _assert_model(ours, run["model"], f"{layout}: our read of our updates")
    _same(ours, run["pypaimon_read_of_ours"], f"{layout}: pypaimon's read of our updates")


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_pypaimon_updates_match_ours(runs, layout):
    run = runs[layout]
    assert run["their_snapshots"] == [r["snapshot_id"] for r in run["rounds"]]
    theirs_in_ours = _our_full_read(run["theirs_wh"], run["identifier"])
    _assert_model(run["pypaimon_read_of_theirs"], run["model"],
                  f"{layout}: pypaimon's read of pypaimon's updates")
    _assert_model(theirs_in_ours, run["model"], f"{layout}: our read of pypaimon's updates")
    _same(theirs_in_ours, run["pypaimon_read_of_theirs"], f"{layout}: pypaimon-updated copy")
    _same(_our_full_read(run["ours_wh"], run["identifier"]), run["pypaimon_read_of_theirs"],
          f"{layout}: our updates vs pypaimon's updates")


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_update_files_and_snapshots(runs, layout):
    run = runs[layout]
    groups, base = run["groups"], run["base_snapshot"]
    for number, (rnd, delta, snap) in enumerate(zip(run["rounds"], run["deltas"],
                                                     run["snapshots"])):
        context = f"{layout} round {number}"
        touched = sorted({_owner(groups, i) for i in rnd["ids"]})
        assert sorted(e["first_row_id"] for e in delta) == touched, context
        for entry in delta:
            group = groups[entry["first_row_id"]]
            assert entry["kind"] == 0, context  # ADD only; nothing is deleted
            assert entry["row_count"] == group["row_count"], context
            assert entry["partition"] == group["partition"], context
            assert entry["bucket"] == 0, context
            assert entry["write_cols"] == rnd["cols"], context
            assert entry["min_sequence_number"] == entry["max_sequence_number"] == \
                rnd["snapshot_id"], context
            assert entry["file_source"] == 0, context
        assert snap["id"] == base["id"] + number + 1, context  # one snapshot per call
        assert snap["commitKind"] == "APPEND", context
        assert snap["commitIdentifier"] == BATCH_ID, context
        assert snap["nextRowId"] == base["nextRowId"], context
        assert snap["deltaRecordCount"] == sum(e["row_count"] for e in delta), context


def _our_read_by_row_id(run, ids, projection, snapshot_id=None):
    from paimon_rowid.row_id_jobs import read_by_row_id
    options = None if snapshot_id is None else {"scan.snapshot-id": str(snapshot_id)}
    return read_by_row_id(run["identifier"], pa.table({"rid": pa.array(ids, pa.int64())}),
                          {"warehouse": run["ours_wh"]}, projection=projection,
                          row_id_col="rid", dynamic_options=options, num_partitions=2)


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_read_by_row_id_matches_pypaimon(runs, layout):
    run = runs[layout]
    latest = max(run["models"])
    for (ids, projection, snapshot_id), expected in zip(run["read_cases"],
                                                        run["pypaimon_read_cases"]):
        context = f"{layout}: ids {sorted(set(ids))[:5]}... {projection} @ {snapshot_id}"
        got = _our_read_by_row_id(run, ids, projection, snapshot_id)
        assert got.column_names == projection + ["_ROW_ID"], context
        assert got.num_rows == len(set(ids)), context
        _same(got, expected, context)
        model = run["models"][latest if snapshot_id is None else snapshot_id]
        _assert_model(got, {i: {c: model[i][c] for c in projection} for i in set(ids)}, context)


# -- (e) concurrent pypaimon updates between our plan and our commit ---------------------------

SMALL = pa.schema([pa.field("id", pa.int64(), nullable=False), ("a", pa.int32()),
                   ("b", pa.string())])


def _files(root) -> List[str]:
    root = Path(root)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.fixture
def small(warehouse, native):
    """Groups [0, 9] and [10, 14]."""
    from paimon_rowid import Schema
    catalog = _catalog(warehouse)
    catalog.create_database("db", True)
    catalog.create_table("db.s", Schema.from_pyarrow_schema(SMALL, options=dict(DE)), False)
    table = catalog.get_table("db.s")
    for a, n in [(0, 10), (10, 5)]:
        _our_write(table, pa.table({"id": list(range(a, a + n)),
                                    "a": list(range(a, a + n)),
                                    "b": [f"b{i}" for i in range(a, a + n)]}, schema=SMALL))
    return warehouse


def _plan(warehouse, ids, column, values):
    table = _catalog(warehouse).get_table("db.s")
    builder = table.new_batch_write_builder()
    update = builder.new_update().with_update_type([column])
    data = pa.table({"_ROW_ID": pa.array(ids, pa.int64()), column: values})
    return builder, update.update_by_arrow_with_row_id(data)


def _small_read(warehouse):
    table = _catalog(warehouse).get_table("db.s")
    builder = table.new_read_builder().with_projection(["a", "b", "_ROW_ID"])
    got = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    return {r["_ROW_ID"]: (r["a"], r["b"]) for r in got.to_pylist()}


def test_concurrent_update_of_another_column_commits(small, oracle):
    builder, messages = _plan(small, [1, 2, 11], "a", [-1, -2, -11])
    assert len(messages) == 2
    oracle.run_all([
        oracle.update_cmd(small, "db.s", pa.table(
            {"_ROW_ID": pa.array([2, 3, 12], pa.int64()), "b": ["x2", "x3", "x12"]}), ["b"]),
        oracle.write_cmd(small, "db.s", pa.table({"id": [15], "a": [15], "b": ["b15"]},
                                                 schema=SMALL))])
    snapshot = builder.new_commit().commit(messages)
    assert snapshot == 5
    got = _small_read(small)
    assert got[1] == (-1, "b1") and got[2] == (-2, "x2") and got[3] == (3, "x3")
    assert got[11] == (-11, "b11") and got[12] == (12, "x12") and got[15] == (15, "b15")
    theirs = oracle.read(small, "db.s", projection=["a", "b", "_ROW_ID"])
    assert {r["_ROW_ID"]: (r["a"], r["b"]) for r in theirs.to_pylist()} == got


def test_concurrent_update_of_the_same_column_conflicts(small, oracle):
    from paimon_rowid import CommitConflictException
    before = _files(small)
    builder, messages = _plan(small, [1, 2], "a", [-1, -2])  # group [0, 9]
    ours = set(_files(small)) - set(before)
    assert len(ours) == 1 and all(m.check_from_snapshot == 2 for m in messages)
    # pypaimon updates other rows of the same group, same column.
    oracle.update_by_row_id(small, "db.s", pa.table(
        {"_ROW_ID": pa.array([7], pa.int64()), "a": pa.array([-7], pa.int32())}), ["a"])
    after_theirs = _files(small)
    with pytest.raises(CommitConflictException) as info:
        builder.new_commit().commit(messages)
    assert isinstance(info.value, RuntimeError)
    assert _files(small) == sorted(set(after_theirs) - ours), "our files were left behind"
    assert _catalog(small).get_table("db.s").latest_snapshot()["id"] == 3
    got = _small_read(small)
    assert got[1] == (1, "b1") and got[7] == (-7, "b7")


# -- schema evolution ------------------------------------------------------------------------

def test_update_of_a_column_added_after_the_data(warehouse, oracle, native):
    """pypaimon writes rows, then adds columns: the old files lack them, so the current values
    of a partially updated group are NULL (pypaimon PR #9112), in both readers. Under time
    travel to before the ALTER, the new column is not in the (snapshot's) schema."""
    from oracle import write_ipc
    from paimon_rowid.row_id_jobs import read_by_row_id, update_by_row_id
    new_cols = Path(warehouse) / "new-columns.arrow"
    write_ipc(new_cols, pa.schema([("w", pa.string()), ("x", pa.int64())]).empty_table())
    oracle.run_all([
        oracle.create_table_cmd(warehouse, "db.e", SMALL, options=dict(DE)),
        oracle.write_cmd(warehouse, "db.e", pa.table({"id": [0, 1, 2], "a": [0, 1, 2],
                                                      "b": ["b0", "b1", "b2"]}, schema=SMALL)),
        {"cmd": "add_columns", "warehouse": warehouse, "identifier": "db.e",
         "schema_ipc": str(new_cols)}])
    options = {"warehouse": warehouse}
    source = pa.table({"_ROW_ID": pa.array([1], pa.int64()), "w": ["one"], "a": [11], "x": [5]})
    assert update_by_row_id("db.e", source, options, update_cols=["w"]) == {"num_updated": 1}
    assert update_by_row_id("db.e", source, options, update_cols=["a", "x"]) == \
        {"num_updated": 1}
    expected = [{"id": 0, "a": 0, "w": None, "x": None, "_ROW_ID": 0},
                {"id": 1, "a": 11, "w": "one", "x": 5, "_ROW_ID": 1},
                {"id": 2, "a": 2, "w": None, "x": None, "_ROW_ID": 2}]
    ours = read_by_row_id("db.e", pa.table({"_ROW_ID": [2, 0, 1]}), options,
                          projection=["id", "a", "w", "x"])
    theirs = oracle.read(warehouse, "db.e", projection=["id", "a", "w", "x", "_ROW_ID"])
    _same(ours, theirs, "added columns")
    assert sorted(ours.to_pylist(), key=lambda r: r["_ROW_ID"]) == expected
    with pytest.raises(ValueError, match=r"^projection column 'w' is not in target 'db\.e'\.$"):
        read_by_row_id("db.e", pa.table({"_ROW_ID": [1]}), options, projection=["a", "w"],
                       dynamic_options={"scan.snapshot-id": "1"})
    old = read_by_row_id("db.e", pa.table({"_ROW_ID": [1]}), options, projection=["a", "b"],
                         dynamic_options={"scan.snapshot-id": "1"})
    assert old.to_pylist() == [{"a": 1, "b": "b1", "_ROW_ID": 1}]
