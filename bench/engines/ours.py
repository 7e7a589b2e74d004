"""paimon_rowid: the embedded row-id jobs, and the Ray ones when paimon_rowid.ray exists."""
from __future__ import annotations

from typing import List

import pyarrow as pa

from bench.engines import EngineUnavailable
from bench.engines.base import Engine, RayMixin, self_update_clauses, upsert_clauses

try:
    import paimon_rowid
    from paimon_rowid import row_id_jobs as _row_ids
    from paimon_rowid.row_id_ranges import process_row_id_ranges as _process_row_id_ranges
except ImportError as _error:  # pragma: no cover - reported by the orchestrator
    raise EngineUnavailable(f"paimon_rowid is not importable: {_error}") from _error


class Ours(Engine):
    name = "ours"
    lib = paimon_rowid

    def describe(self):
        info = super().describe()
        try:
            from paimon_rowid._internal._lib import native
            info["native_module"] = native().__file__
        except Exception as error:  # noqa: BLE001 - descriptive only
            info["native_module"] = f"unavailable: {error}"
        return info

    def update_by_row_id(self, warehouse, identifier, data, columns: List[str]) -> None:
        _row_ids.update_by_row_id(identifier, data, {"warehouse": warehouse},
                                  update_cols=list(columns))

    def update_by_row_id_stream(self, warehouse, identifier, reader, columns) -> None:
        _row_ids.update_by_row_id(identifier, reader, {"warehouse": warehouse},
                                  update_cols=list(columns))

    def read_by_row_id(self, warehouse, identifier, row_ids, projection) -> pa.Table:
        return _row_ids.read_by_row_id(identifier, row_ids, self.catalog_options(warehouse),
                                       projection=list(projection))

    def process_row_id_ranges(self, warehouse, identifier, rows_per_commit, processor) -> None:
        _process_row_id_ranges(identifier, {"warehouse": warehouse},
                               rows_per_commit=rows_per_commit, processor=processor)

    def compact(self, warehouse, identifier):
        return paimon_rowid.compact(identifier, {"warehouse": warehouse})

    def bucket_join(self, warehouse, left, right, on) -> pa.Table:
        return paimon_rowid.bucket_join(left, right, {"warehouse": warehouse}, on=list(on))

    def merge_upsert(self, warehouse, identifier, source) -> None:
        paimon_rowid.merge_into(identifier, source, {"warehouse": warehouse},
                                **upsert_clauses(paimon_rowid))

    def merge_self_update(self, warehouse, identifier, column, value, condition) -> None:
        paimon_rowid.merge_into(identifier, identifier, {"warehouse": warehouse},
                                **self_update_clauses(paimon_rowid, column, value, condition))


class OursBackfill(Ours):
    """paimon_rowid's one-call ``backfill`` (the other calls are ``Ours``')."""
    name = "ours-backfill"

    def backfill_call(self, warehouse, identifier, *, column, fn, input_columns,
                      rows_per_commit, batch_size):
        return paimon_rowid.backfill(identifier, {"warehouse": warehouse}, column=column,
                                     fn=fn, input_columns=list(input_columns),
                                     rows_per_commit=rows_per_commit, batch_size=batch_size,
                                     progress=False)


class OursRay(RayMixin, Ours):
    """Hook for paimon_rowid.ray (same signatures as pypaimon.ray)."""
    name = "ours-ray"

    def __init__(self) -> None:
        try:
            from paimon_rowid import ray as ray_api
        except ImportError as error:
            raise EngineUnavailable(f"paimon_rowid.ray is not importable: {error}") from error
        missing = [f for f in ("update_by_row_id", "read_by_row_id") if not hasattr(ray_api, f)]
        if missing:
            raise EngineUnavailable(f"paimon_rowid.ray lacks {', '.join(missing)}")
        self.ray_api = ray_api
        self.start_ray()

    def update_by_row_id(self, warehouse, identifier, data, columns) -> None:
        self.ray_api.update_by_row_id(identifier, self.dataset(data), {"warehouse": warehouse},
                                      update_cols=list(columns))

    def read_by_row_id(self, warehouse, identifier, row_ids, projection) -> pa.Table:
        return self.to_arrow(self.ray_api.read_by_row_id(
            identifier, self.dataset(row_ids), {"warehouse": warehouse},
            projection=list(projection)))

    def bucket_join(self, warehouse, left, right, on) -> pa.Table:
        return self.to_arrow(self.ray_api.bucket_join(left, right, {"warehouse": warehouse},
                                                      on=list(on)))

    def merge_upsert(self, warehouse, identifier, source) -> None:
        self.ray_api.merge_into(identifier, self.dataset(source), {"warehouse": warehouse},
                                **upsert_clauses(self.ray_api))

    def merge_self_update(self, warehouse, identifier, column, value, condition) -> None:
        self.ray_api.merge_into(identifier, identifier, {"warehouse": warehouse},
                                **self_update_clauses(self.ray_api, column, value, condition))
