"""The counting S3 proxy of tests/s3_proxy.py in front of the local moto server: exact counts
for a few boto3 calls, the cross-process control endpoint, and the conditional-PUT strip."""
from __future__ import annotations

import uuid

import pytest

from s3_proxy import S3Proxy, remote_counts, remote_reset, request_kind
from s3_server import client_for

pytestmark = pytest.mark.s3


@pytest.fixture
def proxy(s3_server):
    with S3Proxy.start(s3_server.endpoint, record=True) as running:
        yield running


def test_request_kind():
    assert request_kind("GET", "/b/some/key") == "GET"
    assert request_kind("GET", "/b?list-type=2&prefix=x") == "LIST"
    assert request_kind("GET", "/b/") == "LIST"
    assert request_kind("HEAD", "/b/k") == "HEAD"
    assert request_kind("PUT", "/b/k") == "PUT"
    assert request_kind("PROPFIND", "/b/k") == "OTHER"


def test_counts_are_exact(s3_server, proxy):
    bucket = s3_server.make_bucket("proxy-counts")
    client = client_for(proxy.endpoint)
    key = f"k-{uuid.uuid4().hex}"
    body = b"x" * 1000
    proxy.reset()
    client.put_object(Bucket=bucket, Key=key, Body=body)
    assert client.head_object(Bucket=bucket, Key=key)["ContentLength"] == 1000
    got = client.get_object(Bucket=bucket, Key=key, Range="bytes=10-109")["Body"].read()
    assert got == body[10:110]
    listed = client.list_objects_v2(Bucket=bucket, Prefix=key)
    assert [o["Key"] for o in listed["Contents"]] == [key]
    client.delete_object(Bucket=bucket, Key=key)
    counts = proxy.counts()
    assert {k: counts[k] for k in ("PUT", "HEAD", "GET", "LIST", "DELETE", "POST", "OTHER")} == {
        "PUT": 1, "HEAD": 1, "GET": 1, "LIST": 1, "DELETE": 1, "POST": 0, "OTHER": 0}
    assert counts["requests"] == 5
    assert counts["get_bytes"] == 100
    # boto3 may wrap the PUT body (aws-chunked with a checksum trailer): at least the payload.
    assert counts["request_bytes"] >= 1000
    assert counts["response_bytes"] >= 100
    ranges = [r["range"] for r in proxy.requests() if r["kind"] == "GET"]
    assert ranges == ["bytes=10-109"]
    # The same figures through the control endpoint (what a worker process uses).
    assert remote_counts(proxy.endpoint) == counts
    remote_reset(proxy.endpoint)
    assert proxy.counts()["requests"] == 0


def test_strip_conditional(s3_server):
    bucket = s3_server.make_bucket("proxy-strip")
    key = f"k-{uuid.uuid4().hex}"
    with S3Proxy.start(s3_server.endpoint) as honest:
        client = client_for(honest.endpoint)
        client.put_object(Bucket=bucket, Key=key, Body=b"first", IfNoneMatch="*")
        with pytest.raises(client.exceptions.ClientError) as refused:
            client.put_object(Bucket=bucket, Key=key, Body=b"second", IfNoneMatch="*")
        assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    with S3Proxy.start(s3_server.endpoint, strip_conditional=True) as lying:
        client = client_for(lying.endpoint)
        client.put_object(Bucket=bucket, Key=key, Body=b"second", IfNoneMatch="*")
        assert client.get_object(Bucket=bucket, Key=key)["Body"].read() == b"second"
        assert lying.counts()["PUT"] == 1
