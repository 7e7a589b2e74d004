"""What the embedded and the Ray ``backfill`` share: argument checks, the plan (which file
groups are pending for a key), the batch loop with its progress and failure rule, the
compute step that calls ``fn`` and casts its values, and the result (``_backfill_status``
reads the progress back).

Progress lives in snapshot properties, written by the commit of each batch:

- ``paimon-rowid.backfill.<key>``: every range done for the key so far (the JSON list of
  inclusive ``[from, to]`` pairs that ``process_row_id_ranges(resume_key=...)`` writes and
  the native ``backfill_done_ranges`` reads from the newest snapshot carrying it);
- ``paimon-rowid.backfill-batch.<key>``: the ranges this commit finished (``from-to,...``),
  which ``backfill_status`` uses to tell when each range was committed.

Every later commit of the engine carries the first property of the snapshot it is built on
(``kCarriedPropertyPrefix``, commit/committer.h), so the newest snapshot always holds the
progress and expiring older snapshots loses nothing (docs/backfill.md, "Where the progress
lives").

A batch is executed by an ``execute(batch, properties)`` callable that reads the batch's
pending rows, computes and commits once (or not at all when there is nothing to write).
"""
from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import pyarrow as pa

from .._internal._lib import native
from .._internal._progress import BackfillProgress, DrawBar, ProgressTracker
from .._internal.range import Range
from ..table.predicate import Predicate, PredicateBuilder
from ..table.table import Table
from . import _job_checks as jobs
from .row_id_ranges import PROPERTY_PREFIX, completed_ranges, plan_row_id_ranges

BATCH_PROPERTY_PREFIX = "paimon-rowid.backfill-batch."
ROW_ID = jobs.ROW_ID


class BackfillError(RuntimeError):
    """A backfill batch failed. ``ranges``: the row-id ranges of the failing batch;
    ``result``: what was committed before it (a rerun resumes there). The original exception
    is chained as ``__cause__``."""

    def __init__(self, message: str, ranges: List[Range], result: BackfillResult) -> None:
        super().__init__(message)
        self.ranges = ranges
        self.result = result


@dataclasses.dataclass(frozen=True)
class BackfillResult:
    """What a run did. ``rows_computed``: rows ``fn`` produced and the run wrote;
    ``rows_skipped``: rows of ranges already done for the key (never read);
    ``ranges_skipped``: those file-group ranges; ``ranges_processed``: the ranges visited;
    ``snapshot_ids``: one per commit; ``bytes_read``: bytes the read-and-compute steps read
    (Linux ``/proc/<pid>/io`` ``rchar`` of the reading processes; 0 where unavailable; data
    files on a local disk are memory-mapped, so their bytes are not in it)."""
    key: str
    rows_computed: int
    rows_skipped: int
    ranges_skipped: int
    ranges_processed: int
    commits: int
    snapshot_ids: List[int]
    seconds: float
    bytes_read: int


@dataclasses.dataclass(frozen=True)
class BackfillSpec:
    """The checked arguments of one run (what a Ray worker needs travels with it)."""
    target: str
    catalog_options: Dict[str, Any]
    column: str
    fn: Any
    fn_args: Tuple[Any, ...]
    fn_kwargs: Dict[str, Any]
    input_columns: List[str]
    rows_per_commit: int
    batch_size: int
    key: str
    where: Optional[Predicate]
    only_null: bool
    column_type: pa.DataType

    @property
    def read_columns(self) -> List[str]:
        """What a batch reads: the inputs, the column itself when filtered on, the fields of
        ``where``, then ``_ROW_ID``."""
        cols = list(self.input_columns)
        extra = ([self.column] if self.only_null else []) + (
            self.where.fields() if self.where is not None else [])
        cols += [c for c in extra if c not in cols and c != ROW_ID]
        return cols + [ROW_ID]


def default_key(column: str, version: Optional[str]) -> str:
    return column if version is None else f"{column}@{version}"


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return value


def check_arguments(target: str, catalog_options: Mapping[str, Any], *, column: str, fn: Any,
                    input_columns: Sequence[str], rows_per_commit: int, batch_size: int,
                    version: Optional[str], key: Optional[str], where: Optional[Predicate],
                    only_null: Optional[bool], fn_constructor_args: Sequence[Any] = (),
                    fn_constructor_kwargs: Optional[Mapping[str, Any]] = None
                    ) -> Tuple[BackfillSpec, Table]:
    """Every check a run makes before it reads or writes anything (ValueError / TypeError)."""
    if not callable(fn):
        raise TypeError(f"fn must be a function or a class, got {type(fn).__name__}.")
    if not isinstance(fn_constructor_args, (list, tuple)):
        raise TypeError("fn_constructor_args must be a list or tuple.")
    if fn_constructor_kwargs is not None and not isinstance(fn_constructor_kwargs, Mapping):
        raise TypeError("fn_constructor_kwargs must be a mapping.")
    if (fn_constructor_args or fn_constructor_kwargs) and not isinstance(fn, type):
        # Ray Data's map_batches refuses the same: only a class is constructed.
        raise ValueError("fn_constructor_args / fn_constructor_kwargs need fn to be a class "
                         f"(it is constructed once per worker); got {type(fn).__name__}.")
    if isinstance(input_columns, str) or not input_columns:
        raise ValueError("input_columns must be a non-empty list of column names.")
    _positive_int("rows_per_commit", rows_per_commit)
    _positive_int("batch_size", batch_size)
    if version is not None and (not isinstance(version, str) or not version):
        raise ValueError("version must be a non-empty string.")
    if key is not None and (not isinstance(key, str) or not key):
        raise ValueError("key must be a non-empty string.")
    if where is not None and not isinstance(where, Predicate):
        raise TypeError(f"where must be a Predicate, got {type(where).__name__}.")
    if only_null is not None and not isinstance(only_null, bool):
        raise TypeError("only_null must be True, False or None.")
    if not isinstance(column, str) or not column:
        raise ValueError("column must be a column name.")
    table = jobs.load_table(target, catalog_options)
    jobs.check_table(table, target, "backfill")
    fields = {f.name: f for f in table.fields}
    if column not in fields:
        raise ValueError(f"column {column!r} is not in target '{target}'.")
    if not fields[column].type.nullable:
        raise ValueError(f"column {column!r} of '{target}' is NOT NULL; backfill needs a "
                         "nullable column (null marks a row not computed yet).")
    native().validate_update_columns(table._native, [column], target, "backfill")
    unknown = [c for c in input_columns if c not in fields and c != ROW_ID]
    if unknown:
        raise ValueError(f"input_columns {unknown} are not in target '{target}'.")
    inputs = jobs.dedupe([c for c in input_columns if c != ROW_ID])
    if where is not None:
        missing = [c for c in where.fields() if c not in fields and c != ROW_ID]
        if missing:
            raise ValueError(f"where refers to {missing}, which are not in '{target}'.")
    spec = BackfillSpec(
        target=target, catalog_options=dict(catalog_options), column=column, fn=fn,
        fn_args=tuple(fn_constructor_args), fn_kwargs=dict(fn_constructor_kwargs or {}),
        input_columns=inputs, rows_per_commit=rows_per_commit, batch_size=batch_size,
        key=key or default_key(column, version), where=where,
        only_null=(version is None) if only_null is None else only_null,
        column_type=table.read_schema([column]).field(0).type)
    return spec, table


# ---------------------------------------------------------------------------- reading a batch

# The native reader yields a split's rows as one Arrow batch per file group, so a group is
# read in windows of this many row ids (or batch_size, when larger): the input held in memory
# is one window, not one group. Each window is one plan (a manifest read).
READ_WINDOW_ROWS = 16_384


def read_window(spec: BackfillSpec) -> int:
    return max(spec.batch_size, READ_WINDOW_ROWS)


def batch_read(spec: BackfillSpec, batch: List[Range]):
    """(TableRead, splits) of the batch's pending rows (see ``pending_rows``), each split
    covering at most ``read_window`` row ids. Planning reads manifests only."""
    rb = pending_rows(spec)
    splits = rb.new_scan().with_row_ranges(batch).plan().splits()
    window = read_window(spec)
    if all(s.row_count <= window for s in splits):
        return rb.new_read(), splits
    windowed = []
    for r in batch:
        for start in range(r.from_, r.to + 1, window):
            piece = Range(start, min(r.to, start + window - 1))
            windowed += rb.new_scan().with_row_ranges([piece]).plan().splits()
    return rb.new_read(), windowed


def pending_rows(spec: BackfillSpec):
    """The ReadBuilder of the rows to compute: ``read_columns`` with BLOB payloads (not
    descriptors), the ``IS NULL`` filter when ``only_null``, and ``where``."""
    table = jobs.load_table(spec.target, spec.catalog_options).copy(
        {"blob-as-descriptor": "false"})
    rb = table.new_read_builder().with_projection(spec.read_columns)
    filters: List[Optional[Predicate]] = []
    if spec.only_null:
        filters.append(rb.new_predicate_builder().is_null(spec.column))
    if spec.where is not None:
        filters.append(spec.where)
    predicate = PredicateBuilder.and_predicates(filters)
    if predicate is not None:
        rb.with_filter(predicate)
    return rb


def io_bytes_read() -> int:
    """Bytes this process has read through read(2)-like calls (``rchar``); 0 off Linux."""
    try:
        with open("/proc/self/io") as f:
            for line in f:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def chunks(batches, size: int):
    """Re-chunks record batches into tables of ``size`` rows (the last may be shorter)."""
    held: List[pa.RecordBatch] = []
    rows = 0
    for rb in batches:
        while rb.num_rows:
            take = min(size - rows, rb.num_rows)
            held.append(rb.slice(0, take))
            rows += take
            rb = rb.slice(take)
            if rows == size:
                yield pa.Table.from_batches(held)
                held, rows = [], 0
    if rows:
        yield pa.Table.from_batches(held)


class Compute:
    """Calls ``fn`` on tables of ``input_columns`` + ``_ROW_ID`` of at most ``batch_size``
    rows and returns ``(_ROW_ID, column)`` tables cast to the column's type. A class ``fn``
    is constructed once, with the Compute (once per worker)."""

    def __init__(self, spec: BackfillSpec) -> None:
        self._spec = spec
        self._fn = (spec.fn(*spec.fn_args, **spec.fn_kwargs) if isinstance(spec.fn, type)
                    else spec.fn)
        self._schema = Compute.schema_of(spec)

    @staticmethod
    def schema_of(spec: BackfillSpec) -> pa.Schema:
        """What a compute step returns: ``_ROW_ID`` and the column, in the column's type."""
        return pa.schema([(ROW_ID, pa.int64()), (spec.column, spec.column_type)])

    def __call__(self, inputs: pa.Table) -> pa.Table:
        spec = self._spec
        values = self._fn(inputs.select(spec.input_columns + [ROW_ID]))
        if isinstance(values, (pa.Table, pa.RecordBatch)):
            values = self._column_of(values, inputs)
        if not isinstance(values, (pa.Array, pa.ChunkedArray)):
            try:
                values = pa.array(values, type=spec.column_type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as error:
                raise TypeError(f"fn returned {type(values).__name__}, which cannot be made "
                                f"into column {spec.column!r} ({spec.column_type}): "
                                f"{error}") from error
        if len(values) != inputs.num_rows:
            raise ValueError(f"fn returned {len(values)} values for {inputs.num_rows} rows.")
        if values.type != spec.column_type:
            try:
                values = values.cast(spec.column_type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as error:
                raise TypeError(f"fn returned {values.type}, which cannot be cast to column "
                                f"{spec.column!r} ({spec.column_type}): {error}") from error
        return pa.Table.from_arrays([inputs[ROW_ID], values], schema=self._schema)

    def _column_of(self, table, inputs: pa.Table):
        """A one-column table's column, or the column named ``column`` (a table that also
        carries ``_ROW_ID``, as the seed's ``EmbedImages`` returns, must keep the rows)."""
        names = table.schema.names
        if self._spec.column in names:
            if ROW_ID in names and not table.column(ROW_ID).equals(inputs.column(ROW_ID)):
                raise ValueError("fn returned a table whose _ROW_ID differs from its input's "
                                 "(values must come in the input's row order).")
            return table.column(self._spec.column)
        if table.num_columns != 1:
            raise ValueError(f"fn must return an array, a one-column table or a table with a "
                             f"{self._spec.column!r} column; got columns {names}.")
        return table.column(0)

    def empty(self) -> pa.Table:
        return self._schema.empty_table()


# ---------------------------------------------------------------------------- the batch loop

def _encode_batch(ranges: List[Range]) -> str:
    return ",".join(f"{r.from_}-{r.to}" for r in Range.merge_sorted_as_possible(ranges))


def covered(r: Range, done: List[Range]) -> bool:
    return any(d.from_ <= r.from_ and r.to <= d.to for d in done)


def _pack(groups: List[Range], rows_per_commit: int) -> List[List[Range]]:
    batches: List[List[Range]] = []
    pending: List[Range] = []
    rows = 0
    for g in groups:
        pending.append(g)
        rows += g.count()
        if rows >= rows_per_commit:
            batches.append(pending)
            pending, rows = [], 0
    if pending:
        batches.append(pending)
    return batches


# execute(batch, properties, tracker) -> (rows computed, snapshot id or None, bytes read)
Execute = Callable[[List[Range], Dict[str, str], ProgressTracker],
                   Tuple[int, Optional[int], int]]


def run(spec: BackfillSpec, table: Table, execute: Execute, progress: Any,
        on_progress: Optional[Callable[[BackfillProgress], Any]],
        draw: Optional[DrawBar] = None) -> BackfillResult:
    """Plans the latest snapshot, skips the groups done for the key unread, and executes the
    other groups in batches of about ``rows_per_commit`` rows, in row-id order. ``draw``: the
    bar of ``progress=True`` (the Ray door's tqdm_ray; default tqdm)."""
    started = time.perf_counter()
    groups = plan_row_id_ranges(table)
    done = completed_ranges(table, spec.key)
    pending = [g for g in groups if not covered(g, done)]
    skipped = [g for g in groups if covered(g, done)]
    batches = _pack(pending, spec.rows_per_commit)
    tracker = ProgressTracker(sum(g.count() for g in pending), len(batches), progress,
                              on_progress, draw=draw)
    recorded = list(done)
    unrecorded: List[Range] = []  # finished without a commit: recorded by the next commit
    computed = 0
    snapshot_ids: List[int] = []
    bytes_read = 0

    def result() -> BackfillResult:
        return BackfillResult(
            key=spec.key, rows_computed=computed, rows_skipped=sum(g.count() for g in skipped),
            ranges_skipped=len(skipped), ranges_processed=sum(len(b) for b in batches),
            commits=len(snapshot_ids), snapshot_ids=list(snapshot_ids),
            seconds=time.perf_counter() - started, bytes_read=bytes_read)

    try:  # the bar is closed however the run ends
        for number, batch in enumerate(batches, start=1):
            tracker.start_batch(number)
            properties = {
                PROPERTY_PREFIX + spec.key: _encode_ranges(recorded + unrecorded + batch),
                BATCH_PROPERTY_PREFIX + spec.key: _encode_batch(unrecorded + batch),
            }
            try:
                rows, snapshot_id, read = execute(batch, properties, tracker)
            except Exception as error:
                span = ", ".join(f"{r.from_}..{r.to}"
                                 for r in Range.merge_sorted_as_possible(batch))
                raise BackfillError(
                    f"backfill of {spec.column!r} (key {spec.key!r}) failed in batch {number} "
                    f"of {len(batches)}, row ids {span}: {_task_error(error).rstrip('.')}. "
                    f"{len(snapshot_ids)} batch commit(s) of this run are kept; rerun to "
                    "resume.", list(batch), result()) from error
            computed += rows
            bytes_read += read
            if snapshot_id is None:
                unrecorded += batch
            else:
                snapshot_ids.append(snapshot_id)
                recorded = Range.merge_sorted_as_possible(recorded + unrecorded + batch)
                unrecorded = []
            tracker.committed(sum(r.count() for r in batch), snapshot_id is not None)
        tracker.finish()
    finally:
        tracker.close()
    return result()


def _encode_ranges(ranges: List[Range]) -> str:
    # The JSON text process_row_id_ranges records (and backfill_done_ranges decodes).
    return json.dumps([[r.from_, r.to] for r in Range.merge_sorted_as_possible(ranges)])


def _task_error(error: BaseException) -> str:
    """``Type: message`` of the exception the batch's own code raised. Under Ray's
    ``RayTaskError`` (whose text is the remote traceback and Ray's advice) that is its
    ``cause``; every other exception is its own."""
    seen = set()
    while isinstance(getattr(error, "cause", None), BaseException) and id(error) not in seen:
        seen.add(id(error))
        error = error.cause  # type: ignore[attr-defined]
    return f"{type(error).__name__}: {error}"
