"""The CLI's ``index`` verbs (docs/global-index.md, "Command line"): ``index create``,
``index drop`` and ``index list`` over a table's global indexes. Registered by
``cli.build_parser`` (which passes its helpers in, so this module imports none of it)."""
from __future__ import annotations

import argparse
from typing import Any, Callable, Dict, List, Optional, TextIO

from .table.global_index import list_global_indexes


def _partition_spec(text: str) -> Dict[str, str]:
    """``k=v[,k2=v2]``: one partition spec."""
    spec: Dict[str, str] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise argparse.ArgumentTypeError(f"expected KEY=VALUE[,KEY=VALUE], got '{text}'")
        spec[key.strip()] = value
    return spec


def add_index_verbs(verbs: Any, common: argparse.ArgumentParser, *,
                    table_of: Callable[[argparse.Namespace], Any],
                    key_value: Callable[[str], tuple],
                    dump: Callable[[Any, TextIO], None]) -> None:
    """Adds ``index create|drop|list`` to ``verbs`` (cli.build_parser's subparsers)."""
    index = verbs.add_parser("index", help="Create, drop or list the table's global indexes "
                             "(btree, bitmap; docs/global-index.md).",
                             description="Create, drop or list the table's global indexes.")
    actions = index.add_subparsers(dest="index_action", required=True)

    def action(name: str, run: Callable[[argparse.Namespace, TextIO], None],
               help_text: str) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, parents=[common], help=help_text, description=help_text)
        sub.add_argument("warehouse", metavar="WAREHOUSE",
                         help="the warehouse: a path or an s3:// or oss:// URI")
        sub.add_argument("table", metavar="TABLE", help="the table, as DB.TABLE")
        sub.set_defaults(run=run)
        return sub

    def partitions(args: argparse.Namespace) -> Optional[List[Dict[str, str]]]:
        return list(args.partition) if args.partition else None

    def create(args: argparse.Namespace, out: TextIO) -> None:
        options = dict(args.build_option or [])
        added = table_of(args).create_global_index(args.column, index_type=args.type,
                                                   partitions=partitions(args),
                                                   options=options or None,
                                                   progress=args.progress)
        if args.json:
            dump({"files_added": added}, out)
        else:
            out.write(f"added {added} {args.type} index file(s) on {args.column}\n")

    def drop(args: argparse.Namespace, out: TextIO) -> None:
        dropped = table_of(args).drop_global_index(args.column, index_type=args.type,
                                                   partitions=partitions(args),
                                                   dry_run=args.dry_run)
        if args.json:
            dump({"files_dropped": dropped, "dry_run": args.dry_run}, out)
        else:
            verb = "would drop" if args.dry_run else "dropped"
            out.write(f"{verb} {dropped} {args.type} index file(s) on {args.column}\n")

    def list_(args: argparse.Namespace, out: TextIO) -> None:
        for entry in list_global_indexes(table_of(args)):
            if args.json:
                dump(dict(entry, row_range=list(entry["row_range"])), out)
            else:
                where = ",".join(f"{k}={v}" for k, v in entry["partition"].items()) or "-"
                lo, hi = entry["row_range"]
                out.write(f"{entry['index_type']}\t{entry['column']}\t{where}\t{lo}-{hi}\t"
                          f"{entry['row_count']}\t{entry['file_size']}\t"
                          f"{entry['file_name']}\n")

    for name, run, text in (
            ("create", create, "Build the index over the rows it does not cover yet, in one "
             "commit. Prints how many index files were added (0: nothing left to index)."),
            ("drop", drop, "Drop the index's live files (in the given partitions) in one "
             "commit; the files stay until expiration or orphan cleaning.")):
        sub = action(name, run, text)
        sub.add_argument("--column", required=True, help="the indexed column")
        sub.add_argument("--type", default="btree",
                         help="the index type: btree (default) or bitmap")
        sub.add_argument("--partition", type=_partition_spec, action="append",
                         metavar="K=V[,K=V]", help="only this partition (repeatable)")
        if name == "create":
            sub.add_argument("--build-option", type=key_value, action="append",
                             metavar="KEY=VALUE", help="an index option, e.g. "
                             "btree-index.bloom-filter.enabled=true (repeatable)")
            sub.add_argument("--progress", action="store_true",
                             help="show the build's progress (rows) on stderr")
        else:
            sub.add_argument("--dry-run", action="store_true",
                             help="count the files without committing")
    action("list", list_, "List the live global-index files: type, column, partition, row "
           "range, rows, bytes, file (tab-separated; --json: one object per line).")
