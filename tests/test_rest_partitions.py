"""The catalog's partition calls that change something, on a REST table (docs/rest-catalog.md):
``drop_partitions``, ``create_partitions`` and ``mark_done_partitions`` go to the server, on
Java Paimon 1.4.2's RESTCatalogServer (tests/rest_server.py), with pypaimon's REST client on
the same server.

(a) ``drop_partitions`` is one truncate commit through the server's commit endpoint (as
    pypaimon's and Java's REST catalogs do it for a Paimon table): the server drops the
    emptied partitions from the list it keeps, which pypaimon's REST client lists the same;
    pypaimon's drop is seen by ours alike. Refused arguments commit nothing.
(b) ``create_partitions`` sends the OpenAPI spec's createPartitions request, the same request
    pypaimon sends (checked on a recording HTTP server); Java 1.4.2's test server does not
    implement it, and both clients say so (pypaimon's 404 reading excepted, documented).
(c) ``mark_done_partitions`` reaches the server (its refusals come back typed); a table whose
    partitions the server does not keep (501) is not an error, as Java's RESTCatalog.

Tables whose partitions the server keeps have ``metastore.partitioned-table`` (else the Java
server answers 501 to the partition calls and listings are read from the table's files).
"""
from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer

import pyarrow as pa
import pytest

from ours import write as _write

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
METASTORE = {**DE, "metastore.partitioned-table": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("p", pa.string())])


def _data(ids, part: str) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "p": [part] * len(ids)},
                    schema=SCHEMA)


def _setup(server, options=METASTORE):
    from paimon_rowid import CatalogFactory, Schema

    catalog = CatalogFactory.create(server.catalog_options())
    db = f"db_{uuid.uuid4().hex[:10]}"
    catalog.create_database(db, False)
    # The Java test server matches a table's partitions by table name alone: unique names.
    identifier = f"{db}.t_{uuid.uuid4().hex[:10]}"
    catalog.create_table(identifier, Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["p"], options=options), False)
    return catalog, identifier


def _served(catalog, identifier):
    """The server's partitions as ours lists them: {value: record count}."""
    return {p.spec["p"]: p.record_count
            for p in catalog.list_partitions_paged(identifier).elements}


def _theirs(pypaimon, warehouse, identifier):
    listed = pypaimon.run({"cmd": "list_partitions", "warehouse": warehouse,
                           "identifier": identifier})["partitions"]
    return {p["spec"]["p"]: p["record_count"] for p in listed}


def _ids(table) -> list:
    builder = table.new_read_builder()
    return sorted(builder.new_read().to_arrow(builder.new_scan().plan().splits())
                  .column("id").to_pylist())


def test_drop_partitions_commits_through_the_server(rest_server, oracle):
    from paimon_rowid import TableNotExistException

    catalog, identifier = _setup(rest_server)
    _write(catalog.get_table(identifier), pa.concat_tables(
        [_data(range(3), "a"), _data(range(3, 5), "b"), _data(range(5, 6), "c")]))
    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    wh = rest_server.warehouse
    pypaimon.write(wh, identifier, _data(range(6, 8), "d"))
    assert _served(catalog, identifier) == {"a": 3, "b": 2, "c": 1, "d": 2}

    catalog.drop_partitions(identifier, [{"p": "a"}])
    table = catalog.get_table(identifier)
    assert table.latest_snapshot().commit_kind == "OVERWRITE"
    assert _served(catalog, identifier) == {"b": 2, "c": 1, "d": 2}
    assert _theirs(pypaimon, wh, identifier) == {"b": 2, "c": 1, "d": 2}
    assert sorted(pypaimon.read(wh, identifier).column("id").to_pylist()) == [3, 4, 5, 6, 7]

    # pypaimon's drop, seen by ours the same way.
    pypaimon.run({"cmd": "partition_op", "op": "drop", "warehouse": wh,
                  "identifier": identifier, "partitions": [{"p": "d"}]})
    assert _served(catalog, identifier) == {"b": 2, "c": 1}
    assert _ids(catalog.get_table(identifier)) == [3, 4, 5]

    # Refusals commit nothing.
    latest = catalog.get_table(identifier).latest_snapshot().id
    with pytest.raises(ValueError, match="Partitions list cannot be empty"):
        catalog.drop_partitions(identifier, [])
    with pytest.raises(ValueError):
        catalog.drop_partitions(identifier, [{"not_a_key": "b"}])
    with pytest.raises(TableNotExistException):
        catalog.drop_partitions(identifier + "_missing", [{"p": "b"}])
    assert catalog.get_table(identifier).latest_snapshot().id == latest
    assert _served(catalog, identifier) == {"b": 2, "c": 1}


def test_create_partitions_on_a_server_without_the_call(rest_server, oracle):
    from paimon_rowid import CatalogFactory, TableNoPermissionException, TableNotExistException
    from paimon_rowid.exceptions import NotImplementedException

    pypaimon = oracle.with_catalog_options(rest_server.catalog_options())
    wh = rest_server.warehouse

    def theirs(identifier):
        with pytest.raises(Exception) as failure:
            pypaimon.run({"cmd": "partition_op", "op": "create", "warehouse": wh,
                          "identifier": identifier, "partitions": [{"p": "z"}]})
        return failure.value.error_type

    # Java 1.4.2's server answers 501 for a table whose partitions it does not keep ...
    catalog, plain = _setup(rest_server, DE)
    with pytest.raises(NotImplementedException):
        catalog.create_partitions(plain, [{"p": "z"}])
    assert theirs(plain) == "NotImplementedException"
    # ... and a bare 404 for one it keeps: pypaimon reads it as a missing table; ours sees
    # that the table exists and says what happened.
    catalog, kept = _setup(rest_server)
    _write(catalog.get_table(kept), _data(range(2), "a"))
    with pytest.raises(NotImplementedException, match="does not implement create_partitions"):
        catalog.create_partitions(kept, [{"p": "z"}], ignore_if_exists=False)
    assert theirs(kept) == "TableNotExistException"
    assert _served(catalog, kept) == {"a": 2}
    # A missing or forbidden table, alike for both.
    with pytest.raises(TableNotExistException):
        catalog.create_partitions(kept + "_missing", [{"p": "z"}])
    assert theirs(kept + "_missing") == "TableNotExistException"
    _, forbidden = _setup(rest_server)
    rest_server.command(f"no-permission-table {forbidden}")
    with pytest.raises(TableNoPermissionException):
        catalog.create_partitions(forbidden, [{"p": "z"}])
    assert theirs(forbidden) == "TableNoPermissionException"
    with pytest.raises(TypeError):
        catalog.create_partitions(kept, {"p": "z"})
    # The filesystem catalog refuses the call, as pypaimon's does.
    with pytest.raises(NotImplementedError, match="create_partitions is not supported"):
        CatalogFactory.create({"warehouse": rest_server.data_dir}).create_partitions(
            "db.t", [{"p": "z"}])


def test_mark_done_partitions_reaches_the_server(rest_server, tmp_path):
    from paimon_rowid import (
        CatalogFactory,
        Schema,
        TableNoPermissionException,
        TableNotExistException,
    )

    catalog, kept = _setup(rest_server)
    _write(catalog.get_table(kept), _data(range(2), "a"))
    catalog.mark_done_partitions(kept, [{"p": "a"}])
    _, plain = _setup(rest_server, DE)
    catalog.mark_done_partitions(plain, [{"p": "a"}])  # 501: ignored, as Java's client
    with pytest.raises(TableNotExistException):
        catalog.mark_done_partitions(kept + "_missing", [{"p": "a"}])
    _, forbidden = _setup(rest_server)
    rest_server.command(f"no-permission-table {forbidden}")
    with pytest.raises(TableNoPermissionException):  # the server answered: it was sent
        catalog.mark_done_partitions(forbidden, [{"p": "a"}])
    # The filesystem catalog keeps no partition state (Java's no-op); a missing table raises.
    local = CatalogFactory.create({"warehouse": str(tmp_path)})
    local.create_database("db", False)
    local.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["p"],
                                                          options=DE), False)
    local.mark_done_partitions("db.t", [{"p": "a"}])
    with pytest.raises(TableNotExistException):
        local.mark_done_partitions("db.missing", [{"p": "a"}])


class _Recorder(BaseHTTPRequestHandler):
    """Answers the config call and records every other request (a stand-in for a server
    that implements createPartitions, to compare the two clients' requests)."""

    requests: list = []

    def _answer(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path.startswith("/v1/config"):
            self._answer({"defaults": {"prefix": "rec"}, "overrides": {}})
        else:
            self.send_error(404)

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null")
        type(self).requests.append((self.command, self.path, body))
        self._answer({"created": [], "existed": []})

    def log_message(self, *args):
        pass


def test_create_partitions_sends_pypaimons_request(oracle):
    from paimon_rowid import CatalogFactory

    _Recorder.requests = []
    server = HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        options = {"metastore": "rest", "uri": f"http://127.0.0.1:{server.server_port}",
                   "warehouse": "wh", "token.provider": "bear", "token": "t"}
        specs = [{"p": "a", "q": "1"}, {"p": "b", "q": "2"}]
        CatalogFactory.create(options).create_partitions("db.t", specs, ignore_if_exists=False)
        oracle.with_catalog_options(options).run(
            {"cmd": "partition_op", "op": "create", "warehouse": "wh", "identifier": "db.t",
             "partitions": specs, "ignore_if_exists": False})
    finally:
        server.shutdown()
        server.server_close()
    ours, theirs = _Recorder.requests
    assert ours == theirs
    assert ours == ("POST", "/v1/rec/databases/db/tables/t/partitions",
                    {"partitionSpecs": specs, "ignoreIfExists": False})
