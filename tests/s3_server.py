"""A real local S3-compatible server for tests and benches: moto in server mode.

``S3Server.start()`` runs ``python -m moto.server`` (this interpreter, a free port on
127.0.0.1) as a child process, waits until it answers HTTP, and ``stop()`` ends it (SIGTERM,
then SIGKILL if it does not exit in time). Every object lives in that process's memory, so a
server starts empty and forgets everything when it stops.

Buckets are made on demand (``make_bucket``); ``fresh_warehouse`` gives a warehouse URI under a
unique prefix, so tests sharing one server never see each other's objects. ``catalog_options``
and ``java_catalog_options`` spell the connection for pypaimon / paimon-rowid and for Java
Paimon; ``list_keys`` lists what is really stored (to check that nothing was left behind).

Standalone, for benches: ``python tests/s3_server.py [--port N]`` prints the endpoint on its
first stdout line and serves until it is killed (SIGINT / SIGTERM stop the server too).

Needs the ``test`` extra (``moto[server]`` and ``boto3``).
"""
from __future__ import annotations

import atexit
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Dict, List, Optional, Tuple

ACCESS_KEY = "testing"
SECRET_KEY = "testing"
REGION = "us-east-1"
DEFAULT_BUCKET = "paimon-rowid-tests"

_START_TIMEOUT_S = float(os.environ.get("PAIMON_ROWID_S3_START_TIMEOUT", "60"))


# Probes go straight to the loopback server, whatever http_proxy says.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class S3ServerUnavailable(RuntimeError):
    """moto's server could not be started (not installed, or it did not come up)."""


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def split_uri(uri: str) -> Tuple[str, str]:
    """``s3://bucket/some/key`` -> ("bucket", "some/key")."""
    match = re.fullmatch(r"s3a?://([^/]+)/?(.*)", uri)
    if match is None:
        raise ValueError(f"not an s3:// URI: {uri!r}")
    return match.group(1), match.group(2)


def client_for(endpoint: str) -> Any:
    """A boto3 S3 client of the server at ``endpoint`` (path-style, the test credentials)."""
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3", endpoint_url=endpoint, aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY, region_name=REGION,
        config=Config(s3={"addressing_style": "path"},
                      retries={"max_attempts": 3, "mode": "standard"}))


class S3Server:
    """One running moto server. Use ``S3Server.start()`` (or ``with S3Server.start() as s3``)."""

    def __init__(self, process: subprocess.Popen, host: str, port: int, log_path: str) -> None:
        self.process = process
        self.host = host
        self.port = port
        self.endpoint = f"http://{host}:{port}"
        self.log_path = log_path
        self._buckets: set = set()
        self._client: Any = None
        atexit.register(self.stop)

    # -- lifecycle -----------------------------------------------------------------------------

    @classmethod
    def start(cls, host: str = "127.0.0.1", port: Optional[int] = None,
              timeout: float = _START_TIMEOUT_S) -> S3Server:
        """Starts a server and returns it once it answers; raises S3ServerUnavailable."""
        for module in ("moto.server", "flask", "boto3"):
            try:
                found = importlib.util.find_spec(module) is not None
            except ImportError:  # the parent package itself is missing
                found = False
            if not found:
                raise S3ServerUnavailable(
                    f"{module} is not importable by {sys.executable}: install the test extra "
                    "(pip install -e '.[test]', i.e. moto[server] and boto3)")
        attempts = 1 if port is not None else 3  # a probed free port can be taken meanwhile
        last_error = ""
        for _ in range(attempts):
            chosen = port if port is not None else _free_port(host)
            log = tempfile.NamedTemporaryFile(prefix="paimon-rowid-moto-", suffix=".log",
                                              delete=False)
            env = dict(os.environ)
            env.setdefault("PYTHONUNBUFFERED", "1")
            process = subprocess.Popen(
                [sys.executable, "-m", "moto.server", "-H", host, "-p", str(chosen)],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
            log.close()
            server = cls(process, host, chosen, log.name)
            try:
                server._wait_until_up(timeout)
                return server
            except S3ServerUnavailable as error:
                last_error = str(error)
                server.stop()
        raise S3ServerUnavailable(last_error)

    def _wait_until_up(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise S3ServerUnavailable(
                    f"moto.server exited with code {self.process.returncode} before answering "
                    f"on {self.endpoint}:\n{self.log_tail()}")
            try:
                # Any HTTP answer (even an error status) means the server is serving.
                with _DIRECT.open(self.endpoint + "/", timeout=2):
                    return
            except urllib.error.HTTPError:
                return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise S3ServerUnavailable(
                    f"moto.server did not answer on {self.endpoint} within {timeout:.0f}s:\n"
                    f"{self.log_tail()}")
            time.sleep(0.1)

    def log_tail(self, limit: int = 4000) -> str:
        try:
            with open(self.log_path, errors="replace") as log:
                return log.read()[-limit:]
        except OSError:
            return "(no server log)"

    def stop(self, timeout: float = 10) -> None:
        """Stops the server (idempotent): SIGTERM, wait, SIGKILL if it did not exit."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout)
        if self._client is not None:
            self._client.close()
            self._client = None
        try:
            os.unlink(self.log_path)
        except OSError:
            pass
        atexit.unregister(self.stop)

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def __enter__(self) -> S3Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- client side ---------------------------------------------------------------------------

    def client(self) -> Any:
        """A boto3 S3 client for this server (path-style addressing, the test credentials)."""
        if self._client is None:
            self._client = client_for(self.endpoint)
        return self._client

    def make_bucket(self, name: str) -> str:
        """Creates bucket ``name`` unless it exists already; returns the name."""
        if name in self._buckets:
            return name
        client = self.client()
        try:
            client.create_bucket(Bucket=name)
        except client.exceptions.BucketAlreadyOwnedByYou:
            pass
        self._buckets.add(name)
        return name

    def fresh_warehouse(self, name: str = "warehouse", bucket: str = DEFAULT_BUCKET) -> str:
        """``s3://<bucket>/<name>-<unique>/warehouse``, the bucket created if needed; nothing
        is stored under it yet."""
        self.make_bucket(bucket)
        label = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:60] or "warehouse"
        return f"s3://{bucket}/{label}-{uuid.uuid4().hex[:12]}/warehouse"

    def list_keys(self, location: str, bucket: Optional[str] = None,
                  page_size: Optional[int] = None) -> List[str]:
        """Every key under ``location`` (an ``s3://bucket/prefix`` URI, or a bare prefix of
        ``bucket``), sorted, all pages (of ``page_size`` keys; default the server's 1000).
        Keys are bucket-relative."""
        if location.startswith(("s3://", "s3a://")):
            bucket, prefix = split_uri(location)
        else:
            prefix = location
        if bucket is None:
            raise ValueError("list_keys needs an s3:// URI or a bucket")
        keys: List[str] = []
        paging = {} if page_size is None else {"PageSize": page_size}
        pages = self.client().get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=prefix, PaginationConfig=paging)
        for page in pages:
            keys.extend(item["Key"] for item in page.get("Contents", []))
        return sorted(keys)

    # -- catalog options -----------------------------------------------------------------------

    def s3_options(self) -> Dict[str, str]:
        """The connection options with pypaimon's names (which paimon-rowid uses too).
        Path-style addressing is required: pypaimon (pyarrow >= 16) forces virtual-hosted
        requests (``bucket.127.0.0.1``) unless ``s3.path.style.access`` is true."""
        return {"fs.s3.endpoint": self.endpoint, "fs.s3.accessKeyId": ACCESS_KEY,
                "fs.s3.accessKeySecret": SECRET_KEY, "fs.s3.region": REGION,
                "s3.path.style.access": "true"}

    def catalog_options(self, warehouse_uri: str) -> Dict[str, str]:
        """Catalog options of a warehouse on this server, pypaimon's names."""
        return {"warehouse": warehouse_uri, **self.s3_options()}

    def java_catalog_options(self, warehouse_uri: str) -> Dict[str, str]:
        """Catalog options of a warehouse on this server, Java Paimon's names (paimon-s3)."""
        return {"warehouse": warehouse_uri, "s3.endpoint": self.endpoint,
                "s3.access-key": ACCESS_KEY, "s3.secret-key": SECRET_KEY,
                "s3.path.style.access": "true"}


def main(argv: List[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Serve a local S3 (moto) until killed.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=None, help="default: a free port")
    parser.add_argument("--bucket", action="append", default=[],
                        help="create this bucket at start (repeatable)")
    args = parser.parse_args(argv)
    try:
        server = S3Server.start(args.host, args.port)
    except S3ServerUnavailable as error:
        print(f"s3_server: {error}", file=sys.stderr)
        return 1

    stop_signals: List[int] = []

    def _request_stop(signum, _frame):
        # Only records the signal: Popen.wait() must not run inside a handler that may have
        # interrupted another wait() on the same process (it would block on its lock).
        stop_signals.append(signum)

    signal.signal(signal.SIGTERM, _request_stop)
    signal.signal(signal.SIGINT, _request_stop)
    for bucket in args.bucket:
        server.make_bucket(bucket)
    print(server.endpoint, flush=True)
    while server.running and not stop_signals:
        time.sleep(0.2)
    if stop_signals:
        server.stop()
        return 128 + stop_signals[0]
    print(f"s3_server: moto.server exited with code {server.process.returncode}:\n"
          f"{server.log_tail()}", file=sys.stderr)
    server.stop()
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
