"""DLF credential loaders (``token.provider=dlf``, docs/rest-catalog.md "DLF"): the token file
(``dlf.token-path``) and the ECS instance-metadata service (``dlf.token-loader=ecs``), against
Java Paimon's RESTCatalogServer checking every request's signature with Java's own signers and
only the keys the test lets it accept (tests/rest_server.py, ``dlf-add-key`` /
``dlf-revoke-key``), and a real local HTTP metadata server started here.

(a) A token file rewritten mid-job (between a write and its commit, the old key revoked) is
    taken at the next request; pypaimon reads the same file. The CLI takes the same options,
    and a process unpickling a table reads the file itself (keys rotated since the pickle).
(b) ECS: the role is asked once, the credentials are kept while fresh, and refreshed from the
    service within the hour before their expiry (the service rotated them; the old key is
    revoked on the catalog server before it expires); pypaimon's ECS loader on the same service.
    Explicit loaders (``local_file``; ``ecs`` with the role name given) win over fixed keys.
(c) Errors with pypaimon's types: a missing or malformed token file and a metadata service that
    is down or refuses are RuntimeError; credentials past their expiry are
    NotAuthorizedException (nothing sent, nothing committed). No secret is in any message,
    exception chain, log record or stderr line.
"""
from __future__ import annotations

import json
import logging
import socket
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pyarrow as pa
import pytest

pytestmark = [pytest.mark.native, pytest.mark.java]

REGION = "cn-hangzhou"
BOOT_ID, BOOT_SECRET = "AKIDboot", "boot/secret+Value-0"
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])
TABLE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}


def _secret(tag: str) -> str:
    return f"dlf-secret-{tag}-{uuid.uuid4().hex[:10]}"


def _expiration(seconds_from_now: float) -> str:
    at = datetime.now(timezone.utc) + timedelta(seconds=seconds_from_now)
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _document(key_id: str, secret: str, token: str, expiration: str) -> str:
    return json.dumps({"AccessKeyId": key_id, "AccessKeySecret": secret,
                       "SecurityToken": token, "Expiration": expiration})


@pytest.fixture(scope="module")
def dlf_server(tmp_path_factory):
    from java import JAVA_PAIMON_VERSION, JavaOracleUnavailable
    from rest_server import RestServer

    try:
        server = RestServer.start(str(tmp_path_factory.mktemp("rest-dlf-credentials")),
                                  token=f"dlf:{BOOT_ID}:{BOOT_SECRET}:{REGION}")
    except JavaOracleUnavailable as error:
        pytest.skip(f"Java Paimon {JAVA_PAIMON_VERSION} REST server unavailable: {error}")
    yield server
    server.stop()


def _base(server, **extra):
    options = {"metastore": "rest", "uri": server.uri, "warehouse": server.warehouse,
               "token.provider": "dlf", "dlf.region": REGION}
    options.update(extra)
    return options


def _boot(server):
    """A catalog with the server's fixed boot key, to look behind a test's back."""
    from paimon_rowid import CatalogFactory

    return CatalogFactory.create(_base(server, **{"dlf.access-key-id": BOOT_ID,
                                                  "dlf.access-key-secret": BOOT_SECRET}))


def _new_table(catalog) -> str:
    from paimon_rowid import Schema

    db = f"db_{uuid.uuid4().hex[:8]}"
    catalog.create_database(db, False)
    catalog.create_table(f"{db}.t", Schema.from_pyarrow_schema(SCHEMA, options=TABLE_OPTIONS),
                         False)
    return f"{db}.t"


def _rows(ids):
    return pa.table({"id": pa.array(ids, pa.int64()), "name": [f"n{i}" for i in ids]})


def _read_ids(catalog, identifier):
    read = catalog.get_table(identifier).new_read_builder()
    return sorted(read.new_read().to_arrow(read.new_scan().plan().splits())["id"].to_pylist())


def _assert_no_secret(secrets, *texts):
    for text in texts:
        for secret in secrets:
            assert secret not in text, "a secret leaked into a message or log"


def _chain(error: BaseException) -> str:
    parts = []
    while error is not None:
        parts.append(f"{type(error).__name__}: {error}")
        error = error.__cause__ or error.__context__
    return "\n".join(parts)


# -- (a) the token file -----------------------------------------------------------------------


def test_token_file_rewritten_mid_job(dlf_server, tmp_path, oracle):
    from paimon_rowid import CatalogFactory

    first, second = ("AKIDfile1", _secret("f1")), ("AKIDfile2", _secret("f2"))
    dlf_server.command(f"dlf-add-key {first[0]} {first[1]}")
    path = tmp_path / "dlf-token.json"
    path.write_text(_document(*first, "sts-1", _expiration(6 * 3600)))
    options = _base(dlf_server, **{"dlf.token-path": str(path)})
    catalog = CatalogFactory.create(options)
    identifier = _new_table(catalog)

    builder = catalog.get_table(identifier).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows([1, 2, 3]))
    messages = write.prepare_commit()
    # The credential agent rotates the keys: a new file (whose Expiration is still hours
    # away, so only the rewrite tells), and the old key stops working at once.
    dlf_server.command(f"dlf-add-key {second[0]} {second[1]}")
    staging = tmp_path / "dlf-token.json.tmp"
    staging.write_text(_document(*second, "sts-2", _expiration(6 * 3600)))
    staging.rename(path)
    dlf_server.command(f"dlf-revoke-key {first[0]}")
    commit.commit(messages)  # signed with the second key, through the server
    write.close()
    commit.close()
    assert _read_ids(catalog, identifier) == [1, 2, 3]
    pypaimon = oracle.with_catalog_options(options)
    assert pypaimon.read(dlf_server.warehouse, identifier)["id"].to_pylist() == [1, 2, 3]


def test_token_file_errors(dlf_server, tmp_path, caplog, capfd):
    from paimon_rowid import CatalogFactory
    from paimon_rowid.exceptions import NotAuthorizedException

    caplog.set_level(logging.DEBUG)
    secret = _secret("bad")
    missing = tmp_path / "absent.json"
    with pytest.raises(RuntimeError, match="Failed to read token file: .*absent.json") as error:
        CatalogFactory.create(_base(dlf_server, **{"dlf.token-path": str(missing)}))
    assert type(error.value) is RuntimeError  # pypaimon's type, not an OSError subclass

    malformed = tmp_path / "malformed.json"
    malformed.write_text('{"AccessKeyId": "AKIDbad", "AccessKeySecret": "' + secret + '", ')
    with pytest.raises(RuntimeError, match=r"^Failed to parse token file\.$") as error:
        CatalogFactory.create(_base(dlf_server, **{"dlf.token-path": str(malformed)}))
    texts = [_chain(error.value)]

    # Credentials past their Expiration: refused before anything is sent.
    key = ("AKIDexpired", _secret("exp"))
    dlf_server.command(f"dlf-add-key {key[0]} {key[1]}")
    expired = tmp_path / "expired.json"
    expired.write_text(_document(*key, "sts-old", _expiration(-60)))
    with pytest.raises(NotAuthorizedException, match="expired at") as error:
        CatalogFactory.create(_base(dlf_server, **{"dlf.token-path": str(expired)}))
    texts.append(_chain(error.value))

    # ... and mid-job: the commit fails, nothing of it is committed.
    live = tmp_path / "live.json"
    live.write_text(_document(*key, "sts-live", _expiration(6 * 3600)))
    catalog = CatalogFactory.create(_base(dlf_server, **{"dlf.token-path": str(live)}))
    identifier = _new_table(catalog)
    builder = catalog.get_table(identifier).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows([7]))
    messages = write.prepare_commit()
    live.write_text(_document(*key, "sts-live", _expiration(-1)))  # the agent died
    with pytest.raises(NotAuthorizedException) as error:
        commit.commit(messages)
    texts.append(_chain(error.value))
    write.close()
    commit.close()
    assert _read_ids(_boot(dlf_server), identifier) == []
    captured = capfd.readouterr()
    _assert_no_secret([secret, key[1], "sts-old", "sts-live"], *texts, caplog.text,
                      captured.out, captured.err)


def test_token_file_from_the_cli_and_other_processes(dlf_server, tmp_path, capsys):
    """The CLI takes the same options; a pickled table carries the options (never loaded
    keys), so a process that unpickles it signs with what the file says there and then."""
    import pickle
    import subprocess
    import sys

    from paimon_rowid import CatalogFactory
    from paimon_rowid.cli import main

    first, second = ("AKIDproc1", _secret("p1")), ("AKIDproc2", _secret("p2"))
    dlf_server.command(f"dlf-add-key {first[0]} {first[1]}")
    path = tmp_path / "token.json"
    path.write_text(_document(*first, "sts-p1", _expiration(6 * 3600)))
    options = _base(dlf_server, **{"dlf.token-path": str(path)})
    catalog = CatalogFactory.create(options)
    identifier = _new_table(catalog)
    connection = [arg for k, v in options.items() if k != "warehouse"
                  for arg in ("--option", f"{k}={v}")]
    assert main(["tables", dlf_server.warehouse, identifier.split(".")[0], *connection]) == 0
    assert capsys.readouterr().out.split() == ["t"]

    pickled = tmp_path / "table.pickle"
    pickled.write_bytes(pickle.dumps(catalog.get_table(identifier)))
    dlf_server.command(f"dlf-add-key {second[0]} {second[1]}")
    path.write_text(_document(*second, "sts-p2", _expiration(6 * 3600)))
    dlf_server.command(f"dlf-revoke-key {first[0]}")
    child = (
        "import pickle, sys, pyarrow as pa\n"
        "table = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "builder = table.new_batch_write_builder()\n"
        "write, commit = builder.new_write(), builder.new_commit()\n"
        "write.write_arrow(pa.table({'id': pa.array([5], pa.int64()), 'name': ['n5']}))\n"
        "commit.commit(write.prepare_commit())\n")
    done = subprocess.run([sys.executable, "-c", child, str(pickled)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _read_ids(catalog, identifier) == [5]

    path.unlink()
    assert main(["tables", dlf_server.warehouse, identifier.split(".")[0], *connection]) == 1
    err = capsys.readouterr().err
    assert "Failed to read token file" in err
    _assert_no_secret([first[1], second[1], "sts-p2"], err, done.stderr)


# -- (b) the ECS metadata service -------------------------------------------------------------


class MetadataService:
    """A local ECS instance-metadata service: GET <root> answers the role name, GET
    <root><role> the role's current credentials (set with ``serve``). Counts requests."""

    ROOT = "/latest/meta-data/Ram/security-credentials/"

    def __init__(self, role: str) -> None:
        self.role = role
        self.document = "{}"
        self.role_requests = 0
        self.credential_requests = 0
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                with service.lock:
                    if self.path == service.ROOT:
                        service.role_requests += 1
                        status, body = 200, service.role
                    elif self.path == service.ROOT + service.role:
                        service.credential_requests += 1
                        status, body = 200, service.document
                    else:
                        status, body = 404, "no such path"
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{self.ROOT}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def serve(self, document: str) -> None:
        with self.lock:
            self.document = document

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def metadata_service():
    service = MetadataService(f"role-{uuid.uuid4().hex[:6]}")
    yield service
    service.stop()


def test_ecs_credentials_refreshed_before_expiry(dlf_server, metadata_service, oracle):
    from paimon_rowid import CatalogFactory

    first, second = ("AKIDecs1", _secret("e1")), ("AKIDecs2", _secret("e2"))
    dlf_server.command(f"dlf-add-key {first[0]} {first[1]}")
    # The first credentials enter the hour before their expiry 4 s from now.
    metadata_service.serve(_document(*first, "sts-e1", _expiration(3600 + 4)))
    options = _base(dlf_server, **{"dlf.token-loader": "ecs",
                                   "dlf.token-ecs-metadata-url": metadata_service.url})
    catalog = CatalogFactory.create(options)
    identifier = _new_table(catalog)
    table = catalog.get_table(identifier)
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows([1, 2]))
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()
    assert (metadata_service.role_requests, metadata_service.credential_requests) == (1, 1)

    # The service rotates; the old key is revoked while it is still an hour from expiring.
    dlf_server.command(f"dlf-add-key {second[0]} {second[1]}")
    metadata_service.serve(_document(*second, "sts-e2", _expiration(6 * 3600)))
    time.sleep(4.5)
    dlf_server.command(f"dlf-revoke-key {first[0]}")
    builder = catalog.get_table(identifier).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows([3]))
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()
    assert _read_ids(catalog, identifier) == [1, 2, 3]
    assert metadata_service.role_requests == 1  # the role is asked once
    assert metadata_service.credential_requests == 2  # fresh credentials are kept

    # pypaimon's ECS loader on the same service and server.
    pypaimon = oracle.with_catalog_options(options)
    assert pypaimon.read(dlf_server.warehouse, identifier)["id"].to_pylist() == [1, 2, 3]


def test_explicit_loaders_win_over_fixed_keys(dlf_server, metadata_service, tmp_path, oracle):
    """``dlf.token-loader=local_file`` (the file at ``dlf.token-path``) and ``ecs`` with
    ``dlf.token-ecs-role-name`` given (the role is never asked) sign with what they load, not
    with fixed keys also present (which the server does not know); pypaimon alike."""
    from paimon_rowid import CatalogFactory

    unknown = {"dlf.access-key-id": "AKIDnobody", "dlf.access-key-secret": _secret("nobody")}
    file_key, ecs_key = ("AKIDlocal", _secret("l")), ("AKIDrole", _secret("r"))
    dlf_server.command(f"dlf-add-key {file_key[0]} {file_key[1]}")
    dlf_server.command(f"dlf-add-key {ecs_key[0]} {ecs_key[1]}")
    path = tmp_path / "token.json"
    path.write_text(_document(*file_key, "sts-l", _expiration(6 * 3600)))
    local = _base(dlf_server, **unknown, **{"dlf.token-loader": "local_file",
                                             "dlf.token-path": str(path)})
    catalog = CatalogFactory.create(local)
    identifier = _new_table(catalog)
    builder = catalog.get_table(identifier).new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(_rows([1]))
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()

    metadata_service.serve(_document(*ecs_key, "sts-r", _expiration(6 * 3600)))
    ecs = _base(dlf_server, **unknown, **{
        "dlf.token-loader": "ecs", "dlf.token-ecs-metadata-url": metadata_service.url,
        "dlf.token-ecs-role-name": metadata_service.role})
    assert _read_ids(CatalogFactory.create(ecs), identifier) == [1]
    assert (metadata_service.role_requests, metadata_service.credential_requests) == (0, 1)
    for options in (local, ecs):
        pypaimon = oracle.with_catalog_options(options)
        assert pypaimon.read(dlf_server.warehouse, identifier)["id"].to_pylist() == [1]

    # Fixed keys alone, unknown to the server: refused (so the loaders' keys did the work).
    from paimon_rowid.exceptions import NotAuthorizedException

    with pytest.raises(NotAuthorizedException):
        CatalogFactory.create(_base(dlf_server, **unknown)).list_databases()
    # local_file without a path: ValueError at once (pypaimon: RuntimeError at the first
    # request, "Failed to read token file: None").
    with pytest.raises(ValueError, match="local_file.*needs dlf.token-path"):
        CatalogFactory.create(_base(dlf_server, **{"dlf.token-loader": "local_file"}))


def test_ecs_errors(dlf_server, metadata_service, caplog, capfd):
    from paimon_rowid import CatalogFactory

    caplog.set_level(logging.DEBUG)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{probe.getsockname()[1]}/latest/meta-data/"
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="ECS metadata service " + down) as error:
        CatalogFactory.create(_base(dlf_server, **{"dlf.token-loader": "ecs",
                                                   "dlf.token-ecs-metadata-url": down}))
    assert type(error.value) is RuntimeError
    assert time.monotonic() - started < 10  # fails fast, not after pypaimon's 180 s timeouts

    with pytest.raises(RuntimeError, match="HTTP 404"):
        CatalogFactory.create(_base(dlf_server, **{
            "dlf.token-loader": "ecs", "dlf.token-ecs-metadata-url": metadata_service.url,
            "dlf.token-ecs-role-name": "not-the-role"}))

    secret = _secret("ecsbad")
    metadata_service.serve('{"AccessKeyId": "AKIDx", "AccessKeySecret": "' + secret + '"')
    with pytest.raises(RuntimeError, match="Failed to parse ECS token response") as error:
        CatalogFactory.create(_base(dlf_server, **{
            "dlf.token-loader": "ecs", "dlf.token-ecs-metadata-url": metadata_service.url}))
    captured = capfd.readouterr()
    _assert_no_secret([secret], _chain(error.value), caplog.text, captured.out, captured.err)

    with pytest.raises(ValueError, match="Unknown DLF token loader: vault"):
        CatalogFactory.create(_base(dlf_server, **{"dlf.token-loader": "vault"}))
