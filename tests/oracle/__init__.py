"""Harness for the pypaimon oracle.

pypaimon 2.1.0 pins pyarrow<20 while we pin pyarrow 26, so it lives in its own virtualenv
(``$PAIMON_ROWID_ORACLE_VENV``, default ``.venv-oracle`` at the repository root, as
``scripts/setup.sh`` makes it) and is driven through ``driver.py`` subprocesses that share the
warehouse directory with the test process. Tables cross the process boundary as Arrow IPC
files; commands and results as JSON.
"""
from __future__ import annotations

import copy
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pyarrow as pa

from . import literals, merge_spec

__all__ = ["Oracle", "OracleError", "OracleUnavailable", "ensure_oracle", "default_venv",
           "PYPAIMON_VERSION", "literals", "merge_spec", "encode_filter", "build_predicate",
           "ensure_search_packages"]

PYPAIMON_VERSION = "2.1.0"
DRIVER = Path(__file__).resolve().with_name("driver.py")
_TIMEOUT_S = float(os.environ.get("PAIMON_ROWID_ORACLE_TIMEOUT", "600"))


class OracleError(RuntimeError):
    """pypaimon raised inside the driver; carries its exception type, message and traceback."""

    def __init__(self, error_type: str, message: str, tb: str) -> None:
        super().__init__(f"pypaimon {error_type}: {message}\n--- oracle traceback ---\n{tb}")
        self.error_type = error_type
        self.message = message
        self.traceback = tb


class OracleUnavailable(RuntimeError):
    """The oracle virtualenv is missing and could not be created."""


def default_venv() -> Path:
    configured = os.environ.get("PAIMON_ROWID_ORACLE_VENV")
    return Path(configured).expanduser() if configured else (
        Path(__file__).resolve().parents[2] / ".venv-oracle")


def _venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _installed_version(python: Path) -> Optional[str]:
    probe = ("import importlib.metadata as m, pypaimon, pyarrow; "
             "print(m.version('pypaimon'))")
    try:
        out = subprocess.run([str(python), "-c", probe], capture_output=True, text=True,
                             timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def ensure_oracle(venv: Optional[Path] = None) -> Oracle:
    """Returns an Oracle over ``venv``, creating the venv and installing pypaimon when it is
    missing (needs the package index once). Raises OracleUnavailable with the reason."""
    venv = Path(venv) if venv is not None else default_venv()
    python = _venv_python(venv)
    if python.exists() and _installed_version(python) == PYPAIMON_VERSION:
        return Oracle(python)
    steps = []
    if not python.exists():
        steps.append([sys.executable, "-m", "venv", str(venv)])
    pins = Path(__file__).resolve().parents[2] / "constraints-oracle.txt"
    steps.append([str(python), "-m", "pip", "install", "--quiet",
                  *(["-c", str(pins)] if pins.exists() else []),
                  f"pypaimon=={PYPAIMON_VERSION}"])
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=1800)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise OracleUnavailable(f"{' '.join(step)} failed: {error}") from error
        if done.returncode != 0:
            raise OracleUnavailable(f"{' '.join(step)} failed ({done.returncode}):\n"
                                    f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    version = _installed_version(python)
    if version != PYPAIMON_VERSION:
        raise OracleUnavailable(f"{python} has pypaimon {version!r}, want {PYPAIMON_VERSION}")
    return Oracle(python)


SEARCH_PACKAGES = ("paimon-vindex==0.5.0", "paimon-ftindex==0.1.0")


def ensure_search_packages(oracle: Oracle) -> None:
    """Installs paimon-vindex / paimon-ftindex (pypaimon's search extras, pinned in
    constraints-oracle.txt) into the oracle's venv when missing. Raises OracleUnavailable."""
    probe = [str(oracle.python), "-c", "import paimon_vindex, paimon_ftindex"]
    if subprocess.run(probe, capture_output=True).returncode == 0:
        return
    step = [str(oracle.python), "-m", "pip", "install", "--quiet", *SEARCH_PACKAGES]
    done = subprocess.run(step, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise OracleUnavailable(f"{' '.join(step)} failed:\n{done.stderr[-2000:]}")


def encode_filter(spec: Optional[list]) -> Optional[list]:
    """Filter spec with Python literals -> its JSON form (see driver.py)."""
    if spec is None:
        return None
    if spec[0] in ("and", "or"):
        return [spec[0], [encode_filter(child) for child in spec[1]]]
    return [spec[0], spec[1], literals.encode(list(spec[2]) if len(spec) > 2 else [])]


def build_predicate(builder, spec: Optional[list]):
    """Filter spec -> a predicate from ``builder`` (ours or pypaimon's: same method names)."""
    if spec is None:
        return None
    if spec[0] in ("and", "or"):
        children = [build_predicate(builder, child) for child in spec[1]]
        return (builder.and_predicates if spec[0] == "and" else builder.or_predicates)(children)
    return getattr(builder, spec[0])(spec[1], *(spec[2] if len(spec) > 2 else []))


def write_ipc(path: Path, table: pa.Table) -> None:
    with pa.OSFile(str(path), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)


def read_ipc(path: Path) -> pa.Table:
    with pa.OSFile(str(path), "rb") as source:
        return pa.ipc.open_file(source).read_all()


def _ask_once(python: Path, text: str) -> Dict[str, Any]:
    """One command in a driver process of its own."""
    try:
        done = subprocess.run([str(python), str(DRIVER), "-"], input=text,
                              capture_output=True, text=True, timeout=_TIMEOUT_S)
    except subprocess.TimeoutExpired as error:
        raise OracleError("Timeout", f"driver did not answer in {_TIMEOUT_S}s: {text}",
                          str(error.stderr)) from None
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise OracleError("DriverCrash", f"exit code {done.returncode}, no reply",
                          f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}"
                          ) from None


class _ServedDriver:
    """A ``driver.py --serve`` process kept across commands: pypaimon's import (about a second
    a command, hundreds of commands a suite) is paid once. Started on first use and again after
    a crash, a timeout, or a change of this process's environment or working directory (a
    driver sees the environment it was started with: tests set S3 keys there)."""

    _MARK = "\x1eoracle-reply "  # driver.REPLY_MARK

    def __init__(self, python: Path) -> None:
        self.python = python
        self._lock = threading.Lock()
        self._proc: Optional[subprocess.Popen] = None
        self._lines: queue.Queue[Optional[str]] = queue.Queue()
        self._stderr: Any = None
        self._started_with: Any = None

    def ask(self, text: str) -> Optional[Dict[str, Any]]:
        """The reply to one command, or None when another thread is using the driver."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return self._ask(text)
        finally:
            self._lock.release()

    def _ask(self, text: str) -> Dict[str, Any]:
        if self._started_with != (dict(os.environ), os.getcwd()):
            self._stop()
        if self._proc is None:
            self._start()
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(text + "\n")
            self._proc.stdin.flush()
        except OSError:
            pass  # it died: reported below as a crash
        deadline = time.monotonic() + _TIMEOUT_S
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                stderr = self._stop()
                raise OracleError("Timeout", f"driver did not answer in {_TIMEOUT_S}s: {text}",
                                  stderr) from None
            if line is None:
                code = self._proc.wait()
                stderr = self._stop()
                raise OracleError("DriverCrash", f"exit code {code}, no reply",
                                  f"stderr:\n{stderr}")
            if line.startswith(self._MARK):
                return json.loads(line[len(self._MARK):])

    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        self._lines = queue.Queue()
        self._started_with = (dict(os.environ), os.getcwd())
        self._proc = subprocess.Popen([str(self.python), str(DRIVER), "--serve"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr, text=True, bufsize=1)
        threading.Thread(target=self._pump, args=(self._proc.stdout, self._lines),
                         daemon=True).start()

    @staticmethod
    def _pump(stdout: Any, lines: queue.Queue[Optional[str]]) -> None:
        for line in stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def _stop(self) -> str:
        """Ends the driver (if any); returns the tail of its stderr."""
        proc, self._proc, self._started_with = self._proc, None, None
        if proc is None:
            return ""
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        self._stderr.seek(0)
        tail = self._stderr.read()[-4000:].decode("utf-8", "replace")
        self._stderr.close()
        return tail

    def close(self) -> None:
        with self._lock:
            self._stop()


class Oracle:
    """Runs pypaimon commands (see driver.py) in the oracle virtualenv: in one served driver
    process, or a driver of its own for a command sent while another thread's is running."""

    def __init__(self, python: Path) -> None:
        self.python = Path(python)
        self._scratch = Path(tempfile.mkdtemp(prefix="paimon-rowid-oracle-io-"))
        self._owns_scratch = True
        self.catalog_options: Dict[str, str] = {}
        # One served driver (pypaimon imported once) shared with the derived Oracles.
        self._served = _ServedDriver(self.python)

    def close(self) -> None:
        if self._owns_scratch:
            self._served.close()
            shutil.rmtree(self._scratch, ignore_errors=True)

    def with_catalog_options(self, options: Dict[str, str]) -> Oracle:
        """An Oracle whose every command also carries ``options`` as ``catalog_options``
        (the driver merges them into the catalog's options: an S3 endpoint and keys, say).
        It shares this one's interpreter and scratch directory (closing it is a no-op);
        ``options`` may hold ``warehouse``, which must then equal the commands' warehouse."""
        derived = copy.copy(self)
        derived._owns_scratch = False
        derived.catalog_options = {**self.catalog_options,
                                   **{str(k): str(v) for k, v in options.items()}}
        return derived

    def _path(self, suffix: str) -> Path:
        return self._scratch / f"{uuid.uuid4().hex}{suffix}"

    def run(self, cmd: Dict[str, Any]) -> Any:
        """Runs one command; returns its result or raises OracleError."""
        if self.catalog_options:
            cmd = {**cmd, "catalog_options": {**self.catalog_options,
                                              **(cmd.get("catalog_options") or {})}}
        text = json.dumps(cmd)
        reply = self._served.ask(text)
        if reply is None:  # the served driver is busy on another thread: a driver of its own
            reply = _ask_once(self.python, text)
        if not reply["ok"]:
            raise OracleError(reply["error_type"], reply["message"], reply["traceback"])
        return reply["result"]

    def run_batch(self, cmds: Sequence[Dict[str, Any]]) -> List[Any]:
        """Runs several commands in one driver process; returns each result, or the
        OracleError it raised (not raised here)."""
        replies = self.run({"cmd": "batch", "commands": list(cmds)})
        return [reply["result"] if reply["ok"] else
                OracleError(reply["error_type"], reply["message"], reply["traceback"])
                for reply in replies]

    def read_many(self, warehouse: str, identifier: str,
                  specs: Sequence[Dict[str, Any]]) -> List[Any]:
        """pypaimon reads of several specs (keyword arguments of :meth:`read`) in one
        process; each item is a pyarrow Table or the OracleError of that read."""
        cmds, outs = [], []
        for spec in specs:
            out = self._path(".arrow")
            outs.append(out)
            cmds.append(self._read_cmd(warehouse, identifier, out, **spec))
        results = []
        for out, result in zip(outs, self.run_batch(cmds)):
            results.append(result if isinstance(result, OracleError) else read_ipc(out))
            out.unlink(missing_ok=True)
        return results

    @staticmethod
    def _read_cmd(warehouse, identifier, out, projection=None, filter=None, row_ranges=None,
                  snapshot_id=None, tag=None, options=None, limit=None) -> Dict[str, Any]:
        ranges = None if row_ranges is None else [
            [r.from_, r.to] if hasattr(r, "from_") else list(r) for r in row_ranges]
        return {"cmd": "read", "warehouse": str(warehouse), "identifier": identifier,
                "out_ipc": str(out), "projection": projection, "filter": encode_filter(filter),
                "row_ranges": ranges, "snapshot_id": snapshot_id, "tag": tag,
                "options": options, "limit": limit}

    # -- command builders (for run / run_batch) -----------------------------------------------

    def create_table_cmd(self, warehouse: str, identifier: str, schema: pa.Schema, *,
                         partition_keys: Sequence[str] = (), primary_keys: Sequence[str] = (),
                         options: Optional[Dict[str, str]] = None,
                         ignore_if_exists: bool = False) -> Dict[str, Any]:
        path = self._path(".arrow")
        write_ipc(path, schema.empty_table())
        return {"cmd": "create_table", "warehouse": str(warehouse), "identifier": identifier,
                "schema_ipc": str(path), "partition_keys": list(partition_keys),
                "primary_keys": list(primary_keys), "options": dict(options or {}),
                "ignore_if_exists": ignore_if_exists}

    def write_cmd(self, warehouse: str, identifier: str, data: pa.Table,
                  overwrite: Any = False) -> Dict[str, Any]:
        """An append; with ``overwrite`` a dict (or None) the write is
        ``builder.overwrite(overwrite)`` and commits even an empty ``data``."""
        path = self._path(".arrow")
        write_ipc(path, data)
        cmd = {"cmd": "write", "warehouse": str(warehouse), "identifier": identifier,
               "data_ipc": str(path)}
        if overwrite is not False:
            cmd["overwrite"] = overwrite
        return cmd

    def update_cmd(self, warehouse: str, identifier: str, data: pa.Table,
                   columns: Sequence[str]) -> Dict[str, Any]:
        path = self._path(".arrow")
        write_ipc(path, data)
        return {"cmd": "update_by_row_id", "warehouse": str(warehouse),
                "identifier": identifier, "data_ipc": str(path), "columns": list(columns)}

    def delete_cmd(self, warehouse: str, identifier: str, row_ids: Sequence[int] = None, *,
                   filter: Optional[list] = None, by_predicate: bool = False,
                   messages_out: Optional[str] = None) -> Dict[str, Any]:
        """pypaimon's ``new_update().delete_by_row_id(row_ids)`` (or, with ``by_predicate``,
        ``delete_by_predicate(filter)``; filter None deletes every row), committed; with
        ``messages_out`` the messages are pickled there for :meth:`commit_messages_cmd`."""
        if by_predicate:
            return {"cmd": "delete_by_predicate", "warehouse": str(warehouse),
                    "identifier": identifier, "filter": encode_filter(filter),
                    "messages_out": messages_out}
        return {"cmd": "delete_by_row_id", "warehouse": str(warehouse),
                "identifier": identifier,
                "row_ids": [None if i is None else int(i) for i in row_ids],
                "messages_out": messages_out}

    def update_by_predicate_cmd(self, warehouse: str, identifier: str, filter: Optional[list],
                                assignments: Dict[str, Any]) -> Dict[str, Any]:
        """pypaimon's ``update_by_predicate``, committed (driver.py: assignment forms)."""
        return {"cmd": "update_by_predicate", "warehouse": str(warehouse),
                "identifier": identifier, "filter": encode_filter(filter),
                "assignments": assignments}

    def upsert_cmd(self, warehouse: str, identifier: str, data: pa.Table, keys: Sequence[str],
                   update_cols: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """pypaimon's ``upsert_by_arrow_with_key``, committed."""
        path = self._path(".arrow")
        write_ipc(path, data)
        return {"cmd": "upsert_by_key", "warehouse": str(warehouse), "identifier": identifier,
                "data_ipc": str(path), "keys": list(keys),
                "update_cols": list(update_cols) if update_cols else None}

    def merge_into_cmd(self, warehouse: str, identifier: str, source: Any, on,
                       when_matched: Sequence[dict] = (),
                       when_not_matched: Sequence[dict] = ()) -> Dict[str, Any]:
        """pypaimon's LOCAL ``new_update().merge_into(source, ...)``, committed. ``source``
        None merges the table into itself (the table object is the source),
        ``{"table": identifier}`` merges that table's object, a ``str`` is passed as is;
        clauses in merge_spec.py's JSON form."""
        cmd = {"cmd": "merge_into", "warehouse": str(warehouse), "identifier": identifier,
               "on": on if isinstance(on, (str, dict)) else list(on),
               "when_matched": list(when_matched), "when_not_matched": list(when_not_matched)}
        if source is None:
            cmd["source_self"] = True
        elif isinstance(source, str):
            cmd["source_str"] = source  # pypaimon's local call refuses it (a TypeError)
        elif isinstance(source, dict):
            cmd["source_table"] = source["table"]  # that table object
        else:
            path = self._path(".arrow")
            write_ipc(path, source)
            cmd["source_ipc"] = str(path)
        return cmd

    def commit_messages_cmd(self, warehouse: str, identifier: str,
                            messages_in: str) -> Dict[str, Any]:
        return {"cmd": "commit_messages", "warehouse": str(warehouse),
                "identifier": identifier, "messages_in": str(messages_in)}

    def index_manifest_cmd(self, warehouse: str, identifier: str,
                           snapshot_id: Optional[int] = None) -> Dict[str, Any]:
        """The snapshot's index manifest as pypaimon reads it (see driver.py)."""
        return {"cmd": "index_manifest", "warehouse": str(warehouse),
                "identifier": identifier, "snapshot_id": snapshot_id}

    def tag_cmd(self, warehouse: str, identifier: str, tag: str,
                snapshot_id: Optional[int] = None) -> Dict[str, Any]:
        return {"cmd": "create_tag", "warehouse": str(warehouse), "identifier": identifier,
                "tag": tag, "snapshot_id": snapshot_id}

    def tag_op_cmd(self, warehouse: str, identifier: str, op: str, **args: Any) -> Dict[str, Any]:
        """pypaimon's tag and rollback calls on a table (driver.py ``cmd_tag_op``)."""
        return {"cmd": "tag_op", "warehouse": str(warehouse), "identifier": identifier,
                "op": op, **args}

    def tag_op(self, warehouse: str, identifier: str, op: str, **args: Any) -> Any:
        return self.run(self.tag_op_cmd(warehouse, identifier, op, **args))

    def run_all(self, cmds: Sequence[Dict[str, Any]]) -> List[Any]:
        """Like run_batch, but raises the first OracleError."""
        results = self.run_batch(cmds)
        for result in results:
            if isinstance(result, OracleError):
                raise result
        return results

    # -- typed wrappers (one driver process each) ----------------------------------------------

    def create_table(self, warehouse: str, identifier: str, schema: pa.Schema, **kwargs) -> None:
        self.run(self.create_table_cmd(warehouse, identifier, schema, **kwargs))

    def write(self, warehouse: str, identifier: str, data: pa.Table,
              overwrite: Any = False) -> int:
        """Appends ``data`` as one commit (an overwrite: see write_cmd); returns the latest
        snapshot id."""
        return self.run(self.write_cmd(warehouse, identifier, data,
                                       overwrite))["snapshot_id"]

    def update_by_row_id(self, warehouse: str, identifier: str, data: pa.Table,
                         columns: Sequence[str]) -> int:
        """pypaimon's table-level partial-column update, one commit; returns the snapshot id."""
        return self.run(self.update_cmd(warehouse, identifier, data, columns))["snapshot_id"]

    def create_tag(self, warehouse: str, identifier: str, tag: str,
                   snapshot_id: Optional[int] = None) -> None:
        self.run(self.tag_cmd(warehouse, identifier, tag, snapshot_id))

    def read(self, warehouse: str, identifier: str, *, projection: Optional[List[str]] = None,
             filter: Optional[list] = None, row_ranges: Optional[Sequence] = None,
             snapshot_id: Optional[int] = None, tag: Optional[str] = None,
             options: Optional[Dict[str, str]] = None, limit: Optional[int] = None) -> pa.Table:
        """pypaimon's read of the table (filter spec: see driver.py)."""
        out = self._path(".arrow")
        self.run(self._read_cmd(warehouse, identifier, out, projection, filter, row_ranges,
                                snapshot_id, tag, options, limit))
        try:
            return read_ipc(out)
        finally:
            out.unlink(missing_ok=True)

    def snapshot(self, warehouse: str, identifier: str,
                 snapshot_id: Optional[int] = None) -> Optional[Dict[str, Any]]:
        return self.run({"cmd": "snapshot", "warehouse": str(warehouse),
                         "identifier": identifier, "snapshot_id": snapshot_id})

    def files(self, warehouse: str, identifier: str,
              snapshot_id: Optional[int] = None) -> Optional[Dict[str, Any]]:
        """Manifest lists, manifests and data files (table-relative) the snapshot reads."""
        return self.run({"cmd": "files", "warehouse": str(warehouse), "identifier": identifier,
                         "snapshot_id": snapshot_id})

    def schema(self, warehouse: str, identifier: str) -> Dict[str, Any]:
        return self.run({"cmd": "schema", "warehouse": str(warehouse),
                         "identifier": identifier})
