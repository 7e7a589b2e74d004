"""The time-travel keys of a table handle, and pinning a handle to one snapshot. A leaf module
(imports nothing of the package): the row-id jobs and the TableUpdate calls both pin."""
from __future__ import annotations

from typing import Any, Dict, Optional

#: The engine's Table::kReadSchemaIdOption: the schema id a pinned handle reads with.
READ_SCHEMA_ID = "paimon-rowid.read.schema-id"
TIME_TRAVEL_KEYS = ["scan.snapshot-id", "scan.tag-name", "scan.watermark", "scan.timestamp",
                    "scan.timestamp-millis"]


def pin_snapshot(table: Any, snapshot: Any) -> Any:
    """A handle of ``table`` reading exactly ``snapshot``: its other time-travel keys removed,
    its schema kept (``READ_SCHEMA_ID``): the latest snapshot may predate an alter, whose
    columns a job on the latest table must still see."""
    return pin_snapshot_id(table, int(snapshot.id), int(table.table_schema.id))


def pin_snapshot_id(table: Any, snapshot_id: int, schema_id: int) -> Any:
    """``pin_snapshot`` by ids: a handle of ``table`` reading snapshot ``snapshot_id`` with
    schema ``schema_id`` (a Ray task pins the driver's snapshot with the driver's schema)."""
    overrides: Dict[str, Optional[str]] = {k: None for k in TIME_TRAVEL_KEYS
                                           if k in table.options}
    overrides["scan.snapshot-id"] = str(snapshot_id)
    overrides[READ_SCHEMA_ID] = str(schema_id)
    return table.copy(overrides)
