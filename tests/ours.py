"""Small helpers over our own Python API, shared by the suites (the pypaimon side lives in
tests/oracle): a catalog, a table created in database "db", one-commit writes."""
from __future__ import annotations

import os
from typing import Dict, List, Optional

import pyarrow as pa


def catalog(warehouse):
    """Our catalog over a warehouse path, or over a dict of catalog options (an S3 warehouse
    with its endpoint and keys)."""
    from paimon_rowid import CatalogFactory
    if isinstance(warehouse, dict):
        return CatalogFactory.create(dict(warehouse))
    return CatalogFactory.create({"warehouse": str(warehouse)})


def create_table(warehouse, name: str, schema: pa.Schema, options: Dict[str, str],
                 partition_keys: Optional[List[str]] = None):
    """Creates db.<name> (and db) and returns the table."""
    from paimon_rowid import Schema
    cat = catalog(warehouse)
    cat.create_database("db", True)
    cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(
        schema, partition_keys=partition_keys, options=options), False)
    return cat.get_table(f"db.{name}")


def write(table, data: pa.Table) -> None:
    """Appends ``data`` as one commit; the writer and committer are closed either way."""
    builder = table.new_batch_write_builder()
    writer, committer = builder.new_write(), builder.new_commit()
    try:
        writer.write_arrow(data)
        committer.commit(writer.prepare_commit())
    finally:
        writer.close()
        committer.close()


def three_commit_table(warehouse):
    """db.t (id BIGINT, name STRING), a data-evolution table with three 10-row commits (ids
    0..29, name "n<id>"): the CLI suites' table. Returns the table."""
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    table = create_table(warehouse, "t", schema,
                         {"row-tracking.enabled": "true", "data-evolution.enabled": "true"})
    for start in (0, 10, 20):
        write(table, pa.table({"id": pa.array(range(start, start + 10), pa.int64()),
                               "name": [f"n{i}" for i in range(start, start + 10)]}))
    return table


def rchar() -> int:
    """Bytes this process has read through syscalls so far (``/proc/self/io``)."""
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def files(warehouse) -> List[str]:
    """Every file under ``warehouse``, sorted: compared before/after a call that must leave
    nothing behind."""
    out = []
    for root, _, names in os.walk(str(warehouse)):
        out.extend(os.path.join(root, n) for n in names)
    return sorted(out)


def s3_unreferenced_keys(oracle, s3_server, options: Dict[str, str],
                         identifier: str) -> List[str]:
    """The objects under a table on the local S3 server (``s3_server``; empty directory
    markers aside) that no snapshot of the table references, table-relative and sorted:
    what a job must not leave behind. Referenced: each snapshot file and the LATEST/EARLIEST
    hints, the schema files the snapshots use (and schema-0), and each snapshot's manifest
    lists, manifests and data files (``.blob`` files too) as pypaimon lists them (``files``
    for every snapshot id, one oracle process)."""
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create(options).get_table(identifier)
    table_uri = table.path.rstrip("/")
    prefix = table_uri.split("/", 3)[3] + "/"  # s3://bucket/<prefix>
    stored = {k[len(prefix):] for k in s3_server.list_keys(table_uri + "/")
              if not k.endswith("/")}
    referenced = {"snapshot/LATEST", "snapshot/EARLIEST", "schema/schema-0"}
    latest = table.latest_snapshot()
    if latest is not None:
        remote = oracle.with_catalog_options(
            {k: v for k, v in options.items() if k != "warehouse"})
        replies = remote.run_all([{"cmd": "files", "warehouse": options["warehouse"],
                                   "identifier": identifier, "snapshot_id": i}
                                  for i in range(1, latest.id + 1)])
        for i, listed in enumerate(replies, start=1):
            referenced.add(f"snapshot/snapshot-{i}")
            referenced.add(f"schema/schema-{listed['schema_id']}")
            referenced.update(f"manifest/{name}" for name in (
                [listed["base_manifest_list"], listed["delta_manifest_list"]]
                + listed["base_manifests"] + listed["delta_manifests"]))
            referenced.update(listed["data_files"])
    return sorted(stored - referenced)
