"""The local S3 server of tests/s3_server.py (moto in server mode) and pypaimon on it.

What later S3 tests build on: the server answers and forgets nothing while it runs; a
put-if-absent (``If-None-Match: *``) really refuses the second writer; pypaimon, through the
oracle with S3 catalog options, writes a data-evolution table into an ``s3://`` warehouse and
reads it back exactly as the same steps in a local warehouse; every object the table's
snapshots reference is stored, and nothing temporary is left behind.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pyarrow as pa
import pytest

from de_tables import DE_OPTIONS, SCHEMA, build, rows
from oracle import OracleError
from s3_server import client_for, split_uri

pytestmark = pytest.mark.s3

HERE = Path(__file__).resolve().parent


def _table_prefix(warehouse: str, identifier: str) -> str:
    """The bucket-relative key prefix of a table's directory (pypaimon's layout)."""
    database, table = identifier.split(".", 1)
    return f"{split_uri(warehouse)[1]}/{database}.db/{table}/"


def _files(keys, prefix):
    """Table-relative names of the objects under ``prefix`` (directory markers dropped)."""
    return sorted(k[len(prefix):] for k in keys if k.startswith(prefix) and not k.endswith("/"))


def test_server_answers_and_keeps_buckets_apart(s3_server):
    assert s3_server.running
    assert s3_server.endpoint == f"http://127.0.0.1:{s3_server.port}"
    with urllib.request.urlopen(s3_server.endpoint + "/", timeout=10) as answer:
        assert answer.status == 200
        assert b"ListAllMyBucketsResult" in answer.read()
    assert s3_server.make_bucket("answers-one") == "answers-one"
    assert s3_server.make_bucket("answers-one") == "answers-one"  # idempotent
    s3_server.make_bucket("answers-two")
    client = s3_server.client()
    client.put_object(Bucket="answers-one", Key="a/b/c.txt", Body=b"abc")
    assert client.get_object(Bucket="answers-one", Key="a/b/c.txt")["Body"].read() == b"abc"
    assert s3_server.list_keys("s3://answers-one/a/") == ["a/b/c.txt"]
    assert s3_server.list_keys("a/", bucket="answers-one") == ["a/b/c.txt"]
    assert s3_server.list_keys("s3://answers-two/") == []
    names = {b["Name"] for b in client.list_buckets()["Buckets"]}
    assert {"answers-one", "answers-two"} <= names


def test_fresh_warehouses_are_unique_and_empty(s3_server):
    first = s3_server.fresh_warehouse("same name/with spaces")
    second = s3_server.fresh_warehouse("same name/with spaces")
    assert first != second
    for uri in (first, second):
        bucket, key = split_uri(uri)
        assert uri.startswith("s3://") and uri.endswith("/warehouse")
        assert " " not in key and key.count("/") == 1
        assert s3_server.list_keys(uri) == []
    assert s3_server.catalog_options(first) == {
        "warehouse": first, "fs.s3.endpoint": s3_server.endpoint,
        "fs.s3.accessKeyId": "testing", "fs.s3.accessKeySecret": "testing",
        "fs.s3.region": "us-east-1", "s3.path.style.access": "true"}
    assert s3_server.java_catalog_options(first) == {
        "warehouse": first, "s3.endpoint": s3_server.endpoint, "s3.access-key": "testing",
        "s3.secret-key": "testing", "s3.path.style.access": "true"}


def test_list_keys_reads_every_page(s3_server):
    bucket = s3_server.make_bucket("paging")
    client = s3_server.client()
    expected = sorted(f"many/{i:03d}" for i in range(11))
    for key in expected:
        client.put_object(Bucket=bucket, Key=key, Body=key.encode())
    client.put_object(Bucket=bucket, Key="other/x", Body=b"x")
    assert s3_server.list_keys("s3://paging/many/", page_size=3) == expected
    assert s3_server.list_keys("s3://paging/many/") == expected
    assert s3_server.list_keys("s3://paging/") == expected + ["other/x"]


def test_put_if_absent_refuses_the_second_writer(s3_server):
    bucket = s3_server.make_bucket("conditional")
    client = s3_server.client()
    client.put_object(Bucket=bucket, Key="snapshot/snapshot-1", Body=b"first",
                      IfNoneMatch="*")
    with pytest.raises(client.exceptions.ClientError) as raised:
        client.put_object(Bucket=bucket, Key="snapshot/snapshot-1", Body=b"second",
                          IfNoneMatch="*")
    error = raised.value.response
    assert error["Error"]["Code"] == "PreconditionFailed"
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 412
    body = client.get_object(Bucket=bucket, Key="snapshot/snapshot-1")["Body"].read()
    assert body == b"first"
    # An unconditional put still replaces (what a rename-based commit silently does).
    client.put_object(Bucket=bucket, Key="snapshot/snapshot-1", Body=b"third")
    body = client.get_object(Bucket=bucket, Key="snapshot/snapshot-1")["Body"].read()
    assert body == b"third"
    # Another key is unaffected by the first one's condition.
    client.put_object(Bucket=bucket, Key="snapshot/snapshot-2", Body=b"x", IfNoneMatch="*")
    assert s3_server.list_keys("s3://conditional/snapshot/") == [
        "snapshot/snapshot-1", "snapshot/snapshot-2"]


@pytest.mark.oracle
def test_pypaimon_writes_and_reads_a_de_table_on_s3(s3_server, oracle):
    warehouse = s3_server.fresh_warehouse("pypaimon-round-trip")
    on_s3 = oracle.with_catalog_options(s3_server.catalog_options(warehouse))
    identifier = "db.t"
    on_s3.create_table(warehouse, identifier, SCHEMA, partition_keys=["p_str"],
                       options=dict(DE_OPTIONS))
    batches = [rows(0, 40, seed=1), rows(40, 25, seed=2)]
    assert on_s3.write(warehouse, identifier, batches[0]) == 1
    assert on_s3.write(warehouse, identifier, batches[1]) == 2

    expected = pa.concat_tables(batches)
    got = on_s3.read(warehouse, identifier)
    assert got.schema.names == SCHEMA.names
    assert got.sort_by("id").equals(expected.cast(got.schema).sort_by("id"))
    first = on_s3.read(warehouse, identifier, snapshot_id=1)
    assert first.sort_by("id").equals(batches[0].cast(first.schema).sort_by("id"))
    row_ids = on_s3.read(warehouse, identifier, projection=["id", "_ROW_ID"])
    assert sorted(row_ids.column("_ROW_ID").to_pylist()) == list(range(65))

    prefix = _table_prefix(warehouse, identifier)
    stored = _files(s3_server.list_keys(warehouse), prefix)
    assert "schema/schema-0" in stored
    assert {"snapshot/snapshot-1", "snapshot/snapshot-2"} <= set(stored)
    assert any(name.startswith("manifest/manifest-list-") for name in stored)
    assert any(name.startswith("manifest/manifest-") and "list" not in name for name in stored)
    data = [name for name in stored if name.endswith(".parquet")]
    assert {name.split("/", 1)[0] for name in data} == {"p_str=a", "p_str=b", "p_str=c"}
    # Nothing temporary (pypaimon writes snapshots as temp object + rename) survives.
    assert not [name for name in stored if "tmp" in name.lower() or name.startswith(".")]

    # Everything the latest snapshot reads is really stored.
    files = on_s3.files(warehouse, identifier)
    assert files["snapshot_id"] == 2
    for name in (files["base_manifest_list"], files["delta_manifest_list"],
                 *files["base_manifests"], *files["delta_manifests"]):
        assert f"manifest/{name}" in stored
    assert files["data_files"]
    for path in files["data_files"]:
        relative = path.split(prefix, 1)[1] if prefix in path else path
        assert relative in data


@pytest.mark.oracle
def test_de_table_on_s3_equals_the_same_steps_on_a_local_warehouse(s3_server, oracle,
                                                                     warehouse):
    """de_tables' steps (writes, updates by row id, tags) in one batch on S3 and locally."""
    s3_warehouse = s3_server.fresh_warehouse("de-steps")
    on_s3 = oracle.with_catalog_options(s3_server.s3_options())
    remote = build(on_s3, s3_warehouse, "db.t", ["p_str"])
    local = build(oracle, warehouse, "db.t", ["p_str"])
    assert remote.snapshots == local.snapshots and remote.tags == local.tags
    specs = [{}, {"tag": "t_after_write2"}, {"snapshot_id": remote.snapshots["update2"]},
             {"projection": ["id", "c_int", "_ROW_ID"]}]
    for spec, (s3_table, local_table) in zip(
            specs, zip(on_s3.read_many(s3_warehouse, "db.t", specs),
                       oracle.read_many(warehouse, "db.t", specs))):
        assert not isinstance(s3_table, OracleError), (spec, s3_table)
        assert not isinstance(local_table, OracleError), (spec, local_table)
        assert s3_table.sort_by("id").equals(local_table.sort_by("id")), spec
    assert on_s3.read(s3_warehouse, "db.t").num_rows == remote.num_rows == 120
    # The local and the S3 table hold the same set of metadata objects by kind.
    prefix = _table_prefix(s3_warehouse, "db.t")
    stored = _files(s3_server.list_keys(s3_warehouse), prefix)
    assert [n for n in stored if n.startswith("snapshot/snapshot-")] == sorted(
        f"snapshot/snapshot-{i}" for i in range(1, len(remote.snapshots) + 1))
    assert [n for n in stored if n.startswith("tag/")] == [
        "tag/tag-t_after_update2", "tag/tag-t_after_write2"]
    local_root = Path(warehouse) / "db.db" / "t"
    local_data = sorted(str(p.relative_to(local_root)).split("/", 1)[0]
                        for p in local_root.rglob("*.parquet"))
    s3_data = sorted(n.split("/", 1)[0] for n in stored if n.endswith(".parquet"))
    assert s3_data == local_data


@pytest.mark.oracle
def test_oracle_refuses_a_warehouse_conflict(oracle, warehouse, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    conflicting = oracle.with_catalog_options({"warehouse": str(other)})
    with pytest.raises(OracleError, match="catalog_options names warehouse"):
        conflicting.create_table(warehouse, "db.t", pa.schema([("id", pa.int64())]))
    assert not (Path(warehouse) / "db.db").exists() and not any(other.iterdir())
    # The original oracle is unchanged; closing a derived one keeps the shared scratch.
    conflicting.close()
    assert oracle.catalog_options == {}
    oracle.create_table(warehouse, "db.t", pa.schema([("id", pa.int64())]))
    assert (Path(warehouse) / "db.db" / "t" / "schema" / "schema-0").exists()


def test_standalone_script_serves_until_killed(tmp_path):
    script = subprocess.Popen([sys.executable, str(HERE / "s3_server.py"), "--bucket",
                               "standalone"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(HERE)})
    try:
        endpoint = script.stdout.readline().strip()
        assert endpoint.startswith("http://127.0.0.1:"), script.stderr.read()
        port = int(endpoint.rsplit(":", 1)[1])
        client = client_for(endpoint)
        assert "standalone" in {b["Name"] for b in client.list_buckets()["Buckets"]}
        client.close()
        script.send_signal(signal.SIGTERM)
        assert script.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if script.poll() is None:
            script.kill()
            script.wait()
    with pytest.raises(urllib.error.URLError):  # the moto child is gone with it
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
