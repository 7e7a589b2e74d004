"""Data tokens of the REST catalog (docs/rest-catalog.md): per-table object-store credentials
the server vends, against Java Paimon's RESTCatalogServer keeping its tables on a local S3
server that checks every request's credentials.

The S3 server is a moto of its own (tests/s3_server.py) with authentication switched on: only
keys of its IAM users are accepted (signatures checked), and a deleted key is refused at once.
The REST server (tests/rest_server.py, ``s3=``) writes the tables' schemas with its own key;
its config tells clients ``data-token.enabled``; each test gives a table a key of its own
through the server's token store (``set_data_token``), and takes it away by deleting the key.

(a) Reads and writes use the table's token, ours and pypaimon's alike, on the same tables; the
    server's default token (no real key) is refused by the store, so the token is what works.
(b) A token near its expiry is replaced from the server before the next request: a job whose
    first key is deleted after its expiry goes on with the new one; a pickled table (what Ray
    workers get) carries the token and refreshes on its own.
(c) A revoked token fails the job with OSError, leaves no snapshot and no file, and neither
    the exception nor the logs show the secret.
(c2) A token revoked between a job's data files and its commit: the commit fails with
    ``CommitIOError`` (a RuntimeError, as pypaimon's "Failed to prepare snapshot", which
    pypaimon raises in the same place), no snapshot is made, and the data files it wrote
    (which the revoked key cannot delete) are orphans ``remove_orphan_files`` deletes with
    a new token; pypaimon's commit leaves its files the same way.
(c3) The same for every other commit: update_by_row_id (in process and on Ray) and compact
    fail with ``CommitIOError`` when the key is deleted once the committer has started (a
    fault hook at ``commit_after_choosing_latest``: every data file of the job is written);
    only the job's data files are left, no manifest and no snapshot.
(d) Row-id jobs on Ray: the tasks open the table through the server and use its token.
(e) A refresh the server refuses (the table no longer allowed) fails the job with
    TableNoPermissionException, nothing of it written.
(f) BLOB payloads: descriptors resolved with the Table (BlobDescriptor.read, resolve_blobs,
    map_with_blobs in process and on Ray over read_paimon / read_by_row_id Datasets) and
    read_by_row_id of a BLOB column go through the table's token, and keep working when the
    token in hand expires and its key is deleted (each refreshes from the server).
"""
from __future__ import annotations

import contextlib
import json
import logging
import pickle
import re
import time
import urllib.request
import uuid

import pyarrow as pa
import pytest

from ours import write as _write

pytestmark = [pytest.mark.native, pytest.mark.java, pytest.mark.s3]

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])
BUCKET = "rest-data-tokens"
HOUR_MS = 3600 * 1000
ALLOW_ALL = json.dumps({"Version": "2012-10-17",
                        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


class TokenWorld:
    """A moto S3 server checking credentials, and a token-serving REST server on it."""

    def __init__(self, s3, rest, admin) -> None:
        self.s3, self.rest, self.admin = s3, rest, admin
        self._iam = self._client("iam")

    def _client(self, service: str):
        import boto3
        from botocore.config import Config

        return boto3.client(service, endpoint_url=self.s3.endpoint, region_name="us-east-1",
                            aws_access_key_id=self.admin[0], aws_secret_access_key=self.admin[1],
                            config=Config(s3={"addressing_style": "path"}))

    def new_key(self):
        """The key of a new IAM user allowed everything: (id, secret, user)."""
        user = f"client-{uuid.uuid4().hex[:8]}"
        self._iam.create_user(UserName=user)
        self._iam.put_user_policy(UserName=user, PolicyName="all", PolicyDocument=ALLOW_ALL)
        key = self._iam.create_access_key(UserName=user)["AccessKey"]
        return key["AccessKeyId"], key["SecretAccessKey"], user

    def revoke(self, key) -> None:
        self._iam.delete_access_key(UserName=key[2], AccessKeyId=key[0])

    def give(self, identifier: str, key, expires_in_ms: int) -> None:
        self.rest.set_data_token(identifier, int(time.time() * 1000) + expires_in_ms,
                                 {"fs.s3.accessKeyId": key[0], "fs.s3.accessKeySecret": key[1]})

    def files(self, identifier: str):
        """Every object under the table's directory (with the server's key)."""
        db, table = identifier.split(".")
        prefix = f"wh/{db}.db/{table}/"
        pages = self._client("s3").get_paginator("list_objects_v2").paginate(
            Bucket=BUCKET, Prefix=prefix)
        return sorted(o["Key"][len(prefix):] for p in pages for o in p.get("Contents", []))

    def catalog(self):
        from paimon_rowid import CatalogFactory

        return CatalogFactory.create(self.rest.catalog_options())


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    import boto3

    from java import JAVA_PAIMON_VERSION, JavaOracleUnavailable
    from rest_server import RestServer, S3Warehouse
    from s3_server import ACCESS_KEY, REGION, SECRET_KEY, S3Server, S3ServerUnavailable

    try:
        s3 = S3Server.start()
    except S3ServerUnavailable as error:
        pytest.skip(f"local S3 server (moto) unavailable: {error}")
    try:
        s3.make_bucket(BUCKET)
        iam = boto3.client("iam", endpoint_url=s3.endpoint, region_name=REGION,
                           aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)
        iam.create_user(UserName="server")
        iam.put_user_policy(UserName="server", PolicyName="all", PolicyDocument=ALLOW_ALL)
        made = iam.create_access_key(UserName="server")["AccessKey"]
        admin = (made["AccessKeyId"], made["SecretAccessKey"])
        # From now on moto checks every request's signature against its IAM users' keys.
        request = urllib.request.Request(f"{s3.endpoint}/moto-api/reset-auth", data=b"0",
                                         method="POST", headers={"Content-Type": "text/plain"})
        urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request).read()
        try:
            rest = RestServer.start(str(tmp_path_factory.mktemp("rest-token-data")),
                                    s3=S3Warehouse(f"s3://{BUCKET}/wh", s3.endpoint, *admin))
        except JavaOracleUnavailable as error:
            pytest.skip(f"Java Paimon {JAVA_PAIMON_VERSION} REST server unavailable: {error}")
        try:
            yield TokenWorld(s3, rest, admin)
        finally:
            rest.stop()
    finally:
        s3.stop()


def _data(start: int, n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": [f"n{i}" for i in range(start, start + n)]}, schema=SCHEMA)


def _create(catalog, identifier: str) -> None:
    from paimon_rowid import Schema

    catalog.create_database(identifier.split(".")[0], True)
    catalog.create_table(identifier, Schema.from_pyarrow_schema(SCHEMA, options=DE), False)


def _read(table) -> pa.Table:
    builder = table.new_read_builder()
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")


def _identifier() -> str:
    return f"db_{uuid.uuid4().hex[:8]}.t"


def test_reads_and_writes_use_the_tables_token(world, oracle):
    catalog = world.catalog()
    assert catalog.options["data-token.enabled"] == "true"
    identifier = _identifier()
    _create(catalog, identifier)
    # The server's own default token names no real key: the store refuses it.
    with pytest.raises(OSError):
        _write(catalog.get_table(identifier), _data(0, 3))
    assert [f for f in world.files(identifier) if not f.startswith("schema/")] == []
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    table = catalog.get_table(identifier)
    _write(table, _data(0, 10))
    assert table.path.startswith(f"s3://{BUCKET}/wh/")
    # pypaimon's REST client on the same server reads ours and writes; ours reads it.
    pypaimon = oracle.with_catalog_options(world.rest.catalog_options())
    assert pypaimon.read(world.rest.warehouse, identifier).sort_by("id").equals(_data(0, 10))
    pypaimon.write(world.rest.warehouse, identifier, _data(10, 5))
    assert _read(catalog.get_table(identifier)).equals(_data(0, 15))


def test_dlf_oss_endpoint_over_the_tokens(world):
    """pypaimon's ``dlf.oss-endpoint``: the OSS endpoint a table's files are reached by (a VPC
    endpoint, say) replaces the one the server's token names, in our process and in one that
    unpickles the table; the option changes nothing for an S3 table's reads and writes."""
    vpc = "oss-cn-hangzhou-internal.aliyuncs.com"
    plain = world.catalog()
    catalog = _catalog_with(world.rest.catalog_options(**{"dlf.oss-endpoint": vpc}))
    identifier = _identifier()
    _create(catalog, identifier)
    key = world.new_key()
    world.rest.set_data_token(identifier, int(time.time() * 1000) + 2 * HOUR_MS,
                              {"fs.s3.accessKeyId": key[0], "fs.s3.accessKeySecret": key[1],
                               "fs.oss.endpoint": "oss-cn-hangzhou.aliyuncs.com"})
    assert plain.get_table(identifier).file_io_options["fs.oss.endpoint"] == \
        "oss-cn-hangzhou.aliyuncs.com"
    table = catalog.get_table(identifier)
    assert table.file_io_options["fs.oss.endpoint"] == vpc
    _write(table, _data(0, 4))
    copy = pickle.loads(pickle.dumps(table))
    assert copy.file_io_options["fs.oss.endpoint"] == vpc
    _write(copy, _data(4, 2))
    assert _read(catalog.get_table(identifier)).equals(_data(0, 6))
    # Blank is unset, as pypaimon's strip() test.
    blank = _catalog_with(world.rest.catalog_options(**{"dlf.oss-endpoint": "  "}))
    assert blank.get_table(identifier).file_io_options["fs.oss.endpoint"] == \
        "oss-cn-hangzhou.aliyuncs.com"


def _catalog_with(options: dict):
    from paimon_rowid import CatalogFactory

    return CatalogFactory.create(options)


def test_a_token_near_its_expiry_is_refreshed_mid_job(world):
    catalog = world.catalog()
    identifier = _identifier()
    _create(catalog, identifier)
    first, second = world.new_key(), world.new_key()
    # Fresh for 3 more seconds (a token within an hour of its expiry is renewed first).
    world.give(identifier, first, HOUR_MS + 3000)
    table = catalog.get_table(identifier)
    _write(table, _data(0, 5))
    shipped = pickle.dumps(table)  # what a Ray worker gets: the first token
    world.give(identifier, second, 2 * HOUR_MS)
    time.sleep(3.5)
    world.revoke(first)  # the first token has expired: the store refuses it now
    # The same job (one table handle) goes on: its next requests ask for the new token.
    _write(table, _data(5, 5))
    assert _read(table).equals(_data(0, 10))
    # The worker's copy notices its token is stale and asks the server too.
    assert _read(pickle.loads(shipped)).equals(_data(0, 10))


def test_a_revoked_token_fails_the_job_cleanly(world, caplog, capfd):
    caplog.set_level(logging.DEBUG)
    catalog = world.catalog()
    identifier = _identifier()
    _create(catalog, identifier)
    key = world.new_key()
    world.give(identifier, key, 2 * HOUR_MS)
    table = catalog.get_table(identifier)
    _write(table, _data(0, 5))
    before = world.files(identifier)
    world.revoke(key)  # the server still hands it out; the store refuses it
    with pytest.raises(OSError) as failure:
        _write(table, _data(5, 5))
    # Nothing of the failed job: no snapshot, no data or manifest file.
    assert world.files(identifier) == before
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    fresh = world.catalog().get_table(identifier)
    assert fresh.latest_snapshot().id == 1
    assert _read(fresh).equals(_data(0, 5))
    # The secret is in no message and no log.
    out, err = capfd.readouterr()
    chain, e = [], failure.value
    while e is not None:
        chain.append(f"{type(e).__name__}: {e!r} {e}")
        e = e.__cause__ or e.__context__
    # (The test's own boto3 calls to moto's IAM log the keys they make: not ours.)
    ours = "\n".join(r.getMessage() for r in caplog.records
                     if not r.name.startswith(("botocore", "boto3", "urllib3")))
    assert caplog.records  # the log was captured at DEBUG
    for text in (*chain, ours, out, err):
        assert key[1] not in text
        assert world.rest.token not in text


def test_a_token_revoked_before_the_commit(world, oracle, tmp_path):
    from paimon_rowid import remove_orphan_files
    from paimon_rowid.exceptions import CommitIOError

    catalog = world.catalog()
    identifier = _identifier()
    _create(catalog, identifier)
    key = world.new_key()
    world.give(identifier, key, 2 * HOUR_MS)
    table = catalog.get_table(identifier)
    _write(table, _data(0, 5))
    before = world.files(identifier)
    builder = table.new_batch_write_builder()
    writer, committer = builder.new_write(), builder.new_commit()
    writer.write_arrow(_data(5, 5))
    messages = writer.prepare_commit()
    ours = sorted(set(world.files(identifier)) - set(before))
    assert len(ours) == 1 and ours[0].startswith("bucket-0/data-")
    world.revoke(key)  # the server still hands it out; the store refuses it
    with pytest.raises(RuntimeError, match="Failed to commit: .*ACCESS_DENIED") as failure:
        committer.commit(messages)
    assert isinstance(failure.value, (CommitIOError, OSError))
    assert key[1] not in str(failure.value)
    # No snapshot, no manifest: only the data file the job wrote.
    assert sorted(set(world.files(identifier)) - set(before)) == ours

    # pypaimon's commit in the same place: RuntimeError, its data file left behind too.
    theirs_key = world.new_key()
    world.give(identifier, theirs_key, 2 * HOUR_MS)
    pypaimon = oracle.with_catalog_options(world.rest.catalog_options())
    cmd = pypaimon.write_cmd(world.rest.warehouse, identifier, _data(10, 5))
    cmd["messages_out"] = str(tmp_path / "messages.pkl")
    pypaimon.run(cmd)
    theirs = sorted(set(world.files(identifier)) - set(before) - set(ours))
    assert len(theirs) == 1
    world.revoke(theirs_key)
    with pytest.raises(Exception) as their_failure:
        pypaimon.run({"cmd": "commit_messages", "warehouse": world.rest.warehouse,
                      "identifier": identifier, "messages_in": cmd["messages_out"]})
    assert their_failure.value.error_type == "RuntimeError"
    assert sorted(set(world.files(identifier)) - set(before)) == sorted(ours + theirs)

    # With a new token: still snapshot 1, and the two data files are orphans.
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    fresh = world.catalog().get_table(identifier)
    assert fresh.latest_snapshot().id == 1
    assert _read(fresh).equals(_data(0, 5))
    removed = remove_orphan_files(identifier, world.rest.catalog_options(),
                                  older_than_ms=int(time.time() * 1000) + 60_000)
    assert sorted(p.rsplit("/t/", 1)[1] for p in removed["paths"]) == sorted(ours + theirs)
    # (Arrow's S3 delete leaves a directory marker, "bucket-0/": not a file.)
    assert [f for f in world.files(identifier) if not f.endswith("/")] == before
    assert _read(world.catalog().get_table(identifier)).equals(_data(0, 5))


@contextlib.contextmanager
def _revoked_in_commit(world, key):
    """Deletes ``key`` when a commit of this process has chosen the snapshot it builds on
    (the job's data files are written by then); disarmed on the way out."""
    from paimon_rowid._internal._lib import native

    native()._arm_fault_hook("commit_after_choosing_latest", lambda: world.revoke(key))
    try:
        yield
    finally:
        native()._arm_fault_hook("", None)


def _fails_commit_cleanly(world, identifier: str, job, writes_files: bool = True) -> None:
    """``job()`` with the table's key deleted inside its commit: CommitIOError, and only data
    files of the job are left (no manifest, no snapshot; none at all for a job that writes
    none, as a truncate)."""
    from paimon_rowid.exceptions import CommitIOError

    key = world.new_key()
    world.give(identifier, key, 2 * HOUR_MS)
    before = world.files(identifier)
    with _revoked_in_commit(world, key), pytest.raises(CommitIOError) as failure:
        job()
    assert isinstance(failure.value, RuntimeError)
    assert re.match(r"Failed to commit: .*ACCESS_DENIED", str(failure.value)), failure.value
    assert key[1] not in str(failure.value)
    after = world.files(identifier)
    assert set(before) <= set(after)
    left = sorted(set(after) - set(before))
    assert bool(left) == writes_files, left
    assert all(re.fullmatch(r"bucket-0/data-[^/]+\.parquet", f) for f in left), left


def test_every_commit_fails_with_commit_io_error(ray_session, world):
    from paimon_rowid import WhenMatched, WhenNotMatched, compact, merge_into, update_by_row_id
    from paimon_rowid import ray as pr

    catalog = world.catalog()
    identifier = _identifier()
    _create(catalog, identifier)
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    _write(catalog.get_table(identifier), _data(0, 10))
    options = world.rest.catalog_options()
    # An update: the file group holds two files now, which a full compaction merges.
    first = pa.table({"_ROW_ID": pa.array([1], pa.int64()), "name": ["u1"]})
    assert update_by_row_id(identifier, first, options, update_cols=["name"]) == \
        {"num_updated": 1}
    source = pa.table({"_ROW_ID": pa.array([2, 7], pa.int64()), "name": ["u2", "u7"]})
    _fails_commit_cleanly(world, identifier, lambda: update_by_row_id(
        identifier, source, options, update_cols=["name"]))
    _fails_commit_cleanly(world, identifier, lambda: pr.update_by_row_id(
        identifier, source, options, update_cols=["name"], driver_max_bytes=0,
        driver_routing_max_bytes=0))
    _fails_commit_cleanly(world, identifier, lambda: compact(identifier, options, full=True))
    incoming = pa.table({"id": pa.array([3, 50], pa.int64()), "name": ["m3", "m50"]},
                        schema=SCHEMA)
    _fails_commit_cleanly(world, identifier, lambda: merge_into(
        identifier, incoming, options, on=["id"],
        when_matched=[WhenMatched.update({"name": "s.name"})],
        when_not_matched=[WhenNotMatched(insert="*")]))
    _fails_commit_cleanly(world, identifier, lambda: world.catalog().get_table(
        identifier).new_batch_write_builder().new_commit().truncate_table(), writes_files=False)
    # Nothing was committed: still the update's snapshot and rows.
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    fresh = world.catalog().get_table(identifier)
    assert fresh.latest_snapshot().id == 2
    expected = _data(0, 10)
    expected = expected.set_column(1, "name", pa.array(
        ["u1" if i == 1 else f"n{i}" for i in range(10)]))
    assert _read(fresh).equals(expected)
    # With a key that works, the same compaction commits (so it was due above).
    assert compact(identifier, options, full=True)["snapshot_id"] == 3


def test_ray_jobs_on_a_token_table(ray_session, world):
    from paimon_rowid import ray as pr

    catalog = world.catalog()
    identifier = _identifier()
    _create(catalog, identifier)
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    _write(catalog.get_table(identifier), _data(0, 20))
    # The work runs in Ray tasks (driver_max_bytes=0), which reach the files with the token.
    source = pa.table({"_ROW_ID": pa.array([2, 17], pa.int64()), "name": ["r2", "r17"]})
    options = world.rest.catalog_options()
    assert pr.update_by_row_id(identifier, source, options, update_cols=["name"],
                               driver_max_bytes=0, driver_routing_max_bytes=0) == \
        {"num_updated": 2}
    read = pr.read_by_row_id(identifier, pa.table({"_ROW_ID": pa.array([17, 2], pa.int64())}),
                             options, projection=["id", "name"], driver_max_bytes=0,
                             driver_routing_max_bytes=0)
    rows = sorted(read.take_all(), key=lambda r: r["id"])
    assert [(r["id"], r["name"]) for r in rows] == [(2, "r2"), (17, "r17")]


def test_a_refresh_the_server_refuses_fails_the_job_cleanly(world):
    from paimon_rowid import TableNoPermissionException

    catalog = world.catalog()
    identifier = _identifier()
    _create(catalog, identifier)
    key = world.new_key()
    world.give(identifier, key, HOUR_MS + 3000)
    table = catalog.get_table(identifier)
    _write(table, _data(0, 5))
    before = world.files(identifier)
    # The server stops serving the table (its token endpoint answers 403) while the token in
    # hand reaches its refresh time: the job's next request must ask, and is refused.
    world.rest.command(f"no-permission-table {identifier}")
    time.sleep(3.5)
    with pytest.raises(TableNoPermissionException) as failure:
        _write(table, _data(5, 5))
    assert key[1] not in str(failure.value)
    assert world.files(identifier) == before  # no snapshot, no data or manifest file


BLOB_SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("pic", pa.large_binary())])
DESCRIPTORS = {"blob-as-descriptor": "true"}


def _blob_rows(start: int, n: int) -> pa.Table:
    ids = list(range(start, start + n))
    pics = [None if i % 5 == 3 else bytes([i % 251]) * (100 + 997 * i) for i in ids]
    return pa.table({"id": ids, "pic": pa.array(pics, pa.large_binary())}, schema=BLOB_SCHEMA)


def _blob_table(world, n: int = 40):
    """A REST table with a BLOB column on the token store, ``_blob_rows(0, n)`` written with
    a key of its own (row ids 0..n-1 in id order), and its identifier."""
    from paimon_rowid import Schema

    catalog = world.catalog()
    identifier = _identifier()
    catalog.create_database(identifier.split(".")[0], True)
    catalog.create_table(identifier, Schema.from_pyarrow_schema(BLOB_SCHEMA, options=DE), False)
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    _write(catalog.get_table(identifier), _blob_rows(0, n))
    return catalog, identifier


def _expiring_key(world, identifier: str):
    """Serves the table a new key whose token is fresh for 3 more seconds."""
    key = world.new_key()
    world.give(identifier, key, HOUR_MS + 3000)
    return key


def _rotate(world, identifier: str, first) -> None:
    """The server serves a new key; the token of ``first`` expires and the store refuses it."""
    world.give(identifier, world.new_key(), 2 * HOUR_MS)
    time.sleep(3.5)
    world.revoke(first)


def _descriptors(table) -> pa.Table:
    builder = table.copy(DESCRIPTORS).new_read_builder().with_projection(["id", "pic"])
    return builder.new_read().to_arrow(builder.new_scan().plan().splits()).sort_by("id")


def test_blob_payloads_through_the_tables_token(world):
    from paimon_rowid import BlobDescriptor, read_by_row_id
    from paimon_rowid.blob import map_with_blobs, resolve_blobs

    catalog, identifier = _blob_table(world)
    expected = _blob_rows(0, 40)
    first = _expiring_key(world, identifier)
    table = catalog.get_table(identifier)
    descriptors = _descriptors(table)  # read with the first key
    stale = table.file_io_options  # the first key, as a plain dict
    _rotate(world, identifier, first)
    cells = descriptors["pic"].to_pylist()
    one = next(c for c in cells if c is not None)
    with pytest.raises(OSError, match="ACCESS_DENIED"):  # the first key is refused now
        BlobDescriptor.deserialize(one).read(catalog_options=stale)
    # Each resolves through the table's FileIO, which asks the server for the new token.
    assert [None if c is None else BlobDescriptor.deserialize(c).read(catalog_options=table)
            for c in cells] == expected["pic"].to_pylist()
    assert resolve_blobs(descriptors, ["pic"], parallelism=4, catalog_options=table) == \
        {"pic": expected["pic"].to_pylist()}
    mapped = map_with_blobs(descriptors, ["pic"], lambda scalar, blobs: (
        scalar["id"].to_pylist(), blobs["pic"]), batch_size=16, catalog_options=table)
    assert [p for _, pics in mapped for p in pics] == expected["pic"].to_pylist()
    assert [i for ids, _ in mapped for i in ids] == list(range(40))
    # Payload reads of the BLOB column: the table's own read (same handle) and read_by_row_id.
    assert _read(table).equals(expected)
    rows = read_by_row_id(identifier, [3, 17, 30], world.rest.catalog_options(),
                          projection=["id", "pic"])
    assert rows.select(["id", "pic"]).sort_by("id").equals(
        expected.take([3, 17, 30]))


def _ids_and_payloads_fn():
    """fn for Ray's map_with_blobs (built here so that Ray pickles it by value)."""

    def fn(scalar: pa.Table, blobs) -> pa.Table:
        return pa.table({"id": scalar["id"], "pic": pa.array(blobs["pic"], pa.large_binary())})

    return fn


def test_ray_map_with_blobs_through_the_tables_token(ray_session, world):
    import ray

    from paimon_rowid import ray as pr

    catalog, identifier = _blob_table(world)
    expected = _blob_rows(0, 40)
    first = _expiring_key(world, identifier)
    options = world.rest.catalog_options()
    # Datasets made while the first key is served; their tasks run after it is refused.
    scanned = pr.read_paimon(identifier, options, dynamic_options=DESCRIPTORS,
                             projection=["id", "pic"])
    by_id = pr.read_by_row_id(identifier, pa.table({"_ROW_ID": pa.array([30, 3, 17], pa.int64())}),
                              options, projection=["id", "pic"], dynamic_options=DESCRIPTORS,
                              driver_max_bytes=0, driver_routing_max_bytes=0)
    table = catalog.get_table(identifier)
    local = ray.data.from_arrow(_descriptors(table))
    _rotate(world, identifier, first)
    fn = _ids_and_payloads_fn()
    cases = ((scanned, {}, list(range(40))),
             (by_id, {"all_blob_columns": ["pic"]}, [3, 17, 30]),
             (local, {"all_blob_columns": ["pic"], "catalog_options": table}, list(range(40))))
    for dataset, kwargs, ids in cases:
        out = pr.map_with_blobs(dataset, ["pic"], fn, batch_size=8, **kwargs)
        got = pa.concat_tables([b for b in ray.get(out.to_arrow_refs()) if b.num_rows])
        assert got.sort_by("id").to_pylist() == expected.take(ids).to_pylist(), kwargs
