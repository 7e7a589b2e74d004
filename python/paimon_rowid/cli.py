"""``paimon-rowid``: the command-line tool, installed with the package (``pip install``) as a
console script; ``python -m paimon_rowid`` runs the same.

Every verb takes the warehouse first, then its table (or database), then options::

    paimon-rowid databases WAREHOUSE
    paimon-rowid read-by-row-id WAREHOUSE db.t --ids 7,2 --columns name
    paimon-rowid scan s3://bucket/lake db.t --option fs.s3.endpoint=http://host:9000

Each verb has ``--help``. Catalog options are ``--option KEY=VALUE`` (repeatable, the catalog
option names of ``CatalogFactory.create``) on every verb; ``--json`` prints what the verb
returns as JSON (rows as JSON lines) for scripts. Exit status: 0 on success; 2 for a bad
command line (argparse: unknown flags, bad numbers) and for a refused call (ValueError,
TypeError, KeyError and catalog errors: nothing was written); 1 for any other failure (I/O,
a lost commit race). Errors go to stderr as ``paimon-rowid: <message>``.

The verbs call the package's Python API (one engine: the C++ core below it), so the CLI and
the API refuse the same things with the same messages.
"""
from __future__ import annotations

import argparse
import base64
import datetime
import decimal
import json
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.ipc as pa_ipc

from ._cli_evolution import add_verbs
from ._cli_index import add_index_verbs
from ._internal.exceptions import CatalogException
from ._internal.range import Range
from .catalog.catalog import CatalogFactory
from .jobs.backfill_job import backfill_status
from .jobs.compact import compact
from .jobs.maintenance import expire_snapshots, remove_orphan_files
from .jobs.row_id_jobs import read_by_row_id, update_and_commit
from .jobs.row_id_ranges import plan_row_id_ranges
from .table.table import Table

__all__ = ["main", "build_parser"]

PROG = "paimon-rowid"
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1


# -- argument types: each raises ArgumentTypeError, which argparse reports with exit 2 ----------

def _int64(text: str) -> int:
    """A whole decimal integer (optional '-'), nothing else: "1.5", "0x10", "", "+7" and "1e3"
    are refused, as are values outside int64."""
    body = text[1:] if text.startswith("-") else text
    if not body.isascii() or not body.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    value = int(text)
    if not INT64_MIN <= value <= INT64_MAX:
        raise argparse.ArgumentTypeError(f"'{text}' is out of range (a 64-bit integer)")
    return value


def _int32(text: str) -> int:
    value = _int64(text)
    if not -(2 ** 31) <= value < 2 ** 31:
        raise argparse.ArgumentTypeError(f"'{text}' is out of range (a 32-bit integer)")
    return value


def _positive(text: str) -> int:
    value = _int64(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _threads(text: str) -> int:
    value = _int64(text)
    if not 0 <= value <= 1024:
        raise argparse.ArgumentTypeError(f"must be in [0, 1024], got {text}")
    return value


def _id_list(text: str) -> List[int]:
    """Comma-separated row ids (blanks around them ignored)."""
    return [_int64(part.strip()) for part in text.split(",") if part.strip()]


def _name_list(text: str) -> List[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _key_value(text: str) -> tuple:
    key, eq, value = text.partition("=")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got '{text}'")
    if key == "warehouse":
        raise argparse.ArgumentTypeError("the warehouse is the first argument, not an option")
    return key, value


# -- output ---------------------------------------------------------------------------------------

def _json_value(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _dump(value: Any, out: TextIO) -> None:
    out.write(json.dumps(value, default=_json_value) + "\n")


def _emit_rows(table: pa.Table, args: argparse.Namespace, out: TextIO) -> None:
    """Rows as CSV (default; Arrow's CSV writer), JSON lines (``--json``; binary as base64)
    or an Arrow IPC stream (``--ipc``)."""
    if args.ipc:
        sink = sys.stdout.buffer
        with pa_ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        sink.flush()
        return
    if args.json:
        for batch in table.to_batches():
            for row in batch.to_pylist():
                _dump(row, out)
        return
    buffer = pa.BufferOutputStream()
    pa_csv.write_csv(table, buffer)
    out.write(buffer.getvalue().to_pybytes().decode("utf-8"))


def _emit_lines(pairs: Sequence[tuple], result: Dict[str, Any], args: argparse.Namespace,
                out: TextIO) -> None:
    """A result dict as JSON (``--json``) or as ``label: value`` lines."""
    if args.json:
        _dump(result, out)
        return
    for label, value in pairs:
        out.write(f"{label}: {value}\n")


def _or_none(value: Optional[int]) -> str:
    return "none" if value is None else str(value)


# -- the verbs --------------------------------------------------------------------------------

def _options(args: argparse.Namespace) -> Dict[str, str]:
    options = {"warehouse": args.warehouse}
    for key, value in args.option or []:
        if key in options:
            raise ValueError(f"--option: '{key}' is given twice")
        options[key] = value
    return options


def _table(args: argparse.Namespace) -> Table:
    return CatalogFactory.create(_options(args)).get_table(args.table)


def _names(names: List[str], args: argparse.Namespace, out: TextIO) -> None:
    if args.json:
        _dump(names, out)
    else:
        out.writelines(f"{n}\n" for n in names)


def _databases(args: argparse.Namespace, out: TextIO) -> None:
    _names(CatalogFactory.create(_options(args)).list_databases(), args, out)


def _tables(args: argparse.Namespace, out: TextIO) -> None:
    _names(CatalogFactory.create(_options(args)).list_tables(args.database), args, out)


def _schema(args: argparse.Namespace, out: TextIO) -> None:
    out.write(_table(args).table_schema.to_json() + "\n")


def _snapshot(args: argparse.Namespace, out: TextIO) -> None:
    snapshot = _table(args).resolve_snapshot()
    if snapshot is None:
        out.write("null\n" if args.json else "no snapshot\n")
    else:
        out.write(snapshot.to_json() + "\n")


def _ranges(args: argparse.Namespace, out: TextIO) -> None:
    """File-group ranges, batched to about --rows-per-batch rows (a group is never split)."""
    batches: List[List[Range]] = [[]]
    pending = 0
    for group in plan_row_id_ranges(_table(args)):
        batches[-1].append(group)
        pending += group.count()
        if pending >= args.rows_per_batch:
            batches.append([])
            pending = 0
    batches = [b for b in batches if b]
    if args.json:
        _dump([[[r.from_, r.to] for r in b] for b in batches], out)
        return
    for batch in batches:
        out.write(" ".join(f"{r.from_}-{r.to}" for r in batch) + "\n")


def _scan(args: argparse.Namespace, out: TextIO) -> None:
    table = _table(args)
    fields = list(args.columns or table.field_names)
    if table.row_tracking_enabled and "_ROW_ID" not in fields:
        fields.append("_ROW_ID")
    builder = table.new_read_builder().with_projection(fields)
    scan = builder.new_scan()
    if args.range is not None:
        start, end = args.range
        if start < 0 or start > end:
            raise ValueError(f"--range FROM TO: need 0 <= FROM <= TO (both inclusive), got "
                             f"{start} {end}")
        scan = scan.with_row_ranges([Range(start, end)])
    _emit_rows(builder.new_read().to_arrow(scan.plan().splits()), args, out)


def _read_by_row_id(args: argparse.Namespace, out: TextIO) -> None:
    options = _options(args)
    projection = args.columns or CatalogFactory.create(options).get_table(args.table).field_names
    _emit_rows(read_by_row_id(args.table, args.ids, options, projection=list(projection)),
               args, out)


def _open_input(path: str) -> pa.RecordBatchReader:
    """An Arrow IPC stream (it starts with the 0xFFFFFFFF continuation marker) or CSV with a
    header, from a file or stdin (``-``); read as a stream."""
    stream: Any = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    if stream.peek(4)[:2] == b"\xff\xff":  # io.BufferedReader: nothing consumed
        return pa_ipc.open_stream(stream)
    # No read-ahead threads: a refused update stops reading early, and a read-ahead task
    # still reading the Python file while the interpreter exits would abort the process.
    return pa_csv.open_csv(stream, read_options=pa_csv.ReadOptions(use_threads=False))


def _update_by_row_id(args: argparse.Namespace, out: TextIO) -> None:
    rows, snapshot_id = update_and_commit(args.table, _open_input(args.input), _options(args),
                                          update_cols=args.columns)
    _dump({"num_updated": rows, "snapshot_id": snapshot_id}, out)


def _delete_by_row_id(args: argparse.Namespace, out: TextIO) -> None:
    builder = _table(args).new_batch_write_builder()
    messages = builder.new_update().delete_by_row_id(args.ids)
    commit = builder.new_commit()
    try:
        snapshot_id = commit.commit(messages)
    finally:
        commit.close()
    _dump({"snapshot_id": snapshot_id}, out)


def _compact(args: argparse.Namespace, out: TextIO) -> None:
    r = compact(args.table, _options(args), full=args.full, min_file_num=args.min_file_num,
                num_partitions=args.threads or None, progress=args.progress)
    _emit_lines([
        ("snapshot", _or_none(r["snapshot_id"])),
        ("file groups compacted", f"{r['groups_compacted']} of {r['groups_total']}"),
        ("files replaced", f"{r['files_removed']} ({r['bytes_before']} bytes)"),
        ("files written", f"{r['files_written']} ({r['bytes_written']} bytes)"),
        ("rows rewritten", r["rows_rewritten"])], r, args, out)


def _expire_snapshots(args: argparse.Namespace, out: TextIO) -> None:
    r = expire_snapshots(args.table, _options(args), retain_max=args.retain_max,
                         retain_min=args.retain_min, older_than_ms=args.older_than_ms,
                         max_deletes=args.max_deletes, progress=args.progress)
    _emit_lines([
        ("snapshots expired", r["snapshots_expired"]),
        ("data files deleted", r["data_files_deleted"]),
        ("manifest files deleted", r["manifest_files_deleted"]),
        ("bytes freed", r["bytes_freed"]),
        ("earliest snapshot", _or_none(r["earliest_snapshot_id"]))], r, args, out)


def _remove_orphan_files(args: argparse.Namespace, out: TextIO) -> None:
    r = remove_orphan_files(args.table, _options(args), older_than_ms=args.older_than_ms,
                            dry_run=args.dry_run, progress=args.progress)
    if args.json:
        _dump(r, out)
        return
    dry = r["dry_run"]
    for path in r["paths"]:
        out.write(f"{'would delete' if dry else 'deleted'}: {path}\n")
    _emit_lines([
        ("orphan files found (dry run)" if dry else "orphan files deleted", r["files"]),
        ("bytes to free" if dry else "bytes freed", r["bytes"]),
        ("empty directories removed", r["dirs_removed"])], r, args, out)


def _backfill_status(args: argparse.Namespace, out: TextIO) -> None:
    status = backfill_status(args.table, _options(args), args.key)
    done = [{"from": s.range.from_, "to": s.range.to, "snapshot_id": s.snapshot_id,
             "committed_millis": s.committed_millis} for s in status.done]
    pending = [[r.from_, r.to] for r in status.pending]
    result = {"key": status.key, "rows_done": status.rows_done,
              "rows_pending": status.rows_pending, "done": done, "pending": pending}
    _emit_lines([
        ("key", status.key), ("rows done", status.rows_done),
        ("rows pending", status.rows_pending),
        ("ranges done", " ".join(f"{d['from']}-{d['to']}@{_or_none(d['snapshot_id'])}"
                                 for d in done) or "none"),
        ("ranges pending", " ".join(f"{lo}-{hi}" for lo, hi in pending) or "none")],
        result, args, out)


def _tags(args: argparse.Namespace, out: TextIO) -> None:
    _names(_table(args).list_tags(), args, out)


def _create_tag(args: argparse.Namespace, out: TextIO) -> None:
    _table(args).create_tag(args.name, args.snapshot, ignore_if_exists=args.ignore_if_exists,
                            time_retained=args.time_retained)
    if args.json:
        _dump({"tag": args.name}, out)
    else:
        out.write(f"created tag {args.name}\n")


def _delete_tag(args: argparse.Namespace, out: TextIO) -> None:
    deleted = _table(args).delete_tag(args.name)
    if args.json:
        _dump({"tag": args.name, "deleted": deleted}, out)
    else:
        out.write(f"{'deleted' if deleted else 'no such'} tag {args.name}\n")


# -- the parser -------------------------------------------------------------------------------

def _common() -> argparse.ArgumentParser:
    """The options every verb takes."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--option", metavar="KEY=VALUE", type=_key_value, action="append",
                        help="a catalog option (repeatable), e.g. fs.s3.endpoint=http://h:9000 "
                             "(docs/object-stores.md)")
    common.add_argument("--json", action="store_true",
                        help="print the result as JSON (rows: one JSON object per line)")
    return common


def _progress_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--progress", action="store_true",
                        help="show progress on stderr (a bar on a terminal, plain lines "
                             "every 5 s elsewhere)")


def _rows_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--columns", type=_name_list, metavar="A,B",
                        help="the columns to read (default: all); _ROW_ID is added")
    parser.add_argument("--ipc", action="store_true",
                        help="write an Arrow IPC stream instead of CSV")


Verb = Callable[[argparse.Namespace, TextIO], None]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Read, update, delete and maintain Apache Paimon data-evolution "
        "tables by row id (docs/python-api.md, \"Command line\").",
        epilog="Run 'paimon-rowid VERB --help' for a verb's arguments.")
    verbs = parser.add_subparsers(dest="verb", required=True)
    common = _common()

    def verb(name: str, run: Verb, help_text: str, target: Optional[str] = "table",
             aliases: Sequence[str] = ()) -> argparse.ArgumentParser:
        sub = verbs.add_parser(name, parents=[common], help=help_text, description=help_text,
                               aliases=list(aliases))
        sub.add_argument("warehouse", metavar="WAREHOUSE",
                         help="the warehouse: a path or an s3:// or oss:// URI")
        if target == "table":
            sub.add_argument("table", metavar="TABLE", help="the table, as DB.TABLE")
        elif target == "database":
            sub.add_argument("database", metavar="DB", help="the database")
        sub.set_defaults(run=run)
        return sub

    verb("databases", _databases, "List the databases of the warehouse.", target=None)
    verb("tables", _tables, "List the tables of a database.", target="database")
    verb("schema", _schema, "Print the table's current schema (Paimon's schema JSON).")
    verb("snapshot", _snapshot, "Print the table's latest snapshot (Paimon's snapshot JSON).")
    sub = verb("ranges", _ranges, "Print the table's file-group row-id ranges, in batches of "
               "about --rows-per-batch rows (one batch per line: FROM-TO ...).")
    sub.add_argument("--rows-per-batch", type=_positive, default=1_000_000, metavar="N")
    sub = verb("scan", _scan, "Read the table (or the rows of a row-id range) as CSV, JSON "
               "lines or Arrow IPC.", aliases=["read"])
    _rows_output(sub)
    sub.add_argument("--range", nargs=2, type=_int64, metavar=("FROM", "TO"),
                     help="only rows whose _ROW_ID is in [FROM, TO] (inclusive)")
    sub = verb("read-by-row-id", _read_by_row_id, "Read the rows with the given row ids "
               "(one row per distinct id, grouped by file group).")
    sub.add_argument("--ids", type=_id_list, required=True, metavar="1,5,9")
    _rows_output(sub)
    sub = verb("update-by-row-id", _update_by_row_id, "Overwrite columns of rows addressed by "
               "_ROW_ID, from CSV (with a header) or an Arrow IPC stream; one commit. Prints "
               "{\"num_updated\": N, \"snapshot_id\": S}.")
    sub.add_argument("--columns", type=_name_list, required=True, metavar="A,B",
                     help="the columns to overwrite")
    sub.add_argument("--input", default="-", metavar="FILE",
                     help="the rows: _ROW_ID and the columns ('-', the default: stdin)")
    sub = verb("delete-by-row-id", _delete_by_row_id, "Delete rows by row id through deletion "
               "vectors: one OVERWRITE snapshot (docs/deletes.md). Prints {\"snapshot_id\": S}.")
    sub.add_argument("--ids", type=_id_list, required=True, metavar="1,5,9")
    sub = verb("compact", _compact, "Data-evolution compaction: one COMPACT snapshot "
               "(docs/maintenance.md).")
    sub.add_argument("--full", action="store_true", help="compact every group with >1 file")
    sub.add_argument("--min-file-num", type=_int64, metavar="N")
    sub.add_argument("--threads", type=_threads, default=0, metavar="N",
                     help="threads (0, the default: one per core)")
    _progress_flag(sub)
    sub = verb("expire-snapshots", _expire_snapshots, "Expire old snapshots and delete the "
               "files only they need; unset options take the table's snapshot.num-retained.max/"
               "min, snapshot.time-retained and snapshot.expire.limit.")
    sub.add_argument("--retain-max", type=_int32, metavar="N")
    sub.add_argument("--retain-min", type=_int32, metavar="N")
    sub.add_argument("--older-than-ms", type=_int64, metavar="T", help="epoch milliseconds")
    sub.add_argument("--max-deletes", type=_int32, metavar="N")
    _progress_flag(sub)
    sub = verb("remove-orphan-files", _remove_orphan_files, "Delete files no snapshot or tag "
               "references, older than --older-than-ms (default: now minus one day).")
    sub.add_argument("--older-than-ms", type=_int64, metavar="T", help="epoch milliseconds")
    sub.add_argument("--dry-run", action="store_true", help="list what would be deleted")
    _progress_flag(sub)
    sub = verb("backfill-status", _backfill_status, "Which row-id ranges a backfill key has "
               "done (and in which snapshot) and which are pending (docs/backfill.md).")
    sub.add_argument("--key", required=True, help="the backfill key (backfill's key=)")
    verb("tags", _tags, "List the table's tags.")
    sub = verb("create-tag", _create_tag, "Tag a snapshot (default: the latest).")
    sub.add_argument("name", metavar="NAME")
    sub.add_argument("--snapshot", type=_int64, metavar="ID")
    sub.add_argument("--ignore-if-exists", action="store_true")
    sub.add_argument("--time-retained", metavar="DURATION",
                     help="the tag's retention, e.g. '1 d', '12 h' (written into the tag)")
    sub = verb("delete-tag", _delete_tag, "Delete a tag.")
    sub.add_argument("name", metavar="NAME")
    add_verbs(verb, int64=_int64, catalog_of=lambda a: CatalogFactory.create(_options(a)),
              emit_lines=_emit_lines)
    add_index_verbs(verbs, common, table_of=_table, key_value=_key_value, dump=_dump)
    return parser


# Refusals (nothing written) exit 2, like a bad command line; other failures exit 1.
_REFUSALS = (ValueError, TypeError, KeyError, CatalogException, NotImplementedError)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs one command line; returns the exit status (the console script exits with it)."""
    args = build_parser().parse_args(argv)
    run: Verb = args.run
    try:
        run(args, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `paimon-rowid ... | head`
        return 0
    except Exception as error:  # noqa: BLE001 - reported in one line, as a CLI does
        message = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
        sys.stderr.write(f"{PROG}: {message}\n")
        return 2 if isinstance(error, _REFUSALS) else 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
