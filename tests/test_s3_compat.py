"""The compatibility suites once more with the warehouse on the local S3 server, both ways.

- pypaimon writes the de_tables layouts (writes, updates by row id, tags) into an ``s3://``
  warehouse; every read case of test_compat_read (projections, filters, row ranges, time
  travel) read by us equals pypaimon's read of the same table.
- We run the same de_tables steps (appends, partitioned, several commits, our updates by row
  id, tags) on S3; pypaimon reads every case identically, and so do we.
- BLOB tables both ways (test_blob's data): payloads and ``blob-as-descriptor`` descriptors
  equal pypaimon's, and the descriptors' byte ranges hold the payloads.
- Row-id jobs: our update_by_row_id / read_by_row_id / process_row_id_ranges on a
  pypaimon-written S3 table read identically in pypaimon; pypaimon's updates (and appends) on a
  table we wrote read identically in ours.
- After our writes: every object under the table is referenced by a snapshot (schemas,
  snapshots, tags, manifest lists, manifests, live data files), every referenced object is
  stored, and no temp or probe object is left anywhere in the warehouse.

One table build per layout; pypaimon calls are batched (one driver process per step).
"""
from __future__ import annotations

import random
import re
from typing import Dict, List, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import de_tables
import ours as ours_api
import test_blob as blob_suite
import test_row_ids_compat as rid_suite
from oracle import OracleError, read_ipc
from s3_server import split_uri
from test_compat_read import ALL, CASES, _resolve, assert_same_table, our_read

pytestmark = [pytest.mark.native, pytest.mark.oracle, pytest.mark.s3]

LAYOUTS = list(de_tables.PARTITIONINGS)
# SUBSET runs on every layout and on the tables we write; every other read case runs on the
# layout partitioned by string+int, marked slow: each of our reads costs ~100-300 small GETs
# (a HEAD and one ranged GET per column chunk of every file), 5-12 s each on a loaded machine.
SUBSET = ["full_with_system", "projected_nested", "and_or", "partition_eq", "row_id_in",
          "row_ranges_and_filter", "snapshot_after_update1", "tag_with_filter_and_ranges"]
READ_MATRIX = [(layout, case) for layout in LAYOUTS for case in CASES
               if layout == "pboth" or case in SUBSET]
READ_PARAMS = [pytest.param(layout, case, id=f"{layout}-{case}",
                            marks=() if case in SUBSET else pytest.mark.slow)
               for layout, case in READ_MATRIX]


# -- helpers ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def s3(s3_server, oracle, native):
    """(server, oracle on S3): the oracle's commands carry the server's catalog options."""
    return s3_server, oracle.with_catalog_options(s3_server.s3_options())


def _options(server, warehouse: str) -> Dict[str, str]:
    return server.catalog_options(warehouse)


def _catalog(server, warehouse: str):
    from paimon_rowid import CatalogFactory
    return CatalogFactory.create(_options(server, warehouse))


def _create(server, warehouse: str, identifier: str, schema: pa.Schema,
            partition_keys: Sequence[str] = (), options=None):
    from paimon_rowid import Schema
    catalog = _catalog(server, warehouse)
    catalog.create_database(identifier.split(".", 1)[0], True)
    catalog.create_table(identifier, Schema.from_pyarrow_schema(
        schema, partition_keys=list(partition_keys) or None,
        options=dict(de_tables.DE_OPTIONS if options is None else options)), False)
    return catalog.get_table(identifier)


def _table_prefix(warehouse: str, identifier: str) -> str:
    database, name = identifier.split(".", 1)
    return f"{split_uri(warehouse)[1]}/{database}.db/{name}/"


def _reference_cmds(warehouse: str, identifier: str, latest: int) -> List[dict]:
    """Oracle commands naming what snapshots 1..latest reference: their manifest lists and
    manifests (``files``) and their live data files (``entries``)."""
    cmds = []
    for snapshot_id in range(1, latest + 1):
        cmds.append({"cmd": "files", "warehouse": warehouse, "identifier": identifier,
                     "snapshot_id": snapshot_id})
        cmds.append({"cmd": "entries", "warehouse": warehouse, "identifier": identifier,
                     "snapshot_id": snapshot_id})
    return cmds


def _assert_only_referenced(server, warehouse: str, identifier: str, partition_keys,
                            latest: int, replies: Sequence) -> None:
    """Every object under the table is one a snapshot references (and every referenced object
    is stored); no temp or probe object anywhere in the warehouse."""
    for reply in replies:
        if isinstance(reply, OracleError):
            raise reply
    referenced = {f"snapshot/snapshot-{i}" for i in range(1, latest + 1)}
    for files, entries in zip(replies[0::2], replies[1::2]):
        assert files is not None and entries is not None
        for name in (files["base_manifest_list"], files["delta_manifest_list"],
                     *files["base_manifests"], *files["delta_manifests"]):
            referenced.add(f"manifest/{name}")
        for entry in entries:
            parts = [f"{k}={v}" for k, v in zip(partition_keys, entry["partition"])]
            referenced.add("/".join(parts + [f"bucket-{entry['bucket']}", entry["file_name"]]))
    keys = server.list_keys(warehouse)
    prefix = _table_prefix(warehouse, identifier)
    stored = {k[len(prefix):] for k in keys if k.startswith(prefix) and not k.endswith("/")}
    hints = {"snapshot/LATEST", "snapshot/EARLIEST"}
    unreferenced = sorted(name for name in stored - referenced - hints
                          if not re.fullmatch(r"schema/schema-\d+|tag/tag-[^/]+", name))
    assert not unreferenced, f"{identifier}: objects no snapshot references: {unreferenced}"
    missing = sorted(referenced - stored)
    assert not missing, f"{identifier}: referenced but not stored: {missing}"
    assert "snapshot/LATEST" in stored
    junk = [k for k in keys if re.search(r"(^|/)\.|tmp|probe", k.rsplit("/", 1)[-1].lower())]
    assert not junk, f"temp or probe objects left in the warehouse: {junk}"


# -- pypaimon writes, we read: every read case of test_compat_read --------------------------

@pytest.fixture(scope="module")
def pypaimon_built(s3, request):
    """The three de_tables layouts written by pypaimon on S3, and pypaimon's read of every
    case of the run's selected tests on each (pypaimon's S3 reads are slow too), always
    with SUBSET."""
    server, on_s3 = s3
    warehouse = server.fresh_warehouse("compat-read")
    selected = {tuple(item.callspec.params[k] for k in ("layout", "case"))
                for item in request.session.items
                if getattr(item, "originalname", None) == "test_read_matches_pypaimon"}
    built, expected = {}, {}
    for name, keys in de_tables.PARTITIONINGS.items():
        built[name] = de_tables.build(on_s3, warehouse, f"db.{name}", keys)
        cases = [case for layout, case in READ_MATRIX
                 if layout == name and (case in SUBSET or (layout, case) in selected)]
        specs = [_resolve(CASES[case], built[name]) for case in cases]
        expected[name] = dict(zip(cases, on_s3.read_many(warehouse, f"db.{name}", specs)))
    return warehouse, built, expected


@pytest.mark.parametrize("layout,case", READ_PARAMS)
def test_read_matches_pypaimon(s3, pypaimon_built, layout, case):
    server = s3[0]
    warehouse, built, expected = pypaimon_built
    theirs = expected[layout][case]
    if isinstance(theirs, OracleError):
        pytest.fail(f"pypaimon could not run case {case!r} on S3: {theirs}", pytrace=False)
    ours = our_read(warehouse, f"db.{layout}", **_resolve(CASES[case], built[layout]),
                    catalog_options=server.s3_options())
    assert_same_table(ours, theirs, f"s3 {layout}/{case}")


def test_pypaimon_table_shape(pypaimon_built):
    """The S3 tables really have the local fixture's snapshots, tags and rows."""
    _, built, expected = pypaimon_built
    for layout in LAYOUTS:
        b = built[layout]
        assert b.snapshots["write4"] == 7
        assert b.tags == {"t_after_write2": 2, "t_after_update2": 5}
        assert expected[layout]["full_with_system"].num_rows == b.num_rows == 120


# -- we write (the same steps), pypaimon reads ------------------------------------------------

def _build_ours(server, warehouse: str, identifier: str, keys) -> de_tables.BuiltTable:
    """de_tables.build's steps, run by us: appends, our update_by_row_id, our tags."""
    from paimon_rowid.row_id_jobs import update_by_row_id
    built = de_tables.BuiltTable(warehouse, identifier, list(keys))
    table = _create(server, warehouse, identifier, de_tables.SCHEMA, keys)
    last = None
    for index, (name, kind, payload) in enumerate(de_tables.STEPS):
        if kind == "write":
            first, count = payload
            ours_api.write(table, de_tables.rows(first, count, seed=index))
            built.num_rows += count
        elif kind == "update":
            ids, columns = payload
            assert update_by_row_id(identifier, de_tables.update_rows(ids, columns, seed=index),
                                    _options(server, warehouse), update_cols=columns) == {
                "num_updated": len(ids)}
        else:
            table.create_tag(name.split(":", 1)[1])
            built.tags[name.split(":", 1)[1]] = last
            continue
        last = table.latest_snapshot().id
        built.snapshots[name] = last
    return built


@pytest.fixture(scope="module")
def ours_built(s3):
    """The three layouts built by us on S3; pypaimon's read of every case on each, and what
    each table's snapshots reference (one driver process for all)."""
    server, on_s3 = s3
    warehouse = server.fresh_warehouse("compat-write")
    built, cmds, slices = {}, [], {}
    outs = {}
    for name, keys in de_tables.PARTITIONINGS.items():
        identifier = f"db.{name}"
        built[name] = _build_ours(server, warehouse, identifier, keys)
        start = len(cmds)
        outs[name] = []
        for spec in (CASES[case] for case in SUBSET):
            out = on_s3._path(".arrow")
            outs[name].append(out)
            cmds.append(on_s3._read_cmd(warehouse, identifier, out,
                                        **_resolve(spec, built[name])))
        latest = built[name].snapshots["write4"]
        cmds += _reference_cmds(warehouse, identifier, latest)
        slices[name] = (start, start + len(SUBSET), len(cmds))
    replies = on_s3.run_batch(cmds)
    expected, references = {}, {}
    for name, (start, mid, end) in slices.items():
        expected[name] = {}
        for case, reply, out in zip(SUBSET, replies[start:mid], outs[name]):
            expected[name][case] = reply if isinstance(reply, OracleError) else read_ipc(out)
            out.unlink(missing_ok=True)
        references[name] = replies[mid:end]
    return warehouse, built, expected, references


@pytest.mark.parametrize("layout", LAYOUTS)
def test_pypaimon_reads_what_we_write(s3, ours_built, layout):
    """The SUBSET read cases on our S3 table: pypaimon's read equals ours."""
    server = s3[0]
    warehouse, built, expected, _ = ours_built
    assert built[layout].snapshots["write4"] == 7
    assert built[layout].tags == {"t_after_write2": 2, "t_after_update2": 5}
    failures = []
    for case in SUBSET:
        spec = CASES[case]
        theirs = expected[layout][case]
        if isinstance(theirs, OracleError):
            failures.append(f"{case}: pypaimon failed: {theirs.error_type}: {theirs.message}")
            continue
        ours = our_read(warehouse, f"db.{layout}", **_resolve(spec, built[layout]),
                        catalog_options=server.s3_options())
        try:
            assert_same_table(ours, theirs, f"s3 ours-written {layout}/{case}")
        except AssertionError as error:
            failures.append(str(error))
    assert not failures, "\n".join(failures)
    full = expected[layout]["full_with_system"]
    assert full.num_rows == 120 and sorted(full.column("_ROW_ID").to_pylist()) == list(
        range(120))


def test_our_plain_table_equals_pypaimons(ours_built, pypaimon_built):
    """Unpartitioned, the same steps give the same rows and row ids whoever wrote them."""
    theirs = pypaimon_built[2]["plain"]["full_with_system"]
    ours = ours_built[2]["plain"]["full_with_system"]
    assert_same_table(ours.drop_columns(["_SEQUENCE_NUMBER"]),
                      theirs.drop_columns(["_SEQUENCE_NUMBER"]), "plain: ours vs pypaimon")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_our_writes_leave_only_referenced_objects(s3, ours_built, layout):
    warehouse, built, _, references = ours_built
    _assert_only_referenced(s3[0], warehouse, f"db.{layout}", de_tables.PARTITIONINGS[layout],
                            built[layout].snapshots["write4"], references[layout])


# -- BLOB tables both ways -------------------------------------------------------------------

def _read_ranges(server, descriptors: pa.Table, column: str) -> List:
    """Resolves descriptor values through S3 byte-range GETs."""
    from paimon_rowid import BlobDescriptor
    client = server.client()
    out = []
    for value in descriptors.column(column).to_pylist():
        if value is None:
            out.append(None)
            continue
        d = BlobDescriptor.deserialize(value)
        assert d.uri.startswith("s3://"), d.uri
        bucket, key = split_uri(d.uri)
        if d.length == 0:
            out.append(b"")
            continue
        body = client.get_object(Bucket=bucket, Key=key,
                                 Range=f"bytes={d.offset}-{d.offset + d.length - 1}")["Body"]
        out.append(body.read())
    return out


def _blob_reads(server, warehouse: str, identifier: str):
    """Our payload read and our descriptor read of a BLOB table (by _ROW_ID)."""
    table = _catalog(server, warehouse).get_table(identifier)
    projection = blob_suite.SCHEMA.names + ["_ROW_ID"]
    payloads = blob_suite._read_ours(table, projection=projection).sort_by("_ROW_ID")
    descriptors = blob_suite._read_ours(table, {"blob-as-descriptor": "true"},
                                        projection=projection).sort_by("_ROW_ID")
    return payloads, descriptors


def _blob_specs():
    projection = blob_suite.SCHEMA.names + ["_ROW_ID"]
    return [{"projection": projection},
            {"projection": projection, "options": {"blob-as-descriptor": "true"}}]


@pytest.fixture(scope="module")
def blob_tables(s3):
    """db.theirs written by pypaimon (two commits), db.ours
    written by us (two commits); pypaimon's payload and descriptor reads of both and what our
    table's snapshots reference."""
    server, on_s3 = s3
    warehouse = server.fresh_warehouse("compat-blob")
    theirs_parts = [blob_suite._blob_rows(0, 30, seed=1), blob_suite._blob_rows(30, 25, seed=2)]
    ours_parts = [blob_suite._blob_rows(0, 30, seed=3), blob_suite._blob_rows(30, 25, seed=4)]
    on_s3.run_all([on_s3.create_table_cmd(warehouse, "db.theirs", blob_suite.SCHEMA,
                                          options=blob_suite.BLOB_OPTIONS)]
                  + [on_s3.write_cmd(warehouse, "db.theirs", part) for part in theirs_parts])
    table = _create(server, warehouse, "db.ours", blob_suite.SCHEMA,
                    options=blob_suite.BLOB_OPTIONS)
    for part in ours_parts:
        blob_suite._write_ours(table, part)
    theirs_expected = pa.concat_tables(theirs_parts)
    reads = {name: on_s3.read_many(warehouse, f"db.{name}", _blob_specs())
             for name in ("theirs", "ours")}
    references = on_s3.run_batch(
        _reference_cmds(warehouse, "db.ours", table.latest_snapshot().id)
        + [{"cmd": "files", "warehouse": warehouse, "identifier": "db.theirs"}])
    return {"warehouse": warehouse, "reads": reads, "references": references[:-1],
            "theirs_files": references[-1], "latest": table.latest_snapshot().id,
            "expected": {"theirs": theirs_expected, "ours": pa.concat_tables(ours_parts)}}


@pytest.mark.parametrize("writer", ["theirs", "ours"])
def test_blob_both_ways(s3, blob_tables, writer):
    """Payload and descriptor reads by both engines agree with each other and the data; the
    descriptors' byte ranges on S3 hold the payloads."""
    server = s3[0]
    warehouse = blob_tables["warehouse"]
    expected = blob_tables["expected"][writer]
    theirs, theirs_desc = blob_tables["reads"][writer]
    for result in (theirs, theirs_desc):
        if isinstance(result, OracleError):
            raise result
    ours, ours_desc = _blob_reads(server, warehouse, f"db.{writer}")
    theirs, theirs_desc = theirs.sort_by("_ROW_ID"), theirs_desc.sort_by("_ROW_ID")
    assert ours.select(blob_suite.SCHEMA.names).equals(expected), "our payload read differs"
    assert ours.equals(theirs.cast(ours.schema)), "pypaimon's payload read differs from ours"
    assert ours_desc.equals(theirs_desc.cast(ours_desc.schema)), "descriptors differ"
    for column in ("pic", "doc"):
        assert _read_ranges(server, ours_desc, column) == expected.column(column).to_pylist()


def test_blob_files_rolled_and_ours_leave_only_referenced(s3, blob_tables):
    theirs_files = blob_tables["theirs_files"]
    assert sum(f.endswith(".blob") for f in theirs_files["data_files"]) > 4  # rolled
    keys = s3[0].list_keys(blob_tables["warehouse"])
    assert sum(k.endswith(".blob") and "/db.db/ours/" in k for k in keys) > 4
    _assert_only_referenced(s3[0], blob_tables["warehouse"], "db.ours", [],
                            blob_tables["latest"], blob_tables["references"])


# -- row-id jobs ------------------------------------------------------------------------------

ROWID_LAYOUTS = {"plain": [], "pboth": ["p_str", "p_int"]}
ROUNDS = 3


def _full_read(server, warehouse: str, identifier: str, snapshot_id=None) -> pa.Table:
    table = _catalog(server, warehouse).get_table(identifier)
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot_id)})
    builder = table.new_read_builder().with_projection(ALL + ["_ROW_ID"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("_ROW_ID")


@pytest.fixture(scope="module")
def rowid_runs(s3):
    """Per layout, on a pypaimon-written S3 table (rid_suite.WRITES): ROUNDS random updates by
    our update_by_row_id, then a process_row_id_ranges run whose processor updates c_int of
    every row of its batch; pypaimon's full read, its row-range reads of the read cases, and
    what the snapshots reference (two pypaimon processes in all)."""
    from paimon_rowid import process_row_id_ranges
    from paimon_rowid.row_id_jobs import update_by_row_id
    server, on_s3 = s3
    warehouse = server.fresh_warehouse("compat-rowid")
    options = _options(server, warehouse)
    setup = []
    for name, keys in ROWID_LAYOUTS.items():
        identifier = f"db.{name}"
        setup.append(on_s3.create_table_cmd(warehouse, identifier, de_tables.SCHEMA,
                                            partition_keys=keys,
                                            options=dict(de_tables.DE_OPTIONS)))
        setup += [on_s3.write_cmd(warehouse, identifier, de_tables.rows(a, n, seed=a))
                  for a, n in rid_suite.WRITES]
        setup.append({"cmd": "entries", "warehouse": warehouse, "identifier": identifier})
    replies = on_s3.run_all(setup)
    per_layout = len(rid_suite.WRITES) + 2
    runs, cmds = {}, []
    for index, name in enumerate(ROWID_LAYOUTS):
        identifier = f"db.{name}"
        groups = rid_suite._groups(replies[(index + 1) * per_layout - 1])
        model = rid_suite._rows_by_id(_full_read(server, warehouse, identifier))
        models = {len(rid_suite.WRITES): {i: dict(r) for i, r in model.items()}}
        rnd = random.Random(sum(map(ord, name)))
        for round_no in range(ROUNDS):
            ids, cols, data = rid_suite._workload(rnd, groups, round_no)
            assert update_by_row_id(identifier, data, options, update_cols=cols,
                                    num_partitions=[None, 1, 3][round_no]) == {
                "num_updated": len(ids)}
            for row in data.to_pylist():
                model[row["_ROW_ID"]].update({c: row[c] for c in cols})
            latest = _catalog(server, warehouse).get_table(identifier).latest_snapshot().id
            models[latest] = {i: dict(r) for i, r in model.items()}
        batches = []

        def processor(ranges, identifier=identifier, batches=batches, model=model):
            ids = [i for r in ranges for i in range(r.from_, r.to + 1)]
            batches.append(ids)
            data = pa.table({"_ROW_ID": pa.array(ids, pa.int64()),
                             "c_int": pa.array([-7 * i for i in ids], pa.int32())})
            update_by_row_id(identifier, data, options, update_cols=["c_int"])
            for i in ids:
                model[i]["c_int"] = -7 * i

        process_row_id_ranges(identifier, options, rows_per_commit=40, processor=processor)
        latest = _catalog(server, warehouse).get_table(identifier).latest_snapshot().id
        models[latest] = {i: dict(r) for i, r in model.items()}
        read_cases = rid_suite._read_cases(rnd, sorted(model), sorted(models))
        start = len(cmds)
        outs = [on_s3._path(".arrow")]
        cmds.append(on_s3._read_cmd(warehouse, identifier, outs[0], projection=ALL + ["_ROW_ID"]))
        for ids, projection, snapshot_id in read_cases:
            outs.append(on_s3._path(".arrow"))
            cmds.append(on_s3._read_cmd(warehouse, identifier, outs[-1],
                                        projection=projection + ["_ROW_ID"],
                                        row_ranges=[[i, i] for i in sorted(set(ids))],
                                        snapshot_id=snapshot_id))
        reads_end = len(cmds)
        cmds += _reference_cmds(warehouse, identifier, latest)
        runs[name] = {"identifier": identifier, "model": model, "models": models,
                      "read_cases": read_cases, "batches": batches, "groups": groups,
                      "latest": latest, "slice": (start, reads_end, len(cmds)), "outs": outs}
    replies = on_s3.run_all(cmds)
    for run in runs.values():
        start, reads_end, end = run.pop("slice")
        tables = [read_ipc(out) for out in run.pop("outs")]
        run.update(pypaimon_full=tables[0], pypaimon_cases=tables[1:],
                   references=replies[reads_end:end])
    return warehouse, runs


@pytest.mark.parametrize("layout", list(ROWID_LAYOUTS))
def test_our_row_id_jobs_on_a_pypaimon_table(s3, rowid_runs, layout):
    server = s3[0]
    warehouse, runs = rowid_runs
    run = runs[layout]
    # process_row_id_ranges visited every group once, in row-id order.
    visited = [i for batch in run["batches"] for i in batch]
    assert visited == sorted(run["model"]) and len(run["batches"]) >= 2
    ours = _full_read(server, warehouse, run["identifier"])
    rid_suite._assert_model(ours, run["model"], f"s3 {layout}: our read of our updates")
    rid_suite._same(ours, run["pypaimon_full"], f"s3 {layout}: pypaimon's read of our updates")
    # Time travel to every intermediate snapshot: ours equals the model of that step.
    for snapshot_id, model in run["models"].items():
        rid_suite._assert_model(_full_read(server, warehouse, run["identifier"], snapshot_id),
                                model, f"s3 {layout} @ {snapshot_id}")


@pytest.mark.parametrize("layout", list(ROWID_LAYOUTS))
def test_read_by_row_id_on_s3_matches_pypaimon(s3, rowid_runs, layout):
    from paimon_rowid.row_id_jobs import read_by_row_id
    server = s3[0]
    warehouse, runs = rowid_runs
    run = runs[layout]
    for (ids, projection, snapshot_id), expected in zip(run["read_cases"],
                                                        run["pypaimon_cases"]):
        context = f"s3 {layout}: ids {sorted(set(ids))[:5]}... {projection} @ {snapshot_id}"
        got = read_by_row_id(run["identifier"], pa.table({"rid": pa.array(ids, pa.int64())}),
                             _options(server, warehouse), projection=projection,
                             row_id_col="rid", num_partitions=2,
                             dynamic_options=None if snapshot_id is None else {
                                 "scan.snapshot-id": str(snapshot_id)})
        assert got.column_names == projection + ["_ROW_ID"], context
        assert got.num_rows == len(set(ids)), context
        rid_suite._same(got, expected, context)
        model = run["models"][max(run["models"]) if snapshot_id is None else snapshot_id]
        rid_suite._assert_model(got, {i: {c: model[i][c] for c in projection} for i in set(ids)},
                                context)


@pytest.mark.parametrize("layout", list(ROWID_LAYOUTS))
def test_our_updates_leave_only_referenced_objects(s3, rowid_runs, layout):
    warehouse, runs = rowid_runs
    run = runs[layout]
    _assert_only_referenced(s3[0], warehouse, run["identifier"], ROWID_LAYOUTS[layout],
                            run["latest"], run["references"])


def test_pypaimon_updates_and_appends_on_our_table(s3):
    """We write (partitioned, several commits); pypaimon updates by row id and appends; we
    append again: both engines read the same rows, equal to the model; only referenced
    objects are stored."""
    server, on_s3 = s3
    warehouse = server.fresh_warehouse("compat-theirs-on-ours")
    identifier = "db.t"
    table = _create(server, warehouse, identifier, de_tables.SCHEMA, ["p_str"])
    for a, n in rid_suite.WRITES:
        ours_api.write(table, de_tables.rows(a, n, seed=a))
    written = _full_read(server, warehouse, identifier)
    model = rid_suite._rows_by_id(written)
    updates = [([1, 5, 33, 40, 89], ["c_string", "c_int"]), ([0, 60, 61, 62], ["c_row", "c_map"])]
    cmds = []
    for seed, (ids, cols) in enumerate(updates):
        data = de_tables.update_rows(ids, cols, seed=seed)
        cmds.append(on_s3.update_cmd(warehouse, identifier, data, cols))
        for row in data.to_pylist():
            model[row["_ROW_ID"]].update({c: row[c] for c in cols})
    cmds.append(on_s3.write_cmd(warehouse, identifier, de_tables.rows(90, 10, seed=90)))
    on_s3.run_all(cmds)
    ours_api.write(table, de_tables.rows(100, 5, seed=100))
    ours = _full_read(server, warehouse, identifier)
    assert ours.column("_ROW_ID").to_pylist() == list(range(105))
    appended = {r.pop("_ROW_ID"): r for r in ours.to_pylist() if r["id"] >= 90}
    assert sorted(r["id"] for r in appended.values()) == list(range(90, 105))
    rid_suite._assert_model(ours.filter(pc.less(ours.column("id"), 90)), model,
                            "s3: our read of pypaimon's updates")
    latest = table.latest_snapshot().id
    assert latest == len(rid_suite.WRITES) + len(updates) + 2
    out = on_s3._path(".arrow")
    replies = on_s3.run_batch(
        [on_s3._read_cmd(warehouse, identifier, out, projection=ALL + ["_ROW_ID"])]
        + _reference_cmds(warehouse, identifier, latest))
    if isinstance(replies[0], OracleError):
        raise replies[0]
    rid_suite._same(ours, read_ipc(out).sort_by("_ROW_ID"), "s3: pypaimon's read")
    out.unlink(missing_ok=True)
    # (Objects pypaimon wrote are referenced too: its commits are in the snapshots.)
    _assert_only_referenced(server, warehouse, identifier, ["p_str"], latest, replies[1:])
