"""The CLI's verbs for schema evolution, tags and rollback (docs/tags.md,
docs/schema-evolution.md): ``alter``, ``rename-tag``, ``replace-tag``, ``rollback``. Registered
by ``cli.build_parser`` (which passes its helpers in, so this module imports none of it)."""
from __future__ import annotations

import argparse
from typing import Any, Callable, Dict, List, Sequence, TextIO, Tuple

from ._internal.exceptions import CatalogException
from .schema import DataType
from .schema.schema_change import SchemaChange

Change = Tuple[str, Tuple[str, ...]]


class _AppendChange(argparse.Action):
    """Keeps every change flag, in command-line order, in ``args.changes``."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: Any = None) -> None:
        changes: List[Change] = list(getattr(namespace, "changes", None) or [])
        items = tuple(values) if isinstance(values, list) else (values,)
        changes.append((self.dest, items))
        namespace.changes = changes


def _schema_change(kind: str, values: Sequence[str]) -> Any:
    if kind == "add_column":
        return SchemaChange.add_column(values[0], DataType(values[1]))
    if kind == "drop_column":
        return SchemaChange.drop_column(values[0])
    if kind == "rename_column":
        return SchemaChange.rename_column(values[0], values[1])
    if kind == "set_option":
        key, eq, value = values[0].partition("=")
        if not eq or not key:
            raise ValueError(f"--set-option: expected KEY=VALUE, got '{values[0]}'")
        return SchemaChange.set_option(key, value)
    if kind == "remove_option":
        return SchemaChange.remove_option(values[0])
    raise AssertionError(kind)


def add_verbs(verb: Callable[..., argparse.ArgumentParser], *, int64: Callable[[str], int],
              catalog_of: Callable[[argparse.Namespace], Any],
              emit_lines: Callable[[Sequence[tuple], Dict[str, Any], argparse.Namespace,
                                    TextIO], None]) -> None:
    """Adds the verbs through ``cli.build_parser``'s ``verb`` helper."""

    def alter(args: argparse.Namespace, out: TextIO) -> None:
        changes = getattr(args, "changes", None) or []
        if not changes:
            raise ValueError("alter: give at least one change (--add-column, --drop-column, "
                             "--rename-column, --set-option, --remove-option)")
        catalog = catalog_of(args)
        try:
            catalog.alter_table(args.table, [_schema_change(k, v) for k, v in changes])
        except RuntimeError as e:
            # alter_table wraps a refused change in RuntimeError (as pypaimon); nothing was
            # written, so the CLI reports it as a refusal (exit 2).
            refused = (ValueError, TypeError, KeyError, CatalogException, NotImplementedError)
            if isinstance(e.__cause__, refused):
                raise ValueError(str(e)) from e
            raise
        schema = catalog.get_table(args.table).table_schema
        emit_lines([("altered", args.table), ("schema", schema.id),
                    ("fields", ", ".join(f.name for f in schema.fields))],
                   {"table": args.table, "schema_id": schema.id,
                    "fields": [f.name for f in schema.fields]}, args, out)

    def rename_tag(args: argparse.Namespace, out: TextIO) -> None:
        catalog_of(args).get_table(args.table).rename_tag(args.old, args.new)
        emit_lines([("renamed tag", f"{args.old} -> {args.new}")],
                   {"old": args.old, "new": args.new}, args, out)

    def replace_tag(args: argparse.Namespace, out: TextIO) -> None:
        table = catalog_of(args).get_table(args.table)
        table.replace_tag(args.name, args.snapshot, args.time_retained)
        emit_lines([("replaced tag", args.name)], {"tag": args.name}, args, out)

    def rollback(args: argparse.Namespace, out: TextIO) -> None:
        table = catalog_of(args).get_table(args.table)
        clean = args.delete_unused_files
        if args.timestamp_ms is not None:
            r = table.rollback_to_timestamp(args.timestamp_ms, delete_unused_files=clean)
        else:
            r = table.rollback_to(args.snapshot if args.snapshot is not None else args.tag,
                                  delete_unused_files=clean)
        emit_lines([("rolled back to snapshot", r["snapshot_id"]),
                    ("snapshots deleted", r["snapshots_deleted"]),
                    ("tags deleted", " ".join(r["tags_deleted"]) or "none"),
                    ("data files deleted", r["data_files_deleted"]),
                    ("manifest files deleted", r["manifest_files_deleted"]),
                    ("bytes freed", r["bytes_freed"])], r, args, out)

    sub = verb("alter", alter, "Change the table's schema: the changes, in command-line order, "
               "become one new schema (all or nothing; docs/schema-evolution.md).")
    sub.add_argument("--add-column", nargs=2, metavar=("NAME", "TYPE"), action=_AppendChange,
                     help="add a nullable column of a Paimon type (INT, STRING, "
                          "DECIMAL(10, 2), ARRAY<INT> ...) at the end")
    sub.add_argument("--drop-column", metavar="NAME", action=_AppendChange)
    sub.add_argument("--rename-column", nargs=2, metavar=("OLD", "NEW"), action=_AppendChange)
    sub.add_argument("--set-option", metavar="KEY=VALUE", action=_AppendChange)
    sub.add_argument("--remove-option", metavar="KEY", action=_AppendChange)
    sub = verb("rename-tag", rename_tag, "Rename a tag (never overwrites one).")
    sub.add_argument("old", metavar="OLD")
    sub.add_argument("new", metavar="NEW")
    sub = verb("replace-tag", replace_tag, "Point an existing tag at another snapshot "
               "(default: the latest).")
    sub.add_argument("name", metavar="NAME")
    sub.add_argument("--snapshot", type=int64, metavar="ID")
    sub.add_argument("--time-retained", metavar="DURATION", help="e.g. '1 d', '12 h'")
    sub = verb("rollback", rollback, "Roll the table back to a snapshot, a tag or a time: "
               "later snapshots and the tags on them are deleted; their files stay for "
               "remove-orphan-files unless --delete-unused-files (docs/tags.md).")
    sub.add_argument("--delete-unused-files", action="store_true",
                     help="also delete the files only the deleted snapshots and tags needed")
    target = sub.add_mutually_exclusive_group(required=True)
    target.add_argument("--snapshot", type=int64, metavar="ID")
    target.add_argument("--tag", metavar="NAME")
    target.add_argument("--timestamp-ms", type=int64, metavar="T",
                        help="the latest snapshot committed at or before T (epoch ms)")
