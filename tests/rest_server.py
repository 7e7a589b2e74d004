"""Java Paimon's own REST catalog test server (``org.apache.paimon.rest.RESTCatalogServer``,
from the ``paimon-core`` test jar) for tests: ``RestServer.start(data_dir)``.

The server (tests/java/rest/PaimonRestServer.java, compiled on first use) runs in a JVM child
process on a free localhost port, keeps databases and tables in memory and their files under
``data_dir``, and checks a bearer token. Its jars: Java Paimon's (tests/java, ``classpath()``)
plus ``org.apache.paimon:paimon-core:<version>:jar:tests`` and okhttp's ``mockwebserver``,
fetched once with Maven into the Java oracle's cache. ``catalog_options()`` spells the
connection for paimon_rowid and pypaimon alike (the same option names).

``RestServer.start(data_dir, s3=S3Warehouse(...))`` keeps the tables on an S3 warehouse
instead (Java's paimon-s3 with the server's own keys) and serves data tokens:
``set_data_token("db.t", expires_at_millis, {...})`` sets what the token endpoint answers for
the table (tests/java/rest/PaimonRestServer.java).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

from java import (
    JAVA_PAIMON_VERSION,
    JavaOracleError,
    _require_tool,
    cache_dir,
    classpath,
    fetch_artifacts,
)

SOURCE = Path(__file__).resolve().parent / "java" / "rest" / "PaimonRestServer.java"
ARTIFACTS = [f"org.apache.paimon:paimon-core:{JAVA_PAIMON_VERSION}:tests",
             "com.squareup.okhttp3:mockwebserver:4.12.0"]
S3_ARTIFACTS = [f"org.apache.paimon:paimon-s3:{JAVA_PAIMON_VERSION}"]
TOKEN = "paimon-rowid-test-token"
WAREHOUSE = "paimon_rowid_rest_wh"
_START_TIMEOUT_S = 120


def _classes(cp: str) -> Path:
    digest = hashlib.sha256(SOURCE.read_bytes() + JAVA_PAIMON_VERSION.encode()).hexdigest()[:16]
    classes = cache_dir() / f"rest-classes-{digest}"
    if (classes / "PaimonRestServer.class").exists():
        return classes
    staging = cache_dir() / f"rest-classes.tmp-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    done = subprocess.run([_require_tool("javac"), "-nowarn", "-cp", cp, "-d", str(staging),
                           str(SOURCE)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise JavaOracleError("CompileError", "javac PaimonRestServer failed",
                              done.stdout + done.stderr)
    try:
        staging.rename(classes)
    except OSError:  # a concurrent run won
        shutil.rmtree(staging, ignore_errors=True)
    return classes


class S3Warehouse(NamedTuple):
    """Where a token-serving server keeps its tables, and the server's own S3 keys."""

    uri: str
    endpoint: str
    access_key: str
    secret_key: str


class RestServer:
    """One running server. ``uri``, ``warehouse``, ``token``; ``stop()`` ends it."""

    def __init__(self, process: subprocess.Popen, uri: str, data_dir: str,
                 token: str = TOKEN) -> None:
        self.process = process
        self.uri = uri
        self.data_dir = data_dir
        self.warehouse = WAREHOUSE
        self.token = token

    @staticmethod
    def start(data_dir: str, s3: Optional[S3Warehouse] = None,
              token: str = TOKEN) -> RestServer:
        """Fetches and compiles once, then starts a server; raises JavaOracleUnavailable
        (no JDK / Maven Central) or JavaOracleError (it did not come up). With ``s3`` the
        tables live on that warehouse and the server's config enables data tokens. A
        ``token`` "dlf:<key id>:<secret>:<region>" makes the server check DLF signatures
        (Java's DLFDefaultSigner) instead of a bearer token."""
        jars = [str(j) for j in fetch_artifacts("rest-lib", ARTIFACTS)]
        cp = os.pathsep.join([classpath(), *jars])
        classes = _classes(cp)
        run_cp = f"{classes}{os.pathsep}{cp}"
        extra: List[str] = []
        if s3 is not None:
            s3_jars = [str(j) for j in fetch_artifacts("rest-s3-lib", S3_ARTIFACTS)]
            run_cp = os.pathsep.join([run_cp, *s3_jars])
            extra = [s3.uri, s3.endpoint, s3.access_key, s3.secret_key]
        process = subprocess.Popen(
            [_require_tool("java"), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx512m",
             "-Duser.timezone=UTC", "-cp", run_cp, "PaimonRestServer",
             data_dir, WAREHOUSE, token, *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1)
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("@@URL@@ "):
            process.kill()
            raise JavaOracleError("RestServerStart", f"no URL from the server: {line!r}", "")
        return RestServer(process, line.split(" ", 1)[1].strip().rstrip("/"), data_dir, token)

    def catalog_options(self, token: Optional[str] = None, **extra: str) -> Dict[str, str]:
        options = {"metastore": "rest", "uri": self.uri, "warehouse": self.warehouse,
                   "token.provider": "bear", "token": token or self.token}
        options.update(extra)
        return options

    def command(self, line: str) -> None:
        """Sends a PaimonRestServer command (e.g. ``no-permission-table db.t``)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if answer != "@@OK@@":
            raise JavaOracleError("RestServerCommand", f"{line}: {answer}", "")

    def set_data_token(self, identifier: str, expires_at_millis: int,
                       token: Dict[str, str]) -> None:
        """What the server's token endpoint answers for ``identifier`` from now on."""
        pairs = " ".join(f"{k}={v}" for k, v in token.items())
        self.command(f"set-data-token {identifier} {int(expires_at_millis)} {pairs}")

    def table_files(self, database: str, table: str) -> List[str]:
        """Every file under the table's directory, relative to it (sorted)."""
        root = Path(self.data_dir) / f"{database}.db" / table
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

    def stop(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
