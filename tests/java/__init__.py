"""Java Paimon as a second test oracle (issue 6). See docs/java-oracle.md.

``PaimonJavaOracle.java`` and the other ``.java`` files beside this file are compiled by the
test run with ``javac`` against Java Paimon's ``paimon-bundle`` plus Hadoop client jars and
``slf4j-nop``, all fetched once from Maven Central with ``mvn dependency:copy-dependencies``
(a throwaway pom) into ``$PAIMON_ROWID_JAVA_CACHE`` (default
``~/.cache/paimon-rowid-java/<version>/``). Later runs use the cache without Maven, and the
compiled classes are cached by source hash.

One JVM per :meth:`JavaOracle.run` call; batch many commands with ``run_batch`` / ``run_all``.
Rows cross the process boundary as JSON-lines files in the *neutral* encoding (see
:func:`arrow_to_neutral` and the Java file's header): both sides turn their values into the
same JSON form, so comparisons are exact (decimals as plain strings, timestamps as epoch
nanoseconds, binary as base64, NaN/Inf as strings, maps as [key, value] lists, rows as objects).

Availability: :func:`ensure_java_oracle` raises :class:`JavaOracleUnavailable` only when a tool
(java, javac, mvn) is missing or Maven Central cannot be reached; every other failure raises
:class:`JavaOracleError`. The test fixture skips on ``JavaOracleUnavailable`` unless ``CI`` is
set, in which case it fails.
"""
from __future__ import annotations

import base64
import decimal
import hashlib
import json
import math
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa

__all__ = ["JavaOracle", "JavaOracleError", "JavaOracleUnavailable", "ensure_java_oracle",
           "JAVA_PAIMON_VERSION", "arrow_to_neutral", "neutral_to_arrow", "cache_dir",
           "classpath", "fetch_artifacts"]

#: Java Paimon version. 1.4.2 is the newest paimon-bundle Maven Central serves to this project
#: (2.x and paimon-hadoop-uber are not served); override with PAIMON_ROWID_JAVA_PAIMON_VERSION.
JAVA_PAIMON_VERSION = os.environ.get("PAIMON_ROWID_JAVA_PAIMON_VERSION", "1.4.2")
#: Hadoop's shaded client jars stand in for paimon-hadoop-uber (Parquet needs hadoop-common and
#: mapreduce-client-core classes; hadoop-client-api has both, third-party deps shaded).
HADOOP_CLIENT_VERSION = "3.3.6"
SLF4J_NOP_VERSION = "1.7.36"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

# The harness: PaimonJavaOracle (main, dispatch, writes), OracleReads, NeutralCodec.
SOURCES = sorted(Path(__file__).resolve().parent.glob("*.java"))
MAIN_CLASS = "PaimonJavaOracle"
REPLY_PREFIX = "@@REPLY@@ "
_TIMEOUT_S = float(os.environ.get("PAIMON_ROWID_JAVA_TIMEOUT", "600"))
JVM_OPTIONS = [
    "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss4m", "-Xmx1g",
    "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Duser.timezone=UTC",
]

# Maven output that means "Central cannot be reached" (as opposed to a real resolution error).
_NETWORK_MARKERS = ("UnknownHostException", "Connection refused", "Connect to ", "timed out",
                    "Network is unreachable", "No route to host", "Could not transfer artifact",
                    "Temporary failure in name resolution", "SSLHandshakeException")


class JavaOracleError(RuntimeError):
    """Java Paimon raised inside the harness (exception class, message, Java stack trace), or
    the set-up failed for a reason other than an unreachable Maven Central."""

    def __init__(self, error_type: str, message: str, trace: str = "") -> None:
        super().__init__(f"Java Paimon {error_type}: {message}\n--- java trace ---\n{trace}")
        self.error_type = error_type
        self.message = message
        self.trace = trace


class JavaOracleUnavailable(RuntimeError):
    """A JDK tool or Maven is missing, or Maven Central cannot be reached."""


def cache_dir() -> Path:
    configured = os.environ.get("PAIMON_ROWID_JAVA_CACHE")
    base = Path(configured).expanduser() if configured else (
        Path.home() / ".cache" / "paimon-rowid-java")
    return base / JAVA_PAIMON_VERSION


def _pom() -> str:
    deps = [("org.apache.paimon", "paimon-bundle", JAVA_PAIMON_VERSION),
            ("org.apache.hadoop", "hadoop-client-api", HADOOP_CLIENT_VERSION),
            ("org.apache.hadoop", "hadoop-client-runtime", HADOOP_CLIENT_VERSION),
            ("org.slf4j", "slf4j-nop", SLF4J_NOP_VERSION)]
    body = "\n".join(f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
                     f"<version>{v}</version></dependency>" for g, a, v in deps)
    return ("<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n"
            "  <modelVersion>4.0.0</modelVersion>\n"
            "  <groupId>paimon-rowid.tests</groupId><artifactId>java-oracle-deps</artifactId>\n"
            "  <version>1</version><packaging>pom</packaging>\n"
            f"  <dependencies>\n{body}\n  </dependencies>\n</project>\n")


def _require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise JavaOracleUnavailable(f"{name} is not on PATH (need JDK 17 and Maven 3.8+)")
    return path


def _copy_dependencies(mvn: str, root: Path, lib: Path, flags: List[str]) -> None:
    """Runs Maven's copy-dependencies on ``root/pom.xml`` into a staging folder, then renames
    it to ``lib`` (so a failed or killed fetch never leaves a half-filled ``lib``)."""
    staging = root / f"lib.tmp-{uuid.uuid4().hex}"
    cmd = [mvn, "-B", "-q", *flags, "-f", str(root / "pom.xml"),
           f"{DEPENDENCY_PLUGIN}:copy-dependencies", f"-DoutputDirectory={staging}"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired as error:
        raise JavaOracleUnavailable(f"{' '.join(cmd)} timed out: {error}") from None
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        output = f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        if any(marker_text in output for marker_text in _NETWORK_MARKERS):
            raise JavaOracleUnavailable(f"Maven Central cannot be reached:\n{output}")
        raise JavaOracleError("MavenFailure", f"{' '.join(cmd)} failed ({done.returncode})",
                              output)
    if lib.exists():
        shutil.rmtree(lib)
    staging.rename(lib)


def _fetch_jars(root: Path) -> List[Path]:
    """The dependency jars, fetched once into ``root/lib`` (Maven runs only when missing)."""
    lib = root / "lib"
    marker = root / "classpath.txt"
    if marker.exists():
        jars = [Path(line) for line in marker.read_text().splitlines() if line.strip()]
        if jars and all(j.exists() for j in jars):
            return jars
    mvn = _require_tool("mvn")
    root.mkdir(parents=True, exist_ok=True)
    (root / "pom.xml").write_text(_pom())
    _copy_dependencies(mvn, root, lib, ["-U"])
    jars = sorted(lib.glob("*.jar"))
    if not any(j.name.startswith("paimon-bundle-") for j in jars):
        raise JavaOracleError("MavenFailure", f"no paimon-bundle jar in {lib}", "")
    marker.write_text("".join(f"{j}\n" for j in jars))
    return jars


def _compile(root: Path, classpath: str) -> Path:
    """Compiles the harness once per (source, version); returns the classes directory."""
    digest = hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in SOURCES)
                            + JAVA_PAIMON_VERSION.encode()).hexdigest()[:16]
    classes = root / f"classes-{digest}"
    if (classes / f"{MAIN_CLASS}.class").exists():
        return classes
    javac = _require_tool("javac")
    staging = root / f"classes.tmp-{uuid.uuid4().hex}"
    staging.mkdir(parents=True)
    cmd = [javac, "-nowarn", "-encoding", "UTF-8", "-cp", classpath, "-d", str(staging),
           *(str(p) for p in SOURCES)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise JavaOracleError("CompileError", f"javac failed ({done.returncode})",
                              done.stdout + done.stderr)
    try:
        staging.rename(classes)
    except OSError:  # a concurrent run won the race
        shutil.rmtree(staging, ignore_errors=True)
    return classes


def classpath() -> str:
    """Java Paimon's jars (paimon-bundle, Hadoop's client, slf4j-nop) as a class path, fetched
    once into the cache; for other Java programs of the tests (tests/rest_server.py)."""
    return os.pathsep.join(str(j) for j in _fetch_jars(cache_dir()))


def fetch_artifacts(name: str, artifacts: Sequence[str]) -> List[Path]:
    """Extra Maven artifacts ("group:artifact:version[:classifier]"), fetched once into
    ``cache_dir()/name`` with their dependencies, except for an artifact with a classifier
    (a test jar), which comes alone: its dependencies are paimon-bundle's. Raises
    JavaOracleUnavailable when Maven Central cannot be reached."""
    root = cache_dir() / name
    marker = root / "classpath.txt"
    if marker.exists():
        jars = [Path(line) for line in marker.read_text().splitlines() if line.strip()]
        if jars and all(j.exists() for j in jars):
            return jars
    mvn = _require_tool("mvn")
    root.mkdir(parents=True, exist_ok=True)
    deps = []
    for spec in artifacts:
        group, artifact, version, *classifier = spec.split(":")
        extra = (f"<classifier>{classifier[0]}</classifier><exclusions><exclusion><groupId>*"
                 "</groupId><artifactId>*</artifactId></exclusion></exclusions>"
                 if classifier else "")
        deps.append(f"    <dependency><groupId>{group}</groupId><artifactId>{artifact}"
                    f"</artifactId><version>{version}</version>{extra}</dependency>")
    (root / "pom.xml").write_text(
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n"
        "  <modelVersion>4.0.0</modelVersion>\n"
        f"  <groupId>paimon-rowid.tests</groupId><artifactId>{name}</artifactId>\n"
        "  <version>1</version><packaging>pom</packaging>\n"
        "  <dependencies>\n" + "\n".join(deps) + "\n  </dependencies>\n</project>\n")
    lib = root / "lib"
    _copy_dependencies(mvn, root, lib, [])
    jars = sorted(lib.glob("*.jar"))
    marker.write_text("".join(f"{j}\n" for j in jars))
    return jars


def ensure_java_oracle() -> JavaOracle:
    """Fetches (once, cached) and compiles the harness; see the module docstring."""
    java = _require_tool("java")
    root = cache_dir()
    jars = _fetch_jars(root)
    classpath = os.pathsep.join(str(j) for j in jars)
    classes = _compile(root, classpath)
    return JavaOracle(java, classes, classpath)


# ------------------------------------------------------------------------------------------
# the driver
# ------------------------------------------------------------------------------------------

class JavaOracle:
    """Runs harness commands in a JVM. Not thread-safe."""

    def __init__(self, java: str, classes: Path, classpath: str) -> None:
        self.java = java
        self.classpath = f"{classes}{os.pathsep}{classpath}"
        self._scratch = Path(tempfile.mkdtemp(prefix="paimon-rowid-java-io-"))
        self.jvm_runs = 0

    def close(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)

    def _path(self, suffix: str) -> Path:
        return self._scratch / f"{uuid.uuid4().hex}{suffix}"

    def run(self, cmd: Dict[str, Any]) -> Any:
        """Runs one command (``batch`` for many) in a new JVM; returns its result or raises
        JavaOracleError."""
        text = json.dumps(cmd)
        self.jvm_runs += 1
        try:
            done = subprocess.run([self.java, *JVM_OPTIONS, "-cp", self.classpath, MAIN_CLASS],
                                  input=text, capture_output=True, text=True,
                                  timeout=_TIMEOUT_S)
        except subprocess.TimeoutExpired as error:
            raise JavaOracleError("Timeout", f"no answer in {_TIMEOUT_S}s: {text[:2000]}",
                                  str(error.stderr)) from None
        replies = [line[len(REPLY_PREFIX):] for line in done.stdout.splitlines()
                   if line.startswith(REPLY_PREFIX)]
        if not replies:
            raise JavaOracleError("JvmCrash", f"exit code {done.returncode}, no reply",
                                  f"stdout:\n{done.stdout[-4000:]}\nstderr:\n"
                                  f"{done.stderr[-4000:]}")
        reply = json.loads(replies[-1])
        if not reply["ok"]:
            raise JavaOracleError(reply["error_type"], reply["message"], reply["traceback"])
        return reply["result"]

    def run_batch(self, cmds: Sequence[Dict[str, Any]]) -> List[Any]:
        """Runs several commands in one JVM; returns each result or its JavaOracleError."""
        replies = self.run({"cmd": "batch", "commands": list(cmds)})
        return [r["result"] if r["ok"] else
                JavaOracleError(r["error_type"], r["message"], r["traceback"])
                for r in replies]

    def run_all(self, cmds: Sequence[Dict[str, Any]]) -> List[Any]:
        """Like run_batch, but raises the first error."""
        results = self.run_batch(cmds)
        for result in results:
            if isinstance(result, JavaOracleError):
                raise result
        return results

    # -- command builders ----------------------------------------------------------------------

    @staticmethod
    def create_table_cmd(warehouse: str, identifier: str, fields: Sequence[Dict[str, Any]],
                         partition_keys: Sequence[str] = (),
                         options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """``fields``: [{"name", "type"}] with types in the schema-file JSON form."""
        return {"cmd": "create_table", "warehouse": str(warehouse), "identifier": identifier,
                "fields": list(fields), "partition_keys": list(partition_keys),
                "options": dict(options or {})}

    def _rows_file(self, rows: Sequence[Dict[str, Any]]) -> str:
        path = self._path(".jsonl")
        with open(path, "w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, allow_nan=False))
                out.write("\n")
        return str(path)

    def write_cmd(self, warehouse: str, identifier: str, rows: Sequence[Dict[str, Any]],
                  columns: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """An append of neutral-encoded rows (objects by column name) as one commit;
        ``columns`` makes it a partial-column append (TableWrite.withWriteType)."""
        return {"cmd": "write", "warehouse": str(warehouse), "identifier": identifier,
                "rows_file": self._rows_file(rows),
                "columns": None if columns is None else list(columns)}

    def update_cmd(self, warehouse: str, identifier: str, rows: Sequence[Dict[str, Any]],
                   columns: Sequence[str]) -> Dict[str, Any]:
        """A partial-column update by ``_ROW_ID`` (one new file per touched row-id group)."""
        return {"cmd": "update", "warehouse": str(warehouse), "identifier": identifier,
                "rows_file": self._rows_file(rows), "columns": list(columns)}

    @staticmethod
    def compact_cmd(warehouse: str, identifier: str, options: Optional[Dict[str, str]] = None,
                    compact_blob: bool = False) -> Dict[str, Any]:
        """Java's own data-evolution compaction (DataEvolutionCompactCoordinator plans,
        DataEvolutionCompactTask rewrites each task's files into one normal file), committed
        as one snapshot through BatchTableCommit. ``options`` are dynamic table options for
        planning and rewriting (e.g. ``compaction.min.file-num``). Result: ``snapshot_id``,
        ``commit_kind`` (of the latest snapshot) and ``tasks`` [{partition, blob_task, before,
        after}] (files: name, first_row_id, row_count, min/max sequence number, file_source);
        no commit when there are no tasks. ``compact_blob`` asks for ``.blob`` file tasks too,
        which Java 1.4.2 refuses (UnsupportedOperationException "Blob task is not
        supported")."""
        return {"cmd": "compact", "warehouse": str(warehouse), "identifier": identifier,
                "options": dict(options or {}), "compact_blob": bool(compact_blob)}

    @staticmethod
    def alter_cmd(warehouse: str, identifier: str, changes: Any,
                  ignore_if_not_exists: bool = False) -> Dict[str, Any]:
        """Java's ``Catalog.alterTable`` (SchemaManager's rules). ``changes``: our or
        pypaimon's ``SchemaChange`` objects, or their JSON form (``changes_json``). Result:
        ``{"schema_id"}`` of the latest schema."""
        if changes and not isinstance(changes[0], dict):
            from paimon_rowid.schema.schema_change import changes_json
            changes = changes_json(changes)
        return {"cmd": "alter", "warehouse": str(warehouse), "identifier": identifier,
                "changes": list(changes), "ignore_if_not_exists": bool(ignore_if_not_exists)}

    @staticmethod
    def tag_cmd(warehouse: str, identifier: str, tag: str,
                snapshot_id: Optional[int] = None) -> Dict[str, Any]:
        return {"cmd": "create_tag", "warehouse": str(warehouse), "identifier": identifier,
                "tag": tag, "snapshot_id": snapshot_id}

    @staticmethod
    def rollback_cmd(warehouse: str, identifier: str, target: Any) -> Dict[str, Any]:
        """Java's ``Table.rollbackTo(target)``: a snapshot id (int) or a tag name (str)."""
        return {"cmd": "rollback", "warehouse": str(warehouse), "identifier": identifier,
                "target": target}

    def dump_cmd(self, warehouse: str, identifier: str, projection=None, snapshot_id=None,
                 tag=None, row_ranges=None, options=None, filter=None) -> Dict[str, Any]:
        """A Java read; ``options`` are dynamic table options (``blob-as-descriptor`` makes
        BLOB values serialized BlobDescriptors); ``filter`` is one comparison
        ``[method, field, [neutral literal]]`` (pypaimon's method names) given to
        ``ReadBuilder.withFilter``, which prunes files by value stats (rows of kept files may
        still be returned unfiltered)."""
        return {"cmd": "dump", "warehouse": str(warehouse), "identifier": identifier,
                "out_file": str(self._path(".jsonl")), "projection": projection,
                "snapshot_id": snapshot_id, "tag": tag,
                "row_ranges": None if row_ranges is None else [list(r) for r in row_ranges],
                "options": dict(options) if options else None, "filter": filter}

    @staticmethod
    def files_cmd(warehouse: str, identifier: str, snapshot_id: Optional[int] = None,
                  stats: bool = False) -> Dict[str, Any]:
        """Live files; with ``stats`` each carries ``value_stats`` (cols, min, max in the
        neutral encoding, null_counts) as Java decodes them."""
        return {"cmd": "files", "warehouse": str(warehouse), "identifier": identifier,
                "snapshot_id": snapshot_id, "stats": stats}

    # -- reads -----------------------------------------------------------------------------------

    def dump_many(self, warehouse: str, identifier: str,
                  specs: Sequence[Dict[str, Any]]) -> List[Any]:
        """Java reads of several specs (keyword arguments of dump_cmd) in one JVM; each item is
        a :class:`Dump` or the JavaOracleError of that read."""
        cmds = [self.dump_cmd(warehouse, identifier, **spec) for spec in specs]
        return [result if isinstance(result, JavaOracleError) else _load_dump(cmd, result)
                for cmd, result in zip(cmds, self.run_batch(cmds))]

    def dump(self, warehouse: str, identifier: str, **spec) -> Dump:
        return self.dump_many(warehouse, identifier, [spec])[0]


class Dump:
    """A Java read: ``names``, ``types`` (Java SQL strings) and ``rows`` (lists of neutral
    values; sorted by _ROW_ID when it was projected)."""

    def __init__(self, fields: List[Dict[str, Any]], rows: List[List[Any]],
                 num_splits: int) -> None:
        self.fields = fields
        self.names = [f["name"] for f in fields]
        self.types = [f["type"] for f in fields]
        self.rows = rows
        self.num_splits = num_splits

    def column(self, name: str) -> List[Any]:
        index = self.names.index(name)
        return [row[index] for row in self.rows]

    def __repr__(self) -> str:
        return f"Dump({self.names}, {len(self.rows)} rows)"


def _load_dump(cmd: Dict[str, Any], result: Dict[str, Any]) -> Dump:
    path = Path(cmd["out_file"])
    try:
        with open(path, encoding="utf-8") as source:
            rows = [json.loads(line) for line in source if line.strip()]
    finally:
        path.unlink(missing_ok=True)
    return Dump(result["fields"], rows, result["num_splits"])


# ------------------------------------------------------------------------------------------
# neutral encoding of Arrow data (ours) — must match PaimonJavaOracle.encode
# ------------------------------------------------------------------------------------------

_NANOS = {"s": 10 ** 9, "ms": 10 ** 6, "us": 10 ** 3, "ns": 1}


def _raw_type(t: pa.DataType) -> pa.DataType:
    """``t`` with every date/time/timestamp replaced by its integer storage type."""
    if pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return pa.int32()
    if pa.types.is_map(t):
        return pa.map_(pa.field("key", _raw_type(t.key_type), nullable=False),
                       pa.field("value", _raw_type(t.item_type),
                                nullable=t.item_field.nullable))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        field = t.value_field
        return pa.list_(pa.field(field.name, _raw_type(field.type), nullable=field.nullable))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _raw_type(f.type), nullable=f.nullable)
                          for f in t])
    return t


def _encode_float(value: float):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _encode(value: Any, t: pa.DataType) -> Any:
    """One raw value (from ``array.cast(_raw_type(t)).to_pylist()``) -> neutral form."""
    if value is None:
        return None
    if pa.types.is_timestamp(t):
        return value * _NANOS[t.unit]
    if pa.types.is_floating(t):
        return _encode_float(value)
    if pa.types.is_decimal(t):
        return format(value, "f")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64encode(value).decode("ascii")
    if pa.types.is_map(t):
        return [[_encode(k, t.key_type), _encode(v, t.item_type)] for k, v in value]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_encode(v, t.value_type) for v in value]
    if pa.types.is_struct(t):
        return {f.name: _encode(value[f.name], f.type) for f in t}
    return value


def arrow_to_neutral(table: pa.Table) -> List[List[Any]]:
    """Rows of ``table`` as lists of neutral values (column order kept)."""
    columns = []
    for field, column in zip(table.schema, table.columns):
        raw = column.cast(_raw_type(field.type)).to_pylist()
        columns.append([_encode(v, field.type) for v in raw])
    return [list(row) for row in zip(*columns)] if columns else []


def _decode(value: Any, t: pa.DataType) -> Any:
    """Neutral value -> a raw Python value for ``pa.array(..., _raw_type(t))``."""
    if value is None:
        return None
    if pa.types.is_timestamp(t):
        scale = _NANOS[t.unit]
        if value % scale:
            raise ValueError(f"{value} ns is not representable in {t}")
        return value // scale
    if pa.types.is_floating(t):
        return float(value)
    if pa.types.is_decimal(t):
        return decimal.Decimal(value)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64decode(value)
    if pa.types.is_map(t):
        return [(_decode(k, t.key_type), _decode(v, t.item_type)) for k, v in value]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_decode(v, t.value_type) for v in value]
    if pa.types.is_struct(t):
        return {f.name: _decode(value.get(f.name), f.type) for f in t}
    return value


def neutral_to_arrow(rows: Sequence[Dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Neutral rows (objects by column name) -> an Arrow table of ``schema``."""
    arrays = []
    for field in schema:
        raw = [_decode(row.get(field.name), field.type) for row in rows]
        arrays.append(pa.array(raw, type=_raw_type(field.type)).cast(field.type))
    return pa.Table.from_arrays(arrays, schema=schema)
