"""What ours and pypaimon share: pypaimon's API shape (CatalogFactory, Schema, write builder,
read builder with projection / filter / row ranges)."""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import pyarrow as pa

from bench.engines import EngineUnavailable


def build_predicate(builder, spec: Sequence[Any]):
    """``["and"|"or", [spec, ...]]`` or ``[method, field, *args]`` (a PredicateBuilder method
    name and its positional arguments after the field)."""
    method = spec[0]
    if method in ("and", "or"):
        children = [build_predicate(builder, child) for child in spec[1]]
        return (builder.and_predicates if method == "and" else builder.or_predicates)(children)
    return getattr(builder, method)(spec[1], *spec[2:])


class Engine:
    """Subclasses set ``name`` and ``lib`` (the imported top-level module)."""

    name = ""
    lib: Any = None

    def describe(self) -> Dict[str, Any]:
        return {"engine": self.name, "library": self.lib.__name__,
                "library_file": os.path.dirname(self.lib.__file__),
                "version": getattr(self.lib, "__version__", None),
                "pyarrow": pa.__version__}

    # -- tables ------------------------------------------------------------------------------
    @staticmethod
    def catalog_options(warehouse: Any) -> Dict[str, str]:
        """``warehouse``: a path or URI, or the whole catalog options (an object-store
        warehouse with its endpoint and keys, bench/s3_io.py)."""
        if isinstance(warehouse, Mapping):
            return dict(warehouse)
        return {"warehouse": warehouse}

    def catalog(self, warehouse: Any):
        return self.lib.CatalogFactory.create(self.catalog_options(warehouse))

    def create_table(self, warehouse: str, identifier: str, schema: pa.Schema,
                     options: Mapping[str, str]) -> None:
        catalog = self.catalog(warehouse)
        catalog.create_database(identifier.split(".", 1)[0], True)
        catalog.create_table(identifier, self.lib.Schema.from_pyarrow_schema(
            schema, options=dict(options)), False)

    def prepare_target(self, warehouse: str, identifier: str) -> None:
        """Untimed, on a mutating round's own copy of the table: what a side sets up once
        (pypaimon-rust-ray: its Rust options on the table). Nothing by default."""

    def get_table(self, warehouse: str, identifier: str,
                  options: Optional[Mapping[str, str]] = None):
        """``options``: dynamic options applied with ``table.copy`` (e.g. blob-as-descriptor)."""
        table = self.catalog(warehouse).get_table(identifier)
        return table.copy(dict(options)) if options else table

    def conform(self, table, data: pa.Table) -> pa.Table:
        """What a caller must do to the data before ``write_arrow`` (nothing for ours)."""
        return data

    def write_commits(self, table, batches: List[pa.Table]) -> None:
        """One write + commit per batch."""
        for data in batches:
            builder = table.new_batch_write_builder()
            write, commit = builder.new_write(), builder.new_commit()
            try:
                write.write_arrow(self.conform(table, data))
                commit.commit(write.prepare_commit())
            finally:
                write.close()
                commit.close()

    def scan(self, table, projection: Optional[List[str]] = None,
             filter: Optional[Sequence[Any]] = None, row_ranges: Optional[List[Any]] = None
             ) -> pa.Table:
        """``row_ranges``: the library's own ``Range`` objects (as ``process_row_id_ranges``
        hands them to a processor), pushed down with ``scan.with_row_ranges``."""
        builder = table.new_read_builder()
        if projection is not None:
            builder.with_projection(list(projection))
        if filter is not None:
            builder.with_filter(build_predicate(builder.new_predicate_builder(), filter))
        scan = builder.new_scan()
        if row_ranges is not None:
            scan.with_row_ranges(list(row_ranges))
        return builder.new_read().to_arrow(scan.plan().splits())

    # -- row-id jobs -------------------------------------------------------------------------
    def update_by_row_id(self, warehouse: str, identifier: str, data: pa.Table,
                         columns: List[str]) -> None:
        raise NotImplementedError

    def update_by_row_id_stream(self, warehouse: str, identifier: str,
                                reader: pa.RecordBatchReader, columns: List[str]) -> None:
        """The same update from a stream; engines whose API takes only a Table read it whole."""
        self.update_by_row_id(warehouse, identifier, reader.read_all(), columns)

    def read_by_row_id(self, warehouse: str, identifier: str, row_ids: pa.Table,
                       projection: List[str]) -> pa.Table:
        """``(*projection, _ROW_ID)`` for the distinct ids of ``row_ids["_ROW_ID"]``, any order."""
        raise NotImplementedError

    def process_row_id_ranges(self, warehouse: str, identifier: str, rows_per_commit: int,
                              processor: Callable[[List[Any]], None]) -> None:
        """The library's non-Ray ``process_row_id_ranges`` (the processor gets its Ranges)."""
        raise NotImplementedError

    def compact(self, warehouse: str, identifier: str) -> Dict[str, Any]:
        """Data-evolution compaction of every due file group, one COMPACT commit; returns the
        library's figures (only ours has it: pypaimon 2.1.0 has no such call)."""
        raise NotImplementedError

    def bucket_join(self, warehouse: str, left: str, right: str, on: List[str]) -> pa.Table:
        """The inner join of two co-bucketed tables on their bucket key: left columns, then
        right non-key columns."""
        raise NotImplementedError


    # -- merge_into (issue 19) ----------------------------------------------------------------
    def merge_upsert(self, warehouse: str, identifier: str, source: pa.Table) -> None:
        """MERGE ON id: WHEN MATCHED UPDATE SET x = s.x, WHEN NOT MATCHED INSERT *."""
        raise NotImplementedError

    def merge_self_update(self, warehouse: str, identifier: str, column: str, value: Any,
                          condition: str) -> None:
        """The self-merge ON _ROW_ID: WHEN MATCHED AND condition UPDATE SET column = value."""
        raise NotImplementedError


def upsert_clauses(lib) -> Dict[str, Any]:
    """The upsert's merge_into keywords, built with ``lib``'s clause classes."""
    return dict(on=["id"], when_matched=[lib.WhenMatched.update({"x": "s.x"})],
                when_not_matched=[lib.WhenNotMatched(insert="*")])


def self_update_clauses(lib, column: str, value: Any, condition: str) -> Dict[str, Any]:
    return dict(on=["_ROW_ID"], when_matched=[
        lib.WhenMatched.update({column: lib.lit(value)}, condition=condition)])


class RayMixin:
    """Starts a local Ray and its workers (untimed, in ``start_ray``) and turns Datasets back
    into Arrow tables."""

    def start_ray(self) -> None:
        try:
            import ray
        except ImportError as error:
            raise EngineUnavailable(f"ray is not importable here: {error}") from error
        self.ray = ray
        if not ray.is_initialized():
            # address="local": a Ray of its own, even when another cluster runs on this
            # machine (ray.init() would join that one, and refuse num_cpus).
            ray.init(address="local", num_cpus=os.cpu_count(), include_dashboard=False,
                     log_to_driver=False, configure_logging=False)
            self.warm_workers()

    def warm_workers(self) -> None:
        """Ray's own start-up, before the clock as ``ray.init`` is: one task per CPU, at the
        same time, so each lands on its own worker, which starts and imports Ray Data (~0.7 s
        here on the first Ray Data call of a fresh Ray, the same for both sides: it used to be
        inside the first round's ``from_arrow``). The libraries' own modules stay cold on the
        workers: each side's tasks import them inside the clock."""
        @self.ray.remote(num_cpus=1)
        def _start() -> int:
            import time

            import ray.data  # noqa: F401 - what any Ray Data task's worker imports first
            time.sleep(0.05)  # hold the CPU so the next task starts its own worker
            return os.getpid()

        self.ray.get([_start.remote() for _ in range(os.cpu_count() or 1)])

    def dataset(self, data: pa.Table):
        return self.ray.data.from_arrow(data)

    def to_arrow(self, dataset) -> pa.Table:
        refs = dataset.to_arrow_refs()
        tables = [t for t in self.ray.get(refs) if t.num_rows]
        return pa.concat_tables(tables) if tables else dataset.schema().empty_table()
