"""pypaimon 2.1.0. Without Ray the baselines are the table-level calls a pypaimon user makes:
``new_update().with_update_type(cols).update_by_arrow_with_row_id(data)`` + commit, and a read
restricted with ``with_row_ranges`` (ids turned into ranges with pypaimon's ``Range.to_ranges``,
as pypaimon.ray's read_by_row_id does per group)."""
from __future__ import annotations

from typing import List

import pyarrow as pa

from bench.engines import EngineUnavailable
from bench.engines.base import Engine, RayMixin, self_update_clauses, upsert_clauses

try:
    import pypaimon

    # The non-Ray module: pypaimon.ray's process_row_id_ranges itself needs no Ray
    # (docs/pypaimon-compat.md §3); importing pypaimon.ray does not import ray.
    from pypaimon.ray.process_row_id_ranges import process_row_id_ranges as _process_row_id_ranges
    from pypaimon.schema.data_types import PyarrowFieldParser
    from pypaimon.utils.range import Range
except ImportError as _error:  # pragma: no cover - reported by the orchestrator
    raise EngineUnavailable(f"pypaimon is not importable: {_error}") from _error

ROW_ID = "_ROW_ID"


class Pypaimon(Engine):
    name = "pypaimon"
    lib = pypaimon

    def describe(self):
        info = super().describe()
        from importlib import metadata
        info["version"] = metadata.version("pypaimon")
        return info

    def conform(self, table, data: pa.Table) -> pa.Table:
        # pypaimon's write_arrow demands the table's exact Arrow schema.
        target = PyarrowFieldParser.from_paimon_schema(table.fields)
        if data.schema.names != target.names:
            data = data.select(target.names)
        return data if data.schema.equals(target) else data.cast(target)

    def update_by_row_id(self, warehouse, identifier, data, columns: List[str]) -> None:
        table = self.get_table(warehouse, identifier)
        builder = table.new_batch_write_builder()
        update = builder.new_update().with_update_type(list(columns))
        messages = update.update_by_arrow_with_row_id(self.conform_update(table, data, columns))
        commit = builder.new_commit()
        try:
            commit.commit(messages)
        finally:
            commit.close()

    def conform_update(self, table, data: pa.Table, columns: List[str]) -> pa.Table:
        """Casts update columns whose Arrow type differs from the table's (e.g. a VECTOR's list
        field name), as pypaimon.ray.update_by_row_id does before the table-level update; a
        no-op for data that already has the table's types."""
        target = PyarrowFieldParser.from_paimon_schema(table.fields)
        for name in columns:
            i = data.schema.get_field_index(name)
            wanted = target.field(name).type
            if data.schema.field(i).type != wanted:
                data = data.set_column(i, name, data.column(i).cast(wanted))
        return data

    def read_by_row_id(self, warehouse, identifier, row_ids, projection) -> pa.Table:
        table = self.get_table(warehouse, identifier)
        builder = table.new_read_builder().with_projection(list(projection) + [ROW_ID])
        ranges = Range.to_ranges(list(set(row_ids.column(ROW_ID).to_pylist())))
        scan = builder.new_scan()
        scan.with_row_ranges(ranges)
        return builder.new_read().to_arrow(scan.plan().splits())

    def process_row_id_ranges(self, warehouse, identifier, rows_per_commit, processor) -> None:
        _process_row_id_ranges(identifier, {"warehouse": warehouse},
                               rows_per_commit=rows_per_commit, processor=processor)


    def bucket_join(self, warehouse, left, right, on) -> pa.Table:
        """pypaimon has no embedded bucket_join: this is what each task of pypaimon.ray's
        does (read both sides of a bucket fully, pyarrow hash join), one bucket after the
        other in this process."""
        sides = []
        for identifier in (left, right):
            table = self.get_table(warehouse, identifier)
            builder = table.new_read_builder()
            by_bucket: dict = {}
            for split in builder.new_scan().plan().splits():
                by_bucket.setdefault(split.bucket, []).append(split)
            sides.append((builder, by_bucket))
        (lb, lsplits), (rb, rsplits) = sides
        parts = []
        for bucket in sorted(set(lsplits) & set(rsplits)):
            lt = lb.new_read().to_arrow(lsplits[bucket])
            rt = rb.new_read().to_arrow(rsplits[bucket])
            parts.append(lt.join(rt, keys=list(on), join_type="inner"))
        return pa.concat_tables(parts)


    # pypaimon's local MERGE (table/data_evolution_merge_into.py): messages, then one commit.
    def _merge(self, table, source, clauses) -> None:
        from pypaimon import ray as clauses_lib  # the clause classes; no Ray is imported
        builder = table.new_batch_write_builder()
        messages = builder.new_update().merge_into(source, **clauses(clauses_lib))
        commit = builder.new_commit()
        try:
            commit.commit(messages)
        finally:
            commit.close()

    def merge_upsert(self, warehouse, identifier, source) -> None:
        table = self.get_table(warehouse, identifier)
        self._merge(table, self.conform(table, source), upsert_clauses)

    def merge_self_update(self, warehouse, identifier, column, value, condition) -> None:
        table = self.get_table(warehouse, identifier)
        self._merge(table, table, lambda lib: self_update_clauses(lib, column, value, condition))


class PypaimonRay(RayMixin, Pypaimon):
    name = "pypaimon-ray"

    def __init__(self) -> None:
        self.start_ray()
        from pypaimon import ray as ray_api
        self.ray_api = ray_api

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
        table = self.get_table(warehouse, identifier)
        self.ray_api.merge_into(identifier, self.dataset(self.conform(table, source)),
                                {"warehouse": warehouse}, **upsert_clauses(self.ray_api))

    def merge_self_update(self, warehouse, identifier, column, value, condition) -> None:
        self.ray_api.merge_into(identifier, identifier, {"warehouse": warehouse},
                                **self_update_clauses(self.ray_api, column, value, condition))


class _Native:
    """pypaimon with its Rust backend (pypaimon-rust): the table options of
    ``bench.peers.NATIVE_OPTIONS`` on every table handle, as a user switches it on."""

    def __init__(self) -> None:
        try:
            import pypaimon_rust  # noqa: F401 - only probing that the backend is installed
        except ImportError as error:
            raise EngineUnavailable(f"pypaimon-rust is not importable: {error}") from error
        from bench.peers import NATIVE_OPTIONS
        self.native_options = dict(NATIVE_OPTIONS)

    def get_table(self, warehouse, identifier, options=None):
        return Pypaimon.get_table(self, warehouse, identifier,
                                  {**self.native_options, **dict(options or {})})


class PypaimonRust(_Native, Pypaimon):
    name = "pypaimon-rust"

    def _merge(self, table, source, clauses) -> None:
        # pypaimon 2.1.0's native MERGE path calls BatchTableUpdate.merge_into, which
        # pypaimon-rust 0.4.0 lacks (AttributeError): a user merges with the native writer off
        # (reads stay native).
        Pypaimon._merge(self, table.copy({"write.native.enabled": "false"}), source, clauses)



class PypaimonRustRay(_Native, PypaimonRay):
    """pypaimon.ray with the Rust backend. Its read_by_row_id takes table options per call
    (``dynamic_options``, applied with ``table.copy``); its update_by_row_id takes none, so
    the options are set on the round's copy of the table before the clock
    (``prepare_target``), as a user switches the backend on for good."""
    name = "pypaimon-rust-ray"

    def __init__(self) -> None:
        _Native.__init__(self)
        PypaimonRay.__init__(self)

    def prepare_target(self, warehouse, identifier) -> None:
        from pypaimon import CatalogFactory
        from pypaimon.schema.schema_change import SchemaChange
        catalog = CatalogFactory.create({"warehouse": warehouse})
        catalog.alter_table(identifier, [SchemaChange.set_option(k, v)
                                         for k, v in self.native_options.items()], False)

    def read_by_row_id(self, warehouse, identifier, row_ids, projection) -> pa.Table:
        return self.to_arrow(self.ray_api.read_by_row_id(
            identifier, self.dataset(row_ids), {"warehouse": warehouse},
            projection=list(projection), dynamic_options=dict(self.native_options)))

    def _no_options(self, *_args, **_kwargs):
        raise EngineUnavailable("pypaimon.ray's bucket_join and merge_into take no table "
                                "options: the same as pypaimon-ray here")

    bucket_join = merge_upsert = merge_self_update = _no_options
