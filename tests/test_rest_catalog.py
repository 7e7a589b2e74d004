"""The REST catalog (docs/rest-catalog.md) against Java Paimon's own REST test server
(tests/rest_server.py), with pypaimon's REST client on the same server.

(a) Databases and tables through the server: create, list, get, drop, rename; the typed
    catalog errors for missing and existing names.
(b) pypaimon's REST client and ours see the same tables: a table created and written by
    either reads equal in both; a row-id update by us is read by pypaimon and the reverse.
(c) Commits go through the server: a table the server stops allowing refuses our commit
    (TableNoPermissionException), and nothing of it stays (no snapshot, no data file).
(d) Errors: an unknown metastore lists the known ones; a wrong token is NotAuthorizedException
    at once; a server that is down fails fast with OSError naming the URI; options missing.
"""
from __future__ import annotations

import pickle
import socket
import subprocess
import sys
import time
import uuid

import pyarrow as pa
import pytest

from ours import write as _write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])


def _db() -> str:
    return f"db_{uuid.uuid4().hex[:10]}"


def _data(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": [f"n{i}" for i in range(start, start + n)],
                     "v": [float(i) / 2 for i in range(start, start + n)]}, schema=SCHEMA)


def _catalog(server, **extra):
    from paimon_rowid import CatalogFactory

    return CatalogFactory.create(server.catalog_options(**extra))


def _create(catalog, identifier: str, options=None) -> None:
    from paimon_rowid import Schema

    catalog.create_database(identifier.split(".")[0], True)
    catalog.create_table(identifier, Schema.from_pyarrow_schema(SCHEMA, options=options or DE),
                         False)


def _read(table, with_row_id: bool = False) -> pa.Table:
    names = SCHEMA.names + (["_ROW_ID"] if with_row_id else [])
    builder = table.new_read_builder().with_projection(names)
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")


def test_databases_and_tables(rest_server):
    from paimon_rowid import (
        DatabaseAlreadyExistException,
        DatabaseNotExistException,
        TableAlreadyExistException,
        TableNotExistException,
    )

    catalog = _catalog(rest_server)
    db = _db()
    catalog.create_database(db, False, {"owner": "rest-test"})
    assert db in catalog.list_databases()
    assert catalog.get_database(db).options["owner"] == "rest-test"
    with pytest.raises(DatabaseAlreadyExistException):
        catalog.create_database(db, False)
    catalog.create_database(db, True)
    _create(catalog, f"{db}.t")
    assert catalog.list_tables(db) == ["t"]
    table = catalog.get_table(f"{db}.t")
    assert table.options["data-evolution.enabled"] == "true"
    with pytest.raises(TableAlreadyExistException):
        _create(catalog, f"{db}.t")
    with pytest.raises(TableNotExistException):
        catalog.get_table(f"{db}.missing")
    with pytest.raises(DatabaseNotExistException):
        catalog.list_tables(f"{db}_missing")
    catalog.rename_table(f"{db}.t", f"{db}.t2")
    assert catalog.list_tables(db) == ["t2"]
    with pytest.raises(ValueError, match="Cannot drop non-empty database"):
        catalog.drop_database(db)
    catalog.drop_table(f"{db}.t2")
    with pytest.raises(TableNotExistException):
        catalog.drop_table(f"{db}.t2")
    catalog.drop_table(f"{db}.t2", ignore_if_not_exists=True)
    catalog.drop_database(db)
    assert db not in catalog.list_databases()


def test_pypaimon_and_ours_see_the_same_tables(rest_server, oracle):
    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    wh, db = rest_server.warehouse, _db()
    catalog = _catalog(rest_server)
    # Ours creates and writes; pypaimon writes too; both read the same rows.
    _create(catalog, f"{db}.ours")
    _write(catalog.get_table(f"{db}.ours"), _data(0, 10))
    pypaimon.write(wh, f"{db}.ours", _data(10, 5))
    ours = _read(catalog.get_table(f"{db}.ours"))
    assert ours.equals(_data(0, 15))
    assert pypaimon.read(wh, f"{db}.ours").sort_by("id").equals(ours)
    # pypaimon creates and writes; ours writes too.
    pypaimon.create_table(wh, f"{db}.theirs", SCHEMA, options=DE)
    pypaimon.write(wh, f"{db}.theirs", _data(0, 7))
    assert "theirs" in catalog.list_tables(db)
    _write(catalog.get_table(f"{db}.theirs"), _data(7, 3))
    assert _read(catalog.get_table(f"{db}.theirs")).equals(_data(0, 10))
    assert pypaimon.read(wh, f"{db}.theirs").sort_by("id").equals(_data(0, 10))


def test_row_id_updates_both_ways(rest_server, oracle):
    from paimon_rowid import update_by_row_id

    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    wh, db = rest_server.warehouse, _db()
    identifier = f"{db}.t"
    catalog = _catalog(rest_server)
    _create(catalog, identifier)
    _write(catalog.get_table(identifier), _data(0, 20))
    # Ours updates rows 3 and 11; pypaimon reads them.
    ours_update = pa.table({"_ROW_ID": pa.array([3, 11], pa.int64()),
                            "name": ["ours-3", "ours-11"]})
    assert update_by_row_id(identifier, ours_update, rest_server.catalog_options(),
                            update_cols=["name"]) == {"num_updated": 2}
    theirs = pypaimon.read(wh, identifier).sort_by("id")
    assert theirs["name"][3].as_py() == "ours-3" and theirs["name"][11].as_py() == "ours-11"
    # pypaimon updates rows 5 and 11; ours reads every update.
    pypaimon.update_by_row_id(wh, identifier,
                              pa.table({"_ROW_ID": pa.array([5, 11], pa.int64()),
                                        "v": [500.0, 1100.0]}), ["v"])
    got = _read(catalog.get_table(identifier), with_row_id=True)
    expected = _data(0, 20).to_pylist()
    expected[3]["name"], expected[11]["name"] = "ours-3", "ours-11"
    expected[5]["v"], expected[11]["v"] = 500.0, 1100.0
    assert got.drop_columns(["_ROW_ID"]).to_pylist() == expected
    assert got["_ROW_ID"].to_pylist() == list(range(20))
    assert pypaimon.read(wh, identifier).sort_by("id").to_pylist() == expected


def test_commits_go_through_the_server(rest_server):
    from paimon_rowid import TableNoPermissionException

    catalog = _catalog(rest_server)
    db = _db()
    _create(catalog, f"{db}.t")
    table = catalog.get_table(f"{db}.t")
    _write(table, _data(0, 4))
    # A pickled handle (a Ray task's, a job process's) commits through the server too.
    copy = pickle.loads(pickle.dumps(table))
    _write(copy, _data(4, 4))
    assert rest_server.token not in repr(copy) and rest_server.token not in str(copy)
    before = rest_server.table_files(db, "t")
    rest_server.command(f"no-permission-table {db}.t")
    for handle in (table, copy):
        with pytest.raises(TableNoPermissionException, match=f"Table {db}.t has no permission"):
            _write(handle, _data(8, 4))
    # Nothing of the refused commits stays: no snapshot, no manifest, no data file.
    assert rest_server.table_files(db, "t") == before
    assert table.latest_snapshot().id == 2


_COMMITTER = """
import sys
import pyarrow as pa
from paimon_rowid import CatalogFactory
options = dict(arg.split("=", 1) for arg in sys.argv[3:])
worker, commits = int(sys.argv[1]), int(sys.argv[2])
for c in range(commits):
    table = CatalogFactory.create(options).get_table(options["identifier"])
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    first = worker * 1000 + c * 10
    write.write_arrow(pa.table({"id": pa.array(range(first, first + 10), pa.int64()),
                                "name": [f"w{worker}" for _ in range(10)],
                                "v": [float(c)] * 10}))
    commit.commit(write.prepare_commit())
    write.close()
"""


def test_four_processes_commit_through_the_server(rest_server, oracle):
    workers, commits = 4, 6
    catalog = _catalog(rest_server)
    db = _db()
    identifier = f"{db}.t"
    _create(catalog, identifier)
    args = [f"{k}={v}" for k, v in rest_server.catalog_options().items()]
    args.append(f"identifier={identifier}")
    procs = [subprocess.Popen([sys.executable, "-c", _COMMITTER, str(w), str(commits), *args],
                              stderr=subprocess.PIPE, text=True) for w in range(workers)]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    table = catalog.get_table(identifier)
    # Every commit applied once: one snapshot each, every row once, row ids 0..n-1.
    assert table.latest_snapshot().id == workers * commits
    got = _read(table, with_row_id=True)
    expected = sorted(w * 1000 + c * 10 + i for w in range(workers) for c in range(commits)
                      for i in range(10))
    assert got["id"].to_pylist() == expected
    assert sorted(got["_ROW_ID"].to_pylist()) == list(range(len(expected)))
    theirs = oracle.with_catalog_options(rest_server.catalog_options()).read(
        rest_server.warehouse, identifier)
    assert sorted(theirs["id"].to_pylist()) == expected


def test_unknown_metastore_lists_the_known_ones():
    from paimon_rowid import CatalogFactory

    with pytest.raises(ValueError, match=r"Unknown catalog identifier: hive\. Available "
                                         r"types: \['filesystem', 'rest'\]"):
        CatalogFactory.create({"metastore": "hive", "warehouse": "/tmp/x"})
    with pytest.raises(ValueError, match="uri is empty"):
        CatalogFactory.create({"metastore": "rest", "warehouse": "w"})


def test_wrong_token_fails_at_once(rest_server):
    from paimon_rowid.exceptions import NotAuthorizedException

    started = time.monotonic()
    with pytest.raises(NotAuthorizedException, match="Not authorized"):
        _catalog(rest_server, token="wrong-token")
    assert time.monotonic() - started < 5


def test_server_down_fails_fast():
    from paimon_rowid import CatalogFactory

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(OSError, match=rf"REST catalog server at http://127\.0\.0\.1:{port} "
                                      r"cannot be reached"):
        CatalogFactory.create({"metastore": "rest", "uri": f"127.0.0.1:{port}",
                               "warehouse": "w", "token.provider": "bear", "token": "t"})
    assert time.monotonic() - started < 5


def test_cli_on_a_rest_catalog(rest_server, capsys):
    from paimon_rowid.cli import main

    catalog = _catalog(rest_server)
    db = _db()
    _create(catalog, f"{db}.t")
    _write(catalog.get_table(f"{db}.t"), _data(0, 3))
    connection = [arg for k, v in rest_server.catalog_options().items() if k != "warehouse"
                  for arg in ("--option", f"{k}={v}")]
    assert main(["tables", rest_server.warehouse, db, *connection]) == 0
    assert capsys.readouterr().out.split() == ["t"]
    assert main(["read-by-row-id", rest_server.warehouse, f"{db}.t", "--ids", "2",
                 "--columns", "name", "--json", *connection]) == 0
    assert '"n2"' in capsys.readouterr().out
    bad = [a.replace(rest_server.token, "wrong") for a in connection]
    assert main(["tables", rest_server.warehouse, db, *bad]) == 1
    err = capsys.readouterr().err
    assert err.startswith("paimon-rowid: Not authorized") and "wrong" not in err
