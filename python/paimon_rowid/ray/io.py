"""``read_paimon`` / ``write_paimon``: whole-table Ray Data reads and writes.

``read_paimon`` plans on the driver (one manifest read) and reads through
``TableRead.to_ray`` (read tasks stream planned splits through the native reader).

``write_paimon`` writes through a Ray Data ``Datasink``: each write task runs the native
append writer over its blocks and returns serialized commit messages; the driver commits them
once, as one snapshot. Exactly-once cleanup: every task registers its messages with a small
tracking actor *before* returning, so when anything fails (a source task, a write task, the
job being cancelled) the driver closes the tracker and deletes every file any task wrote;
tasks that finish after that find the tracker closed and delete their own files; a task that
fails deletes its own files. A failed commit deletes its files itself, and the driver then
deletes nothing (a commit can succeed even though its caller saw an error).

Same signatures, validations and exception types as ``pypaimon.ray.read_paimon`` /
``write_paimon``, except: ``overwrite=True`` is NotImplementedError (no overwrite commit yet)
and projections must be lists of column names (no expression mappings).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Mapping, Optional, Sequence

from .._internal._ray_door import WRITE_DATASET, register
from ..catalog.catalog import CatalogFactory
from ..jobs._backfill_core import _positive_int
from ..schema import DataType
from ..table._partition_spec import overwrite_arguments
from ..table.blob import blob_files
from ..table.write import BatchTableCommit, CommitMessage
from . import _task_hooks
from ._job_files import new_job_id, with_file_stem
from ._runtime import innermost, require_ray
from ._task_hooks import TaskHooks
from .blobs import (
    ARRAY_BLOB_COLUMNS_ATTR,
    BLOB_COLUMNS_ATTR,
    BLOB_FILES_ATTR,
    MAP_BLOB_COLUMNS_ATTR,
)

__all__ = ["read_paimon", "write_paimon", "PaimonWriteResult"]

#: pypaimon's time-travel keys (mutually exclusive).
_TIME_TRAVEL_KEYS = ("scan.version", "scan.snapshot-id", "scan.tag-name", "scan.watermark",
                     "scan.timestamp", "scan.timestamp-millis")
_PRECLUSTER_MODES = ("auto", "map_groups", "off")


def _ray_data():
    require_ray()
    import ray.data
    return ray.data


def _load_table(table_identifier: str, catalog_options: Dict[str, Any]):
    return CatalogFactory.create(catalog_options).get_table(table_identifier)


def _is_true(value: Any) -> bool:
    return value is not None and str(value).strip().lower() == "true"


# ---------------------------------------------------------------------------- read

def read_paimon(table_identifier: str, catalog_options: Dict[str, str], *, filter: Any = None,
                projection: Optional[Sequence[str]] = None, limit: Optional[int] = None,
                snapshot_id: Optional[int] = None, tag_name: Optional[str] = None,
                dynamic_options: Optional[Dict[str, str]] = None,
                ray_remote_args: Optional[Dict[str, Any]] = None,
                concurrency: Optional[int] = None, override_num_blocks: Optional[int] = None,
                **read_args: Any) -> Any:
    """A lazy ``ray.data.Dataset`` of the table's rows (or of ``snapshot_id`` / ``tag_name``).

    ``filter`` is a ``paimon_rowid`` Predicate, ``projection`` a list of column names
    (``_ROW_ID`` / ``_SEQUENCE_NUMBER`` appear only when projected; unknown names are
    dropped, as in ``with_projection``), ``limit`` caps the total row count, and
    ``dynamic_options`` overlay the table options (e.g. ``{'blob-as-descriptor': 'true'}``;
    the result is then tagged with its BLOB columns for ``map_with_blobs``). The remaining
    arguments go to ``ray.data.read_datasource``; ``override_num_blocks`` defaults to the number
    of splits (one read task and one block per split: Ray's own default cut each task's output
    into many blocks, ~9x slower warm on 1M rows). Planning (one manifest read) happens here;
    a plan without splits gives a typed empty Dataset.

    ValueError: both ``snapshot_id`` and ``tag_name``; ``override_num_blocks`` < 1; an empty
    identifier or None ``catalog_options``; a time-travel key in ``dynamic_options`` together
    with ``snapshot_id`` / ``tag_name``, or several of them."""
    _ray_data()
    if snapshot_id is not None and tag_name is not None:
        raise ValueError("snapshot_id and tag_name cannot be set at the same time")
    if override_num_blocks is not None and override_num_blocks < 1:
        raise ValueError(f"override_num_blocks must be at least 1, got {override_num_blocks}")
    if not table_identifier:
        raise ValueError("table_identifier is required")
    if catalog_options is None:
        raise ValueError("catalog_options is required")
    if dynamic_options:
        travel = sorted(set(_TIME_TRAVEL_KEYS) & set(dynamic_options))
        if travel and (snapshot_id is not None or tag_name is not None):
            raise ValueError("snapshot_id/tag_name and dynamic_options time-travel keys cannot "
                             f"be set at the same time, got: {', '.join(travel)}")
        if len(travel) > 1:
            raise ValueError("dynamic_options contains multiple time-travel keys which are "
                             f"mutually exclusive: {', '.join(travel)}")
    if projection is not None and isinstance(projection, dict):
        raise NotImplementedError("read_paimon supports a list of column names as projection; "
                                  "expression mappings are not supported")

    table = _load_table(table_identifier, catalog_options)
    options: Dict[str, Any] = {}
    if snapshot_id is not None:
        options["scan.snapshot-id"] = str(snapshot_id)
    if tag_name is not None:
        options["scan.tag-name"] = tag_name
    options.update(dynamic_options or {})
    if options:
        table = table.copy(options)
    builder = table.new_read_builder()
    if filter is not None:
        builder.with_filter(filter)
    if projection is not None:
        builder.with_projection(list(projection))
    if limit is not None:
        builder.with_limit(limit)
    splits = builder.new_scan().plan().splits()
    read = builder.new_read()
    ds = read.to_ray(splits, ray_remote_args=ray_remote_args, concurrency=concurrency,
                     override_num_blocks=override_num_blocks, **read_args)
    if _is_true(table.options.get("blob-as-descriptor")):
        kinds = {f.name: _blob_kind(f.type) for f in builder.read_type()}
        blob_columns = [name for name, kind in kinds.items() if kind is not None]
        if blob_columns:
            setattr(ds, BLOB_COLUMNS_ATTR, blob_columns)
            setattr(ds, ARRAY_BLOB_COLUMNS_ATTR,
                    [name for name, kind in kinds.items() if kind == "ARRAY"])
            setattr(ds, MAP_BLOB_COLUMNS_ATTR,
                    [name for name, kind in kinds.items() if kind == "MAP"])
            # map_with_blobs reads the payloads through the table's FileIO (an object
            # store's keys, a REST table's refreshing data token) on whichever node its
            # tasks run.
            setattr(ds, BLOB_FILES_ATTR, blob_files(table))
    return ds


def _blob_kind(data_type) -> Optional[str]:
    """"BLOB", "ARRAY" (ARRAY<BLOB>) or "MAP" (MAP<K, BLOB>) for columns kept in .blob
    files; None otherwise."""
    root = data_type.root
    if root == "BLOB":
        return "BLOB"
    form = data_type.json
    if isinstance(form, dict):
        if root == "ARRAY" and DataType(form["element"]).root == "BLOB":
            return "ARRAY"
        if root == "MAP" and DataType(form["value"]).root == "BLOB":
            return "MAP"
    return None


# ---------------------------------------------------------------------------- write

@dataclasses.dataclass(frozen=True)
class PaimonWriteResult:
    """What ``write_paimon`` committed: the rows written and the new snapshot's id."""

    row_count: int
    snapshot_id: int


class _MessageTracker:
    """Ray actor: the commit messages every write task produced, until the job ends. Once
    closed (the job failed), registrations are refused so late tasks delete their files."""

    def __init__(self) -> None:
        self._messages: List[bytes] = []
        self._closed = False

    def add(self, messages: List[bytes]) -> bool:
        if self._closed:
            return False
        self._messages.extend(messages)
        return True

    def close(self) -> List[bytes]:
        self._closed = True
        messages, self._messages = self._messages, []
        return messages


_TRACKER_ACTOR = None  # the Ray actor class of _MessageTracker, made on first use


def _abort(table, serialized: Sequence[bytes]) -> None:
    messages = [CommitMessage.from_bytes(m) for m in serialized]
    if messages:
        table.new_batch_write_builder().new_commit().abort(messages)


def _write_blocks(table, tracker, blocks, stem: str, hooks: Optional[TaskHooks]) -> Dict[str, Any]:
    """Worker side: one native append writer over the task's blocks, its files named from
    ``stem`` (the job id and the task's index: a re-run of the task after its worker died
    writes the same names over the dead attempt's files). ``hooks``: the test seams
    (ray/_task_hooks.py)."""
    import ray
    from ray.data.block import BlockAccessor
    write = with_file_stem(table, stem).new_batch_write_builder().new_write()
    rows = 0
    try:
        for block in blocks:
            data = BlockAccessor.for_block(block).to_arrow()
            if data.num_rows == 0:
                continue
            rows += data.num_rows
            write.write_arrow(data)
        messages = write.prepare_commit() if rows else []
    except BaseException:
        write.abort()
        write.close()
        raise
    serialized = [m.to_bytes() for m in messages if not m.is_empty()]
    _task_hooks.after_write(hooks)
    try:
        accepted = not serialized or ray.get(tracker.add.remote(serialized))
    except BaseException:
        write.abort()
        write.close()
        raise
    if not accepted:
        write.abort()
        write.close()
        raise RuntimeError("write_paimon was aborted; this task's files were deleted")
    write.close()
    return {"messages": serialized, "rows": rows}


def _make_datasink(table, tracker, job_id: str, hooks: Optional[TaskHooks],
                   overwrite: Optional[Dict[str, Any]]):
    from ray.data import Datasink

    class PaimonRowIdDatasink(Datasink):
        """Writes blocks with the native append writer; the driver commits once."""

        def __init__(self) -> None:
            self.table = table
            self.tracker = tracker
            self.job_id = job_id
            self.hooks = hooks
            self.result: Optional[PaimonWriteResult] = None
            self.commit_started = False

        def __getstate__(self) -> Dict[str, Any]:
            return {"table": self.table, "tracker": self.tracker, "job_id": self.job_id,
                    "hooks": self.hooks}

        def __setstate__(self, state: Dict[str, Any]) -> None:
            self.__dict__.update(state)
            self.result = None
            self.commit_started = True  # workers never commit or abort the job

        def get_name(self) -> str:
            return "PaimonRowId"

        def write(self, blocks, ctx) -> Dict[str, Any]:
            return _write_blocks(self.table, self.tracker, blocks,
                                 f"{self.job_id}-t{int(ctx.task_idx)}", self.hooks)

        def on_write_complete(self, write_result) -> None:
            returns = getattr(write_result, "write_returns", write_result)
            serialized = [m for r in returns if r for m in r["messages"]]
            rows = sum(int(r["rows"]) for r in returns if r)
            # Attempts that died after writing were re-run by Ray on the same blocks and wrote
            # the same names: every file of this write is named by a message.
            messages = [CommitMessage.from_bytes(m) for m in serialized]
            if not messages and overwrite is None:
                return
            committer = BatchTableCommit(self.table, self.table.new_batch_write_builder()
                                         .commit_user, overwrite)
            self.commit_started = True  # from here on the committer owns the files
            snapshot_id = committer.commit(messages)
            if snapshot_id is not None:
                self.result = PaimonWriteResult(row_count=rows, snapshot_id=int(snapshot_id))

        def on_write_failed(self, error: Exception) -> None:
            if self.commit_started:
                return
            import ray
            # The files every task reported. A task whose every attempt died after writing
            # reported nothing: its files stay (docs/python-api.md, "Ray jobs and failures").
            _abort(self.table, ray.get(self.tracker.close.remote()))

    return PaimonRowIdDatasink()


def write_paimon(dataset: Any, table_identifier: str, catalog_options: Dict[str, str], *,
                 overwrite: bool = False, concurrency: Optional[int] = None,
                 ray_remote_args: Optional[Dict[str, Any]] = None,
                 hash_fixed_precluster: str = "auto",
                 _hooks: Optional[TaskHooks] = None) -> Optional[PaimonWriteResult]:
    """Appends ``dataset`` to the table as ONE snapshot; blocking. Returns
    ``PaimonWriteResult(row_count, snapshot_id)``, or None when nothing was written (no
    snapshot). Columns are matched by name and cast to the table's types (pypaimon demands the
    exact schema). ``concurrency`` / ``ray_remote_args`` apply to the write tasks.

    ``overwrite=True`` makes it an INSERT OVERWRITE (pypaimon's spec ``{}``): on a partitioned
    table with ``dynamic-partition-overwrite`` true (the default) the partitions the dataset
    writes to are replaced, else the whole table, an empty dataset included (a truncate).

    If any task or the commit fails, the error propagates and no file a task reported remains.
    Every data file is named from the job id and the write task's index, so a task re-run by
    Ray after its worker died writes its files over the dead attempt's (nothing stray is
    left); only a task whose every attempt died after writing leaves its files behind.
    Raises TypeError for a non-Dataset, ValueError for an unknown ``hash_fixed_precluster`` or
    a ``concurrency`` that is not a positive integer, catalog errors for a missing table,
    and the innermost worker error
    (e.g. ValueError for a missing column) when a write task fails.
    ``_hooks`` is a test seam (ray/_task_hooks.py), not part of the API."""
    _check_dataset(dataset)
    table = _load_table(table_identifier, catalog_options)
    # pypaimon's write_paimon(overwrite=True) is the spec {} (any true value, as there).
    return write_dataset(dataset, table, overwrite={} if overwrite else None,
                         concurrency=concurrency, ray_remote_args=ray_remote_args,
                         hash_fixed_precluster=hash_fixed_precluster, _hooks=_hooks)


def _check_dataset(dataset: Any) -> None:
    if not isinstance(dataset, _ray_data().Dataset):
        raise TypeError(f"dataset must be a ray.data.Dataset, got {type(dataset).__name__}")


def write_dataset(dataset: Any, table: Any, *, overwrite: Optional[Mapping[str, Any]] = None,
                  concurrency: Optional[int] = None,
                  ray_remote_args: Optional[Dict[str, Any]] = None,
                  hash_fixed_precluster: str = "auto",
                  _hooks: Optional[TaskHooks] = None) -> Optional[PaimonWriteResult]:
    """write_paimon on a loaded ``table``; ``overwrite`` is a partition spec (None: append),
    checked before any task runs. Also behind ``BatchTableWrite.write_ray``."""
    import ray
    _check_dataset(dataset)
    if hash_fixed_precluster not in _PRECLUSTER_MODES:
        raise ValueError(f"hash_fixed_precluster must be one of {sorted(_PRECLUSTER_MODES)}, "
                         f"got {hash_fixed_precluster!r}")
    if concurrency is not None:  # Ray's own answer names no argument: "`size` must be >= 1"
        _positive_int("concurrency", concurrency)
    # The spec's native arguments, computed (and a bad spec refused) before any task runs.
    overwrite_args = None if overwrite is None else overwrite_arguments(table, overwrite)
    from ray.exceptions import RayError

    global _TRACKER_ACTOR
    if _TRACKER_ACTOR is None:
        _TRACKER_ACTOR = ray.remote(num_cpus=0)(_MessageTracker)
    # The tracker lives on the driver's node: if it sat on a worker node that dies, the
    # messages it holds (and so the whole write) would be lost with it.
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    tracker: Any = _TRACKER_ACTOR.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
        ray.get_runtime_context().get_node_id(), soft=False)).remote()
    job_id = new_job_id()  # every file of this write carries it (ray/_job_files.py)
    try:
        sink = _make_datasink(table, tracker, job_id, _hooks, overwrite_args)
        try:
            dataset.write_datasink(sink, concurrency=concurrency,
                                   ray_remote_args=dict(ray_remote_args or {}))
        except Exception as error:  # noqa: BLE001
            # Surface the worker's own exception (e.g. the writer's ValueError); keep Ray's
            # wrapper when the innermost is Ray's (UserCodeException drops the original
            # exception and only the wrapper's text names it).
            inner = innermost(error) if isinstance(error, RayError) else error
            if inner is error or isinstance(inner, RayError):
                raise
            raise inner from error
        return sink.result
    finally:
        ray.kill(tracker)


register(WRITE_DATASET, write_dataset)  # BatchTableWrite.write_ray (the table layer: no import)
