"""DLF request signing (``token.provider=dlf``, docs/rest-catalog.md) against Java Paimon's
RESTCatalogServer checking every request's signature with Java's own DLFDefaultSigner
(tests/rest_server.py, a ``dlf:`` token). No DLF service is reachable here: this checks the
signing algorithm end to end against Java's implementation, not a DLF deployment.

(a) Every catalog call, read and write signed by ours is accepted; pypaimon's DLF client on
    the same server sees the same tables.
(b) The OpenAPI signer (``dlf.signing-algorithm=openapi``, ROA HMAC-SHA1) is accepted by
    Java's DLFOpenApiSigner the same way.
(c) A wrong secret is NotAuthorizedException at CatalogFactory.create, the secret in no
    message; missing keys, an unknown algorithm or token loader and no region are ValueError.
"""
from __future__ import annotations

import uuid

import pyarrow as pa
import pytest

pytestmark = [pytest.mark.native, pytest.mark.java]

KEY_ID, SECRET, REGION = "AKIDdlfTest", "dlf/secret+Value-123", "cn-hangzhou"
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


@pytest.fixture(scope="module")
def dlf_server(tmp_path_factory):
    from java import JAVA_PAIMON_VERSION, JavaOracleUnavailable
    from rest_server import RestServer

    try:
        server = RestServer.start(str(tmp_path_factory.mktemp("rest-dlf-data")),
                                  token=f"dlf:{KEY_ID}:{SECRET}:{REGION}")
    except JavaOracleUnavailable as error:
        pytest.skip(f"Java Paimon {JAVA_PAIMON_VERSION} REST server unavailable: {error}")
    yield server
    server.stop()


def _options(server, **extra):
    options = {"metastore": "rest", "uri": server.uri, "warehouse": server.warehouse,
               "token.provider": "dlf", "dlf.access-key-id": KEY_ID,
               "dlf.access-key-secret": SECRET, "dlf.region": REGION}
    options.update(extra)
    return options


@pytest.mark.parametrize("algorithm", ["default", "openapi"])
def test_signed_requests_are_accepted(dlf_server, oracle, algorithm):
    from paimon_rowid import CatalogFactory, Schema

    catalog = CatalogFactory.create(_options(dlf_server, **{"dlf.signing-algorithm": algorithm}))
    db = f"db_{uuid.uuid4().hex[:8]}"
    catalog.create_database(db, False, {"k": "v w"})  # a body with a space
    catalog.create_table(f"{db}.t", Schema.from_pyarrow_schema(
        SCHEMA, options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}),
        False)
    assert catalog.list_tables(db) == ["t"]
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b", "c"]})
    table = catalog.get_table(f"{db}.t")
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(data)
    commit.commit(write.prepare_commit())  # through the server's commit endpoint, signed
    write.close()
    commit.close()
    pypaimon = oracle.with_catalog_options(
        _options(dlf_server, **{"dlf.signing-algorithm": algorithm}))
    assert pypaimon.read(dlf_server.warehouse, f"{db}.t").sort_by("id").equals(data)
    pypaimon.write(dlf_server.warehouse, f"{db}.t", pa.table(
        {"id": pa.array([4], pa.int64()), "name": ["d"]}))
    read = catalog.get_table(f"{db}.t").new_read_builder()
    got = read.new_read().to_arrow(read.new_scan().plan().splits()).sort_by("id")
    assert got["id"].to_pylist() == [1, 2, 3, 4]


def test_refusals(dlf_server):
    from paimon_rowid import CatalogFactory
    from paimon_rowid.exceptions import NotAuthorizedException

    wrong = "not-the-" + SECRET
    with pytest.raises(NotAuthorizedException) as failure:
        CatalogFactory.create(_options(dlf_server, **{"dlf.access-key-secret": wrong}))
    assert wrong not in str(failure.value) and SECRET not in str(failure.value)
    options = _options(dlf_server)
    del options["dlf.access-key-secret"]
    with pytest.raises(ValueError, match="dlf.access-key-secret"):
        CatalogFactory.create(options)
    with pytest.raises(ValueError, match="Unknown DLF signing algorithm: hmac"):
        CatalogFactory.create(_options(dlf_server, **{"dlf.signing-algorithm": "hmac"}))
    with pytest.raises(ValueError, match="Unknown DLF token loader: vault"):
        CatalogFactory.create(_options(dlf_server, **{"dlf.token-loader": "vault"}))
    wrong_openapi = _options(dlf_server, **{"dlf.signing-algorithm": "openapi",
                                            "dlf.access-key-secret": wrong})
    with pytest.raises(NotAuthorizedException) as failure:
        CatalogFactory.create(wrong_openapi)
    assert wrong not in str(failure.value)
    no_region = _options(dlf_server)
    del no_region["dlf.region"]
    with pytest.raises(ValueError, match="dlf.region"):
        CatalogFactory.create(no_region)


@pytest.fixture(scope="module")
def pypaimon_checked_server(tmp_path_factory, oracle):
    """A bearer-token RESTCatalogServer behind tests/dlf_verifying_proxy.py, which lets a
    request through only when pypaimon's own signers send the same headers for it."""
    import subprocess
    import sys
    from pathlib import Path

    from java import JAVA_PAIMON_VERSION, JavaOracleUnavailable
    from rest_server import RestServer

    try:
        upstream = RestServer.start(str(tmp_path_factory.mktemp("rest-dlf-proxied")))
    except JavaOracleUnavailable as error:
        pytest.skip(f"Java Paimon {JAVA_PAIMON_VERSION} REST server unavailable: {error}")
    proxy = subprocess.Popen(
        [str(oracle.python), str(Path(__file__).with_name("dlf_verifying_proxy.py")),
         upstream.uri, upstream.token, KEY_ID, SECRET, REGION],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr, text=True, bufsize=1)
    line = proxy.stdout.readline()
    assert line.startswith("@@URL@@ "), line

    def verified() -> int:
        proxy.stdin.write("count\n")
        proxy.stdin.flush()
        return int(proxy.stdout.readline())

    yield line.split(" ", 1)[1].strip(), upstream, verified
    proxy.stdin.close()
    proxy.wait(timeout=20)
    upstream.stop()


@pytest.mark.parametrize("algorithm", ["default", "openapi", "openapi-v4"])
def test_signatures_equal_pypaimons(pypaimon_checked_server, algorithm):
    """Every request of a catalog session (config, databases, tables, a commit with a body,
    paged listings with queries, a security token) carries exactly the headers pypaimon
    2.1.0's signer computes for it; openapi-v4 has no Java signer to check it against."""
    from paimon_rowid import CatalogFactory, Schema
    from paimon_rowid.exceptions import NotAuthorizedException

    uri, upstream, verified = pypaimon_checked_server
    options = {"metastore": "rest", "uri": uri, "warehouse": upstream.warehouse,
               "token.provider": "dlf", "dlf.access-key-id": KEY_ID,
               "dlf.access-key-secret": SECRET, "dlf.security-token": "sts/token+1",
               "dlf.region": REGION, "dlf.signing-algorithm": algorithm}
    before = verified()
    catalog = CatalogFactory.create(options)
    db = f"db_{uuid.uuid4().hex[:8]}"
    catalog.create_database(db, False, {"k": "v w"})
    catalog.create_table(f"{db}.t x", Schema.from_pyarrow_schema(
        SCHEMA, options={"row-tracking.enabled": "true", "data-evolution.enabled": "true"}),
        False)
    table = catalog.get_table(f"{db}.t x")
    builder = table.new_batch_write_builder()
    write, commit = builder.new_write(), builder.new_commit()
    write.write_arrow(pa.table({"id": pa.array([1], pa.int64()), "name": ["a"]}))
    commit.commit(write.prepare_commit())
    write.close()
    commit.close()
    assert catalog.list_tables(db) == ["t x"]
    catalog.drop_table(f"{db}.t x", False)
    assert verified() - before >= 7
    with pytest.raises(NotAuthorizedException):  # the proxy does check
        CatalogFactory.create({**options, "dlf.access-key-secret": "not-the-" + SECRET})
