"""pypaimon oracle driver. Runs INSIDE pypaimon's virtualenv (pypaimon 2.1.0, pyarrow 19).

Usage: ``python driver.py '<json command>'`` or ``python driver.py -`` (command on stdin), or
``python driver.py --serve`` (many commands, one per line: see ``serve``; the harness's way).
Prints exactly one JSON line on stdout: ``{"ok": true, "result": ...}`` or
``{"ok": false, "error_type": "...", "message": "...", "traceback": "..."}``.
Data goes in and out as Arrow IPC *files* (paths in the command).

Every command carries ``warehouse``; table commands carry ``identifier`` ("db.table").
Any command may carry ``catalog_options`` ({str: str}, e.g. an S3 endpoint and keys),
merged into the catalog's options (a ``warehouse`` in them must equal the command's);
a ``batch`` passes its ``warehouse`` and ``catalog_options`` to sub-commands without them.
Commands:
  create_table   schema_ipc, partition_keys=[], primary_keys=[], options={},
                 ignore_if_exists=false         -> {}
  write          data_ipc, conform=true (cast the data to the table schema first; false hands
                 it to write_arrow as is)     -> {"snapshot_id": int|None}  (one commit)
                 messages_out=None: the data files only, the messages pickled there (for
                 commit_messages), no commit       -> {}
  update_by_row_id  data_ipc (with _ROW_ID), columns
                                                -> {"snapshot_id": int|None}  (one commit)
  create_tag     tag, snapshot_id=None          -> {}
  read           out_ipc, projection=None, filter=None, row_ranges=None ([[from, to], ...]),
                 snapshot_id=None, tag=None, options=None, limit=None
                                                -> {"num_rows", "snapshot_id", "num_splits"}
  snapshot       snapshot_id=None (latest)      -> snapshot JSON object or None
  schema         -                              -> {"fields": [...], "arrow": "<str>"}
  files          snapshot_id=None (latest)      -> manifest lists, manifests and data files the
                                                   snapshot reads (data files relative to the table)
  batch          commands=[...]                 -> [reply, ...] (one reply per command, as below)
  entries        snapshot_id=None (latest), delta=false
                                                -> the snapshot's manifest entries (all live
                                                   files, or with delta=true the snapshot's own
                                                   ADD/DELETE entries): kind, partition,
                                                   bucket, file_name, first_row_id, row_count,
                                                   write_cols, min/max_sequence_number,
                                                   file_source, schema_id
  truncate_partitions  partitions=[{key: value}, ...]   -> {"snapshot_id": int|None}
  add_columns    schema_ipc (the new columns, appended in order)    -> {}
  delete_by_row_id  row_ids, messages_out=None  -> {"snapshot_id", "num_messages", "index_files"}
                 (new_update().delete_by_row_id, committed; with messages_out the messages are
                 pickled there instead, for commit_messages)
  delete_by_predicate  filter=None (spec as for read), messages_out=None   -> as delete_by_row_id
  commit_messages  messages_in (a messages_out file)   -> {"snapshot_id": int|None}
  merge_into     source_ipc (or source_self=true: the table object itself, a self-merge;
                 source_table: another table's identifier, its table object is the source;
                 source_str: a string, passed as is), on,
                 when_matched=[], when_not_matched=[] (clauses as merge_spec.py encodes them)
                                                -> {"num_messages", "snapshot_id"}
                 (pypaimon's LOCAL merge: new_update().merge_into(...), committed)
  index_manifest snapshot_id=None (latest)      -> None when the snapshot has no index manifest,
                 else {"name", "codec", "schema" (Avro writer schema), "records" (raw, bytes as
                 {"hex"}), "entries": pypaimon's parse, each with its index file's "path"
                 (table-relative), "size" on disk, "version" (first byte) and "dvs": per
                 data file {data_file, offset, length, cardinality, positions (pypaimon's
                 DeletionVector.read), "stored_hex" (the framed bitmap bytes on disk),
                 "pypaimon_hex" (pypaimon's serialization of the same positions)}}
  vector_search / full_text_search / hybrid_search   see search_cmds.py
Filter spec (JSON): ["and", [spec...]] | ["or", [spec...]] | [method, field, [args...]] where
method is a PredicateBuilder method name and args are its positional arguments after the field,
literals encoded with literals.py.
"""
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import global_index_cmds  # noqa: E402
import literals  # noqa: E402
import merge_spec  # noqa: E402
import pyarrow as pa  # noqa: E402
import search_cmds  # noqa: E402


def _catalog_options(cmd):
    """The command's catalog options: ``warehouse`` plus its ``catalog_options``, if any."""
    options = {str(k): str(v) for k, v in (cmd.get("catalog_options") or {}).items()}
    if options.get("warehouse", cmd["warehouse"]) != cmd["warehouse"]:
        raise ValueError(f"catalog_options names warehouse {options['warehouse']!r} but the "
                         f"command's warehouse is {cmd['warehouse']!r}")
    options["warehouse"] = cmd["warehouse"]
    return options


def _catalog(cmd):
    from pypaimon import CatalogFactory
    return CatalogFactory.create(_catalog_options(cmd))


def _table(cmd):
    return _catalog(cmd).get_table(cmd["identifier"])


def _read_ipc(path):
    with pa.OSFile(path, "rb") as source:
        return pa.ipc.open_file(source).read_all()


def _write_ipc(path, table):
    with pa.OSFile(path, "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)


def _latest_snapshot_id(table):
    snapshot = table.snapshot_manager().get_latest_snapshot()
    return None if snapshot is None else snapshot.id


def _conform(table, data):
    """Casts input data to the table's exact Arrow schema (pypaimon's write_arrow demands it)."""
    from pypaimon.schema.data_types import PyarrowFieldParser
    target = PyarrowFieldParser.from_paimon_schema(table.fields)
    if data.schema.names != target.names:
        data = data.select(target.names)
    return data.cast(target) if not data.schema.equals(target) else data


def cmd_create_table(cmd):
    from pypaimon import Schema
    catalog = _catalog(cmd)
    database = cmd["identifier"].split(".", 1)[0]
    catalog.create_database(database, True)
    pa_schema = _read_ipc(cmd["schema_ipc"]).schema
    schema = Schema.from_pyarrow_schema(
        pa_schema, partition_keys=cmd.get("partition_keys") or None,
        primary_keys=cmd.get("primary_keys") or None, options=cmd.get("options") or None)
    catalog.create_table(cmd["identifier"], schema, bool(cmd.get("ignore_if_exists", False)))
    return {}


def cmd_write(cmd):
    table = _table(cmd)
    data = _read_ipc(cmd["data_ipc"])
    if cmd.get("conform", True):
        data = _conform(table, data)
    builder = table.new_batch_write_builder()
    if "overwrite" in cmd:
        builder.overwrite(cmd["overwrite"])
    write = builder.new_write()
    commit = builder.new_commit()
    try:
        if data.num_rows or "overwrite" not in cmd:
            write.write_arrow(data)
        if cmd.get("messages_out"):  # the data files only: the messages pickled, no commit
            import pickle
            with open(cmd["messages_out"], "wb") as sink:
                pickle.dump(write.prepare_commit(), sink)
            return {}
        commit.commit(write.prepare_commit())
    finally:
        write.close()
        commit.close()
    return {"snapshot_id": _latest_snapshot_id(table)}


def _commit_update(table, builder, messages):
    """Commits commit messages; how many there were and the latest snapshot."""
    commit = builder.new_commit()
    try:
        commit.commit(messages)
    finally:
        commit.close()
    return {"num_messages": len(messages), "snapshot_id": _latest_snapshot_id(table)}


def cmd_update_by_row_id(cmd):
    table = _table(cmd)
    data = _read_ipc(cmd["data_ipc"])
    builder = table.new_batch_write_builder()
    update = builder.new_update().with_update_type(list(cmd["columns"]))
    return _commit_update(table, builder, update.update_by_arrow_with_row_id(data))


def cmd_create_tag(cmd):
    table = _table(cmd)
    table.create_tag(cmd["tag"], snapshot_id=cmd.get("snapshot_id"), ignore_if_exists=False)
    return {}


def cmd_tag_op(cmd):
    """pypaimon's table-level tag and rollback calls: ``op`` is one of create (tag,
    snapshot_id, time_retained), replace, rename (tag, new_name), delete, list, rollback
    (target: int or str), rollback_ts (millis); list returns the names, delete the bool.
    The catalog's calls (a REST catalog sends them to the server's tag endpoints):
    catalog_create (tag, snapshot_id), catalog_list (names), catalog_delete (tag)."""
    op = cmd["op"]
    if op.startswith("catalog_"):
        catalog = _catalog(cmd)
        if op == "catalog_create":
            catalog.create_tag(cmd["identifier"], cmd["tag"], cmd.get("snapshot_id"))
        elif op == "catalog_list":
            return {"tags": sorted(catalog.list_tags_paged(cmd["identifier"]).elements)}
        elif op == "catalog_delete":
            catalog.delete_tag(cmd["identifier"], cmd["tag"])
        else:
            raise ValueError(f"unknown tag op {op!r}")
        return {}
    table = _table(cmd)
    if op == "create":
        table.create_tag(cmd["tag"], snapshot_id=cmd.get("snapshot_id"),
                         ignore_if_exists=bool(cmd.get("ignore_if_exists")),
                         time_retained=cmd.get("time_retained"))
    elif op == "replace":
        table.replace_tag(cmd["tag"], cmd.get("snapshot_id"), cmd.get("time_retained"))
    elif op == "rename":
        table.rename_tag(cmd["tag"], cmd["new_name"])
    elif op == "delete":
        return {"deleted": table.delete_tag(cmd["tag"])}
    elif op == "list":
        return {"tags": sorted(table.list_tags())}
    elif op == "rollback":
        table.rollback_to(cmd["target"])
    elif op == "rollback_ts":
        table.rollback_to_timestamp(cmd["millis"])
    else:
        raise ValueError(f"unknown tag op {op!r}")
    return {}


def cmd_partition_op(cmd):
    """pypaimon's catalog partition calls: ``op`` create (partitions, ignore_if_exists) or
    drop (partitions)."""
    catalog = _catalog(cmd)
    if cmd["op"] == "create":
        catalog.create_partitions(cmd["identifier"], cmd["partitions"],
                                  bool(cmd.get("ignore_if_exists", True)))
    elif cmd["op"] == "drop":
        catalog.drop_partitions(cmd["identifier"], cmd["partitions"])
    else:
        raise ValueError(f"unknown partition op {cmd['op']!r}")
    return {}


def cmd_list_partitions(cmd):
    """pypaimon's catalog.list_partitions_paged: the page's partitions and token."""
    page = _catalog(cmd).list_partitions_paged(
        cmd["identifier"], max_results=cmd.get("max_results"), page_token=cmd.get("page_token"),
        partition_name_pattern=cmd.get("pattern"))
    return {"partitions": [{"spec": p.spec, "record_count": p.record_count,
                            "file_size_in_bytes": p.file_size_in_bytes,
                            "file_count": p.file_count, "total_buckets": p.total_buckets,
                            "last_file_creation_time": p.last_file_creation_time,
                            "done": p.done}
                           for p in page.elements],
            "next_page_token": page.next_page_token}


def _build_predicate(builder, spec):
    method = spec[0]
    if method in ("and", "or"):
        children = [_build_predicate(builder, child) for child in spec[1]]
        combine = builder.and_predicates if method == "and" else builder.or_predicates
        return combine(children)
    field, args = spec[1], literals.decode(spec[2] if len(spec) > 2 else [])
    return getattr(builder, method)(field, *args)


def cmd_read(cmd):
    from pypaimon.utils.range import Range
    table = _table(cmd)
    options = dict(cmd.get("options") or {})
    if cmd.get("snapshot_id") is not None:
        options["scan.snapshot-id"] = str(cmd["snapshot_id"])
    if cmd.get("tag") is not None:
        options["scan.tag-name"] = cmd["tag"]
    if options:
        table = table.copy(options)
    read_builder = table.new_read_builder()
    if cmd.get("projection") is not None:
        read_builder.with_projection(list(cmd["projection"]))
    if cmd.get("filter") is not None:
        read_builder.with_filter(
            _build_predicate(read_builder.new_predicate_builder(), cmd["filter"]))
    if cmd.get("limit") is not None:
        read_builder.with_limit(int(cmd["limit"]))
    scan = read_builder.new_scan()
    if cmd.get("row_ranges") is not None:
        scan.with_row_ranges([Range(int(a), int(b)) for a, b in cmd["row_ranges"]])
    plan = scan.plan()
    splits = plan.splits()
    result = read_builder.new_read().to_arrow(splits)
    _write_ipc(cmd["out_ipc"], result)
    return {"num_rows": result.num_rows, "snapshot_id": getattr(plan, "snapshot_id", None),
            "num_splits": len(splits)}


def cmd_snapshot(cmd):
    from pypaimon.common.json_util import JSON
    manager = _table(cmd).snapshot_manager()
    snapshot_id = cmd.get("snapshot_id")
    snapshot = (manager.get_latest_snapshot() if snapshot_id is None
                else manager.get_snapshot_by_id(int(snapshot_id)))
    return None if snapshot is None else json.loads(JSON.to_json(snapshot))


def cmd_files(cmd):
    """The metadata and data files a snapshot (default latest) reads: its manifest lists,
    their manifests, and the data files of a full plan (relative to the table path)."""
    from pypaimon.manifest.manifest_list_manager import ManifestListManager
    table = _table(cmd)
    manager = table.snapshot_manager()
    snapshot_id = cmd.get("snapshot_id")
    snapshot = (manager.get_latest_snapshot() if snapshot_id is None
                else manager.get_snapshot_by_id(int(snapshot_id)))
    if snapshot is None:
        return None
    lists = ManifestListManager(table)
    base = [m.file_name for m in lists.read_base(snapshot)]
    delta = [m.file_name for m in lists.read_delta(snapshot)]
    if snapshot_id is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot.id)})
    root = str(table.table_path).rstrip("/")
    data_files = []
    for split in table.new_read_builder().new_scan().plan().splits():
        for path in split.file_paths:
            path = str(path)
            data_files.append(path[len(root) + 1:] if path.startswith(root) else path)
    return {"snapshot_id": snapshot.id, "schema_id": snapshot.schema_id,
            "base_manifest_list": snapshot.base_manifest_list,
            "delta_manifest_list": snapshot.delta_manifest_list,
            "base_manifests": base, "delta_manifests": delta, "data_files": data_files}


def cmd_schema(cmd):
    from pypaimon.schema.data_types import PyarrowFieldParser
    table = _table(cmd)
    return {"fields": [f.to_dict() for f in table.fields],
            "arrow": str(PyarrowFieldParser.from_paimon_schema(table.fields))}


def cmd_batch(cmd):
    """Runs every command (one pypaimon import for all); each gets its own reply."""
    replies = []
    for sub in cmd["commands"]:
        merged = dict(sub)
        merged.setdefault("warehouse", cmd.get("warehouse"))
        if cmd.get("catalog_options") and "catalog_options" not in merged:
            merged["catalog_options"] = cmd["catalog_options"]
        replies.append(_reply(merged))
    return replies


def _json_value(value):
    """A stats value as JSON: strings as they are, bytes as {"hex": ...}, others via str()."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {"hex": bytes(value).hex()}
    return str(value)


def _value_stats(meta):
    """pypaimon's decoding of a file's value stats: columns, min, max and null counts."""
    stats = meta.value_stats
    arity = len(stats.min_values)
    return {"cols": None if meta.value_stats_cols is None else list(meta.value_stats_cols),
            "min": [_json_value(stats.min_values.get_field(i)) for i in range(arity)],
            "max": [_json_value(stats.max_values.get_field(i)) for i in range(arity)],
            "null_counts": None if stats.null_counts is None else list(stats.null_counts)}


def _entry_dict(entry, with_stats=False):
    meta = entry.file
    partition = [v if v is None or isinstance(v, (str, int, float, bool)) else str(v)
                 for v in entry.partition.values]  # JSON-safe (dates, decimals: str)
    return {"kind": int(entry.kind), "partition": partition,
            "bucket": entry.bucket, "file_name": meta.file_name,
            "first_row_id": meta.first_row_id, "row_count": meta.row_count,
            "write_cols": None if meta.write_cols is None else list(meta.write_cols),
            "min_sequence_number": meta.min_sequence_number,
            "max_sequence_number": meta.max_sequence_number,
            "file_source": meta.file_source, "schema_id": meta.schema_id,
            **({"value_stats": _value_stats(meta)} if with_stats else {})}


def cmd_entries(cmd):
    """Manifest entries of a snapshot (default latest): with delta=true only the entries the
    snapshot itself added/deleted, else the merged live files (kind 0 = ADD). With stats=true
    each entry also carries its decoded value stats."""
    from pypaimon.manifest.manifest_file_manager import ManifestFileManager
    from pypaimon.manifest.manifest_list_manager import ManifestListManager
    table = _table(cmd)
    manager = table.snapshot_manager()
    snapshot_id = cmd.get("snapshot_id")
    snapshot = (manager.get_latest_snapshot() if snapshot_id is None
                else manager.get_snapshot_by_id(int(snapshot_id)))
    if snapshot is None:
        return None
    lists = ManifestListManager(table)
    files = ManifestFileManager(table)
    if cmd.get("delta"):
        entries = []
        for manifest in lists.read_delta(snapshot):
            entries.extend(files.read(manifest.file_name, drop_stats=not cmd.get("stats")))
        return [_entry_dict(e, cmd.get("stats")) for e in entries]
    live = {}
    for manifest in lists.read_all(snapshot):
        for entry in files.read(manifest.file_name, drop_stats=not cmd.get("stats")):
            key = (tuple(entry.partition.values), entry.bucket, entry.file.file_name)
            if int(entry.kind) == 0:
                live[key] = entry
            else:
                live.pop(key, None)
    return [_entry_dict(e, cmd.get("stats")) for e in live.values()]


def cmd_truncate_partitions(cmd):
    table = _table(cmd)
    commit = table.new_batch_write_builder().new_commit()
    try:
        commit.truncate_partitions([dict(p) for p in cmd["partitions"]])
    finally:
        commit.close()
    return {"snapshot_id": _latest_snapshot_id(table)}


def cmd_add_columns(cmd):
    from pypaimon.schema.data_types import PyarrowFieldParser
    from pypaimon.schema.schema_change import SchemaChange
    changes = [SchemaChange.add_column(f.name, PyarrowFieldParser.to_paimon_type(f.type,
                                                                             f.nullable))
               for f in _read_ipc(cmd["schema_ipc"]).schema]
    _catalog(cmd).alter_table(cmd["identifier"], changes, False)
    return {}


def _delete_result(table, builder, messages, cmd):
    """Commits delete messages (or pickles them to ``messages_out``)."""
    result = {"num_messages": len(messages),
              "index_files": [e.index_file.file_name for m in messages for e in m.index_adds]}
    if cmd.get("messages_out"):
        import pickle
        with open(cmd["messages_out"], "wb") as sink:
            pickle.dump(messages, sink)
        return result
    commit = builder.new_commit()
    try:
        commit.commit(messages)
    finally:
        commit.close()
    result["snapshot_id"] = _latest_snapshot_id(table)
    return result


def cmd_alter_table(cmd):
    """pypaimon's ``alter_table`` with changes given in their JSON form (as
    ``paimon_rowid.schema.schema_change`` writes them): one schema file."""
    from pypaimon.schema.data_types import DataTypeParser
    from pypaimon.schema.schema_change import Move, MoveType, SchemaChange

    def move(m):
        return None if m is None else Move(m["fieldName"], m.get("referenceFieldName"),
                                           MoveType(m["type"]))

    def dtype(t):
        return DataTypeParser.parse_data_type(t)

    build = {
        "setOption": lambda c: SchemaChange.set_option(c["key"], c["value"]),
        "removeOption": lambda c: SchemaChange.remove_option(c["key"]),
        "updateComment": lambda c: SchemaChange.update_comment(c.get("comment")),
        "addColumn": lambda c: SchemaChange.add_column(c["fieldNames"], dtype(c["dataType"]),
                                                       c.get("comment"), move(c.get("move"))),
        "renameColumn": lambda c: SchemaChange.rename_column(c["fieldNames"], c["newName"]),
        "dropColumn": lambda c: SchemaChange.drop_column(c["fieldNames"]),
        "updateColumnType": lambda c: SchemaChange.update_column_type(
            c["fieldNames"], dtype(c["newDataType"]), bool(c.get("keepNullability"))),
        "updateColumnNullability": lambda c: SchemaChange.update_column_nullability(
            c["fieldNames"], bool(c["newNullability"])),
        "updateColumnComment": lambda c: SchemaChange.update_column_comment(
            c["fieldNames"], c.get("newComment")),
        "updateColumnPosition": lambda c: SchemaChange.update_column_position(move(c["move"])),
    }
    changes = [build[c["action"]](c) for c in cmd["changes"]]
    _catalog(cmd).alter_table(cmd["identifier"], changes, bool(cmd.get("ignore_if_not_exists")))
    return {}


def cmd_delete_by_row_id(cmd):
    table = _table(cmd)
    builder = table.new_batch_write_builder()
    messages = builder.new_update().delete_by_row_id(list(cmd["row_ids"]))
    return _delete_result(table, builder, messages, cmd)


def _filter_of(table, cmd):
    """The command's ``filter`` as a pypaimon predicate (None when absent)."""
    if cmd.get("filter") is None:
        return None
    return _build_predicate(table.new_read_builder().new_predicate_builder(), cmd["filter"])


def cmd_delete_by_predicate(cmd):
    table = _table(cmd)
    builder = table.new_batch_write_builder()
    messages = builder.new_update().delete_by_predicate(_filter_of(table, cmd))
    return _delete_result(table, builder, messages, cmd)


def cmd_update_by_predicate(cmd):
    """pypaimon's ``new_update().update_by_predicate(filter, assignments)``, committed; an
    assignment is ``{"literal": v}`` or ``{"array": [...]}`` (a pa.array of the values)."""
    import pyarrow as pa
    table = _table(cmd)
    builder = table.new_batch_write_builder()
    predicate = _filter_of(table, cmd)
    assignments = {col: (pa.array(v["array"]) if "array" in v else v["literal"])
                   for col, v in cmd["assignments"].items()}
    messages = builder.new_update().update_by_predicate(predicate, assignments)
    return _commit_update(table, builder, messages)


def cmd_upsert_by_key(cmd):
    """pypaimon's ``new_update()[.with_update_type(cols)].upsert_by_arrow_with_key(data,
    keys)``, committed."""
    table = _table(cmd)
    data = _read_ipc(cmd["data_ipc"])
    builder = table.new_batch_write_builder()
    update = builder.new_update()
    if cmd.get("update_cols"):
        update.with_update_type(list(cmd["update_cols"]))
    messages = update.upsert_by_arrow_with_key(data, list(cmd["keys"]))
    return _commit_update(table, builder, messages)


def cmd_merge_into(cmd):
    """pypaimon's local MERGE (``new_update().merge_into``), committed in one commit."""
    from pypaimon.table import data_evolution_merge_into as api
    table = _table(cmd)
    if cmd.get("source_self"):
        source = table
    elif "source_str" in cmd:
        source = cmd["source_str"]
    elif "source_table" in cmd:
        source = _catalog(cmd).get_table(cmd["source_table"])
    else:
        source = _read_ipc(cmd["source_ipc"])
    builder = table.new_batch_write_builder()
    messages = builder.new_update().merge_into(
        source, on=cmd["on"],
        when_matched=merge_spec.decode_matched(api, cmd.get("when_matched")),
        when_not_matched=merge_spec.decode_not_matched(api, cmd.get("when_not_matched")))
    return _commit_update(table, builder, messages)


def cmd_shard_double(cmd):
    """pypaimon's new_shard_updator, for every shard of ``shards``: reads column ``col`` and
    writes back twice its value (the fixed transform the tests compare); one commit."""
    import pyarrow as pa
    import pyarrow.compute as pc
    table = _table(cmd)
    builder = table.new_batch_write_builder()
    messages = []
    for shard in range(cmd["shards"]):
        update = builder.new_update()
        update.with_read_projection([cmd["col"]])
        update.with_update_type([cmd["col"]])
        updator = update.new_shard_updator(shard, cmd["shards"])
        for batch in updator.arrow_reader():
            doubled = pc.multiply(batch.column(0), 2).cast(batch.schema.field(0).type)
            updator.update_by_arrow_batch(pa.RecordBatch.from_arrays(
                [doubled], names=[cmd["col"]]))
        messages.extend(updator.prepare_commit())
    return _commit_update(table, builder, messages)


def cmd_commit_messages(cmd):
    import pickle
    table = _table(cmd)
    with open(cmd["messages_in"], "rb") as source:
        messages = pickle.load(source)
    return _commit_update(table, table.new_batch_write_builder(), messages)


def _avro_json(value):
    if isinstance(value, dict):
        return {k: _avro_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_avro_json(v) for v in value]
    return _json_value(value)


def cmd_index_manifest(cmd):
    """The snapshot's index manifest: raw Avro and pypaimon's reading of it and of every
    deletion vector it names."""
    import fastavro
    from pypaimon.deletionvectors.deletion_vector import DeletionVector
    from pypaimon.manifest.index_manifest_file import IndexManifestFile
    from pypaimon.table.source.deletion_file import DeletionFile
    table = _table(cmd)
    manager = table.snapshot_manager()
    snapshot_id = cmd.get("snapshot_id")
    snapshot = (manager.get_latest_snapshot() if snapshot_id is None
                else manager.get_snapshot_by_id(int(snapshot_id)))
    if snapshot is None or not snapshot.index_manifest:
        return None
    root = str(table.table_path).rstrip("/")
    with open(f"{root}/manifest/{snapshot.index_manifest}", "rb") as source:
        reader = fastavro.reader(source)
        raw = {"codec": reader.codec, "schema": reader.writer_schema,
               "records": [_avro_json(r) for r in reader]}
    entries = []
    for entry in IndexManifestFile(table).read(snapshot.index_manifest):
        meta = entry.index_file
        path = table.path_factory().bucket_index_path(
            tuple(entry.partition.values), entry.bucket, meta, table.file_io)
        path = str(path)
        local = path[len("file://"):] if path.startswith("file://") else path
        with open(local, "rb") as source:
            data = source.read()
        dvs = []
        for name, dv in (meta.dv_ranges or {}).items():
            vector = DeletionVector.read(table.file_io, DeletionFile(
                dv_index_path=path, offset=dv.offset, length=dv.length,
                cardinality=dv.cardinality))
            dvs.append({"data_file": name, "offset": dv.offset, "length": dv.length,
                        "cardinality": dv.cardinality,
                        "positions": sorted(vector.bit_map()),
                        "stored_hex": data[dv.offset:dv.offset + dv.length + 8].hex(),
                        "pypaimon_hex": vector.serialize().hex()})
        entries.append({
            "kind": int(entry.kind),
            "partition": [v if v is None or isinstance(v, (str, int, float, bool)) else str(v)
                          for v in entry.partition.values],
            "bucket": entry.bucket, "index_type": meta.index_type,
            "file_name": meta.file_name, "file_size": meta.file_size,
            "row_count": meta.row_count, "external_path": meta.external_path,
            "global_index": meta.global_index_meta is not None,
            "path": local[len(root) + 1:] if local.startswith(root) else local,
            "size": len(data), "version": data[0] if data else None, "dvs": dvs})
    return {"name": snapshot.index_manifest, **raw, "entries": entries}


COMMANDS = {
    "alter_table": cmd_alter_table,
    "create_table": cmd_create_table, "write": cmd_write,
    "update_by_row_id": cmd_update_by_row_id, "create_tag": cmd_create_tag,
    "tag_op": cmd_tag_op, "list_partitions": cmd_list_partitions,
    "partition_op": cmd_partition_op,
    "read": cmd_read, "snapshot": cmd_snapshot, "schema": cmd_schema, "files": cmd_files,
    "batch": cmd_batch,
    "entries": cmd_entries, "truncate_partitions": cmd_truncate_partitions,
    "add_columns": cmd_add_columns,
    "delete_by_row_id": cmd_delete_by_row_id, "delete_by_predicate": cmd_delete_by_predicate,
    "commit_messages": cmd_commit_messages, "update_by_predicate": cmd_update_by_predicate,
    "index_manifest": cmd_index_manifest, "upsert_by_key": cmd_upsert_by_key,
    "shard_double": cmd_shard_double, "merge_into": cmd_merge_into,
    "create_global_index": global_index_cmds.cmd_create_global_index,
    "drop_global_index": global_index_cmds.cmd_drop_global_index,
    "global_index_entries": global_index_cmds.cmd_global_index_entries,
    "global_index_eval": lambda cmd: global_index_cmds.cmd_global_index_eval(
        cmd, _build_predicate),
    "global_index_read": lambda cmd: global_index_cmds.cmd_global_index_read(
        cmd, _build_predicate, _write_ipc),
    "vector_search": lambda cmd: search_cmds.cmd_vector_search(
        cmd, global_index_cmds._table, _build_predicate),
    "full_text_search": lambda cmd: search_cmds.cmd_full_text_search(
        cmd, global_index_cmds._table, _build_predicate),
    "hybrid_search": lambda cmd: search_cmds.cmd_hybrid_search(cmd, global_index_cmds._table),
}


def cmd_harness_info(cmd):
    """The driver's pid, stdout-noise and an environment variable (tests of the harness)."""
    print("a library printing on stdout")  # must not be taken for the reply
    return {"pid": os.getpid(), "env": os.environ.get(cmd.get("env_name") or "", None)}


def cmd_harness_exit(cmd):
    """Ends the driver at once with ``code``, as a crash of a native library would."""
    sys.stderr.write("harness_exit: dying\n")
    sys.stderr.flush()
    os._exit(int(cmd.get("code", 3)))


COMMANDS["harness_info"] = cmd_harness_info
COMMANDS["harness_exit"] = cmd_harness_exit


def run(cmd):
    name = cmd.get("cmd")
    if name not in COMMANDS:
        raise ValueError(f"unknown oracle command {name!r}; known: {sorted(COMMANDS)}")
    return COMMANDS[name](cmd)


def _reply(cmd):
    try:
        return {"ok": True, "result": run(cmd)}
    except BaseException as error:  # report everything, including SystemExit from libraries
        return {"ok": False, "error_type": type(error).__name__, "message": str(error),
                "traceback": traceback.format_exc()}


#: Starts each reply line of ``--serve`` (anything else on stdout, from native code, is not one).
REPLY_MARK = "\x1eoracle-reply "


def _forget_process_state():
    """pypaimon's process-wide state that must not outlive a command in a served driver: the
    REST data tokens cached by table name (class attributes of RESTTokenFileIO), which another
    test's server would otherwise be handed."""
    try:
        from pypaimon.catalog.rest.rest_token_file_io import RESTTokenFileIO
    except ImportError:
        return
    for name in ("_TOKEN_CACHE", "_TOKEN_LOCKS"):
        cache = getattr(RESTTokenFileIO, name, None)
        if isinstance(cache, dict):
            cache.clear()


def serve():
    """``driver.py --serve``: one JSON command per stdin line, one reply line (REPLY_MARK +
    JSON) each on stdout, until stdin closes. Python-level prints of a command go to stderr, so
    they cannot be taken for a reply. Saves pypaimon's import (about a second) per command."""
    replies = sys.stdout
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
        except ValueError as error:
            cmd = {"cmd": "invalid-json", "error": str(error)}
        _forget_process_state()
        reply = _reply(cmd)
        sys.stderr.flush()
        replies.write(REPLY_MARK + json.dumps(reply) + "\n")
        replies.flush()
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--serve":
        return serve()
    text = sys.stdin.read() if len(argv) < 2 or argv[1] == "-" else argv[1]
    try:
        cmd = json.loads(text)
    except ValueError as error:
        cmd = {"cmd": "invalid-json", "error": str(error)}
    reply = _reply(cmd)
    sys.stdout.write("\n" + json.dumps(reply) + "\n")
    sys.stdout.flush()
    return 0 if reply["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
