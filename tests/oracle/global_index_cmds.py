"""Oracle commands for global indexes (run inside the pypaimon venv by driver.py).

``create_global_index`` / ``drop_global_index``: pypaimon's builders, committed.
``global_index_eval``: pypaimon's index evaluation of a filter, *not* swallowing errors (its
scan does: a failure there silently falls back to a full scan), as row ids and the unindexed
ranges. ``global_index_read``: pypaimon's filtered read with the number of IndexedSplits it
planned. ``global_index_entries``: the live global-index entries as pypaimon reads them.
"""
import pyarrow as pa


def _table(cmd):
    from pypaimon import CatalogFactory
    options = {str(k): str(v) for k, v in (cmd.get("catalog_options") or {}).items()}
    options["warehouse"] = cmd["warehouse"]
    table = CatalogFactory.create(options).get_table(cmd["identifier"])
    if cmd.get("options"):
        table = table.copy(dict(cmd["options"]))
    return table


def cmd_create_global_index(cmd):
    table = _table(cmd)
    return table.create_global_index(cmd["column"], index_type=cmd.get("index_type", "btree"),
                                     partitions=cmd.get("partitions"),
                                     options=cmd.get("build_options"))


def cmd_drop_global_index(cmd):
    table = _table(cmd)
    return table.drop_global_index(cmd["column"], index_type=cmd.get("index_type", "btree"),
                                   partitions=cmd.get("partitions"),
                                   dry_run=bool(cmd.get("dry_run", False)))


def cmd_global_index_eval(cmd, build_predicate):
    from pypaimon.globalindex.data_evolution_global_index_scanner import (
        DataEvolutionGlobalIndexScanner,
    )
    table = _table(cmd)
    predicate = build_predicate(table.new_read_builder().new_predicate_builder(), cmd["filter"])
    scanner = DataEvolutionGlobalIndexScanner.create(table, predicate=predicate)
    if scanner is None:
        return None
    with scanner:
        evaluation = scanner.scan_with_coverage(predicate)
        if evaluation is None:
            return {"row_ids": None}
        mode = table.options.scalar_index_search_mode()
        unindexed = scanner.unindexed_ranges(
            predicate, search_mode=mode,
            contributing_field_ids=evaluation.contributing_field_ids)
        return {"row_ids": sorted(evaluation.result.results().to_list()),
                "exact": evaluation.result.is_exact(),
                "unindexed": [[r.from_, r.to] for r in unindexed]}


def cmd_global_index_read(cmd, build_predicate, write_ipc):
    from pypaimon.globalindex.indexed_split import IndexedSplit
    table = _table(cmd)
    builder = table.new_read_builder()
    builder.with_filter(build_predicate(builder.new_predicate_builder(), cmd["filter"]))
    splits = builder.new_scan().plan().splits()
    result = builder.new_read().to_arrow(splits)
    if result is None:
        result = pa.table({})
    write_ipc(cmd["out_ipc"], result)
    indexed = [s for s in splits if isinstance(s, IndexedSplit)]
    return {"num_rows": result.num_rows, "num_splits": len(splits),
            "indexed_splits": len(indexed),
            "indexed_ranges": sorted([r.from_, r.to] for s in indexed for r in s.row_ranges())}


def cmd_global_index_entries(cmd):
    from pypaimon.index.index_file_handler import IndexFileHandler
    table = _table(cmd)
    snapshot = table.snapshot_manager().get_latest_snapshot()
    out = []
    for entry in IndexFileHandler(table).scan(snapshot):
        meta = entry.index_file
        g = meta.global_index_meta
        if g is None:
            continue
        out.append({"kind": int(entry.kind), "bucket": entry.bucket,
                    "partition": [v if v is None or isinstance(v, (str, int, float, bool))
                                  else str(v) for v in entry.partition.values],
                    "index_type": meta.index_type, "file_name": meta.file_name,
                    "file_size": meta.file_size, "row_count": meta.row_count,
                    "range": [g.row_range_start, g.row_range_end],
                    "field_id": g.index_field_id, "extra": g.extra_field_ids,
                    "index_meta": None if g.index_meta is None else bytes(g.index_meta).hex()})
    return sorted(out, key=lambda e: (e["range"], e["file_name"]))
