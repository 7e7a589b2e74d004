"""Java Paimon's own REST catalog test server (``org.apache.paimon.rest.RESTCatalogServer``,
from the ``paimon-core`` test jar) for tests: ``RestServer.start(data_dir)``.

The server (tests/java/rest/PaimonRestServer.java, compiled on first use) runs in a JVM child
process on a free localhost port, keeps databases and tables in memory and their files under
``data_dir``, and checks a bearer token. Its jars: Java Paimon's (tests/java, ``classpath()``)
plus ``org.apache.paimon:paimon-core:<version>:jar:tests`` and okhttp's ``mockwebserver``,
fetched once with Maven into the Java oracle's cache. ``catalog_options()`` spells the
connection for paimon_rowid and pypaimon alike (the same option names).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Dict, List, Optional

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


class RestServer:
    """One running server. ``uri``, ``warehouse``, ``token``; ``stop()`` ends it."""

    def __init__(self, process: subprocess.Popen, uri: str, data_dir: str) -> None:
        self.process = process
        self.uri = uri
        self.data_dir = data_dir
        self.warehouse = WAREHOUSE
        self.token = TOKEN

    @staticmethod
    def start(data_dir: str) -> RestServer:
        """Fetches and compiles once, then starts a server; raises JavaOracleUnavailable
        (no JDK / Maven Central) or JavaOracleError (it did not come up)."""
        jars = [str(j) for j in fetch_artifacts("rest-lib", ARTIFACTS)]
        cp = os.pathsep.join([classpath(), *jars])
        classes = _classes(cp)
        process = subprocess.Popen(
            [_require_tool("java"), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx512m",
             "-Duser.timezone=UTC", "-cp", f"{classes}{os.pathsep}{cp}", "PaimonRestServer",
             data_dir, WAREHOUSE, TOKEN],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1)
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.startswith("@@URL@@ "):
            process.kill()
            raise JavaOracleError("RestServerStart", f"no URL from the server: {line!r}", "")
        return RestServer(process, line.split(" ", 1)[1].strip().rstrip("/"), data_dir)

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
