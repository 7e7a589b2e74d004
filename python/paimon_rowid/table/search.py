"""Vector, full-text and hybrid search over the search indexes of a data-evolution table
(docs/search.md), with pypaimon 2.1.0's builders:

    table.new_vector_search_builder()        with_vector_column, with_query_vector, with_limit,
                                             with_filter, with_partition_filter, with_option(s)
    table.new_batch_vector_search_builder()  the same with with_query_vectors
    table.new_full_text_search_builder()     with_query(column, text), with_limit, filters
    table.new_hybrid_search_builder()        add_vector_route / add_full_text_route, RRF or
                                             weighted score, with_limit, filters

``execute_local()`` returns a ``SearchResult``: the row ids ranked by score (higher is better),
``score_getter()`` and ``results()`` as pypaimon's ScoredGlobalIndexResult has them, and
``to_arrow(table, projection)`` reading the rows by row id with ``_ROW_ID`` and ``_score``.
A filter is exact: the result is the top-k among the live rows satisfying it
(``_search_exec``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

from .._internal._arrow import whole_table
from .._internal._lib import native
from . import _search_exec as engine
from .predicate import Predicate, PredicateBuilder

SCORE_COLUMN = "_score"
RRF_RANKER = "rrf"
WEIGHTED_SCORE_RANKER = "weighted_score"
_RRF_K = 60.0


class SearchResult:
    """Row ids with scores, best first (ties: smaller row id first)."""

    def __init__(self, ranked: Sequence[Tuple[int, float]]) -> None:
        self._ranked = [(int(r), float(s)) for r, s in ranked]
        self._scores = dict(self._ranked)

    @property
    def row_ids(self) -> List[int]:
        return [r for r, _ in self._ranked]

    @property
    def scores(self) -> List[float]:
        return [s for _, s in self._ranked]

    def results(self) -> List[int]:
        """The row ids, ascending (pypaimon returns them as a bitmap)."""
        return sorted(self._scores)

    def score_getter(self) -> Callable[[int], Optional[float]]:
        return self._scores.get

    def top_k(self, k: int) -> SearchResult:
        return SearchResult(self._ranked[:k])

    def is_empty(self) -> bool:
        return not self._ranked

    def __len__(self) -> int:
        return len(self._ranked)

    def __iter__(self) -> Any:
        return iter(self._ranked)

    def __repr__(self) -> str:
        return f"SearchResult({self._ranked[:10]}{'...' if len(self) > 10 else ''})"

    def to_arrow(self, table: Any, projection: Optional[Sequence[str]] = None) -> pa.Table:
        """The rows of this result in rank order: ``projection`` (default every column), then
        ``_ROW_ID`` and ``_score``. Read through the row-id read path at the table's snapshot
        (BLOB columns as the table's reads give them)."""
        columns = [f.name for f in table.fields] if projection is None else list(projection)
        columns = [c for c in columns if c not in ("_ROW_ID", SCORE_COLUMN)]
        if not self._ranked:
            schema = native().read_by_row_id_schema(table._native, columns)
            schema = pa.schema(schema) if not isinstance(schema, pa.Schema) else schema
            return schema.empty_table().append_column(SCORE_COLUMN, pa.array([], pa.float64()))
        snapshot = table.resolve_snapshot()
        index = native().RowIdIndex.build(table._native, snapshot.id)
        source = pa.table({"_ROW_ID": pa.array(self.results(), pa.int64())})
        rows = whole_table(native().read_by_row_id(table._native, source, "_ROW_ID", columns,
                                                   index, 0))
        order = {r: i for i, (r, _) in enumerate(self._ranked)}
        ids = rows.column("_ROW_ID").to_pylist()
        rows = rows.take(pa.array(sorted(range(len(ids)), key=lambda i: order[ids[i]])))
        ids = rows.column("_ROW_ID").to_pylist()
        return rows.append_column(SCORE_COLUMN, pa.array([self._scores[i] for i in ids],
                                                         pa.float64()))


class _Filters:
    """with_filter / with_partition_filter as pypaimon splits them: conjuncts on partition
    keys only go to the partition filter."""

    def __init__(self, table: Any) -> None:
        self._table = table
        self._filter: Optional[Predicate] = None
        self._partition_filter: Optional[Predicate] = None

    def with_filter(self, predicate: Optional[Predicate]) -> Any:
        if predicate is None:
            return self
        keys = set(self._table.partition_keys)
        for part in _conjuncts(predicate):
            if keys and _fields(part) <= keys:
                self._partition_filter = _and(self._partition_filter, part)
            else:
                self._filter = _and(self._filter, part)
        return self

    def with_partition_filter(self, partition_filter: Optional[Predicate]) -> Any:
        if partition_filter is None:
            return self
        keys = list(self._table.partition_keys)
        if not keys:
            raise ValueError("with_partition_filter called on a non-partitioned table")
        extras = _fields(partition_filter) - set(keys)
        if extras:
            raise ValueError(f"Partition filter must reference only partition keys ({keys}); "
                             f"got non-partition field(s): {sorted(extras)}")
        self._partition_filter = _and(self._partition_filter, partition_filter)
        return self


def _conjuncts(p: Predicate) -> List[Predicate]:
    if p.method == "and":
        return [c for child in p.children or [] for c in _conjuncts(child)]
    return [p]


def _fields(p: Predicate) -> set:
    return set(p.fields())


def _and(a: Optional[Predicate], b: Predicate) -> Predicate:
    both = None if a is None else PredicateBuilder.and_predicates([a, b])
    return b if both is None else both


class _VectorBuilderBase(_Filters):
    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self._limit = 0
        self._column: Optional[str] = None
        self._options: Dict[str, str] = {}

    def with_limit(self, limit: int) -> Any:
        self._limit = int(limit)
        return self

    def with_vector_column(self, name: str) -> Any:
        if name not in {f.name for f in self._table.fields}:
            raise ValueError(f"Vector column '{name}' not found in table schema")
        self._column = name
        return self

    def with_option(self, key: str, value: Any) -> Any:
        self._options[str(key)] = str(value)
        return self

    def with_options(self, options: Optional[Dict[str, Any]]) -> Any:
        for k, v in (options or {}).items():
            self.with_option(k, v)
        return self

    def _check(self, queries: Any, what: str) -> Tuple[str, np.ndarray]:
        if self._limit <= 0:
            raise ValueError("Limit must be positive, set via with_limit()")
        if self._column is None:
            raise ValueError("Vector column must be set via with_vector_column()")
        if queries is None:
            raise ValueError(f"{what} must be set via with_query_{what.split()[-1].lower()}()")
        matrix = np.asarray(queries, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix[None, :]
        if matrix.ndim != 2 or not np.isfinite(matrix).all():
            raise ValueError("Query vectors must be finite float vectors")
        return self._column, np.ascontiguousarray(matrix)

    def _run(self, queries: np.ndarray) -> List[SearchResult]:
        assert self._column is not None
        ranked = engine.vector_search(self._table, self._column, queries, self._limit,
                                      self._filter, self._partition_filter, self._options)
        return [SearchResult(r) for r in ranked]


class VectorSearchBuilder(_VectorBuilderBase):
    """pypaimon's VectorSearchBuilder: one query vector."""

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self._query: Any = None

    def with_query_vector(self, vector: Any) -> VectorSearchBuilder:
        self._query = vector
        return self

    def execute_local(self) -> SearchResult:
        """Searches at the table's snapshot; cost: one index search per index file of the
        column (cached readers), a filter's ``_ROW_ID`` scan, and a scan of the rows no index
        covers."""
        _, matrix = self._check(self._query, "Query vector")
        if matrix.shape[0] != 1:
            raise ValueError("Query vector must be a one-dimensional float32 array")
        return self._run(matrix)[0]

    def to_arrow(self, projection: Optional[Sequence[str]] = None) -> pa.Table:
        return self.execute_local().to_arrow(self._table, projection)


class BatchVectorSearchBuilder(_VectorBuilderBase):
    """pypaimon's BatchVectorSearchBuilder: many query vectors, one result each."""

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self._queries: Any = None

    def with_query_vectors(self, vectors: Any) -> BatchVectorSearchBuilder:
        self._queries = vectors
        return self

    def execute_batch_local(self) -> List[SearchResult]:
        _, matrix = self._check(self._queries, "Query vectors")
        return self._run(matrix)


class FullTextSearchBuilder(_Filters):
    """pypaimon's FullTextSearchBuilder: BM25 over a full-text index."""

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self._limit = 0
        self._column: Optional[str] = None
        self._query: Optional[str] = None

    def with_limit(self, limit: int) -> FullTextSearchBuilder:
        self._limit = int(limit)
        return self

    def with_query(self, field_name: str, query: str) -> FullTextSearchBuilder:
        if field_name not in {f.name for f in self._table.fields}:
            raise ValueError(f"Text column '{field_name}' not found in table schema")
        self._column, self._query = field_name, query
        return self

    def execute_local(self) -> SearchResult:
        if self._limit <= 0:
            raise ValueError("Limit must be positive, set via with_limit()")
        if self._column is None or self._query is None:
            raise ValueError("Query must be set via with_query()")
        return SearchResult(engine.full_text_search(self._table, self._column, self._query,
                                                    self._limit, self._filter,
                                                    self._partition_filter))

    def to_arrow(self, projection: Optional[Sequence[str]] = None) -> pa.Table:
        return self.execute_local().to_arrow(self._table, projection)


@dataclass
class HybridSearchRoute:
    """One route of a hybrid search: a vector or a full-text query with its own limit."""

    route_type: str
    field_name: str
    limit: int
    weight: float = 1.0
    vector: Optional[List[float]] = None
    full_text_query: Optional[str] = None
    options: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.route_type not in ("vector", "full_text"):
            raise ValueError(f"Unsupported hybrid route type: {self.route_type}")
        if not self.field_name:
            raise ValueError("Field name cannot be None or empty")
        if self.limit <= 0:
            raise ValueError(f"Limit must be positive, got: {self.limit}")
        if not math.isfinite(self.weight) or self.weight <= 0:
            raise ValueError(f"Weight must be finite and positive, got: {self.weight}")
        if self.route_type == "full_text" and self.options:
            raise ValueError("Full-text hybrid route options are not supported yet.")


class HybridSearchBuilder(_Filters):
    """pypaimon's HybridSearchBuilder: routes fused by reciprocal rank (``rrf``, k = 60,
    the default) or by min-max normalized weighted scores (``weighted_score``)."""

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self._limit = 0
        self._ranker = RRF_RANKER
        self._routes: List[HybridSearchRoute] = []

    def with_limit(self, limit: int) -> HybridSearchBuilder:
        self._limit = int(limit)
        return self

    def with_ranker(self, ranker: Optional[str]) -> HybridSearchBuilder:
        name = (ranker or "").strip().lower() or RRF_RANKER
        if name not in (RRF_RANKER, WEIGHTED_SCORE_RANKER):
            raise ValueError(f"Unsupported hybrid ranker: {ranker}")
        self._ranker = name
        return self

    def with_rrf_ranker(self) -> HybridSearchBuilder:
        return self.with_ranker(RRF_RANKER)

    def with_weighted_score_ranker(self) -> HybridSearchBuilder:
        return self.with_ranker(WEIGHTED_SCORE_RANKER)

    def add_route(self, route: HybridSearchRoute) -> HybridSearchBuilder:
        self._routes.append(route)
        return self

    def add_vector_route(self, vector_column: str, vector: Any, limit: int, weight: float = 1.0,
                         options: Optional[Dict[str, str]] = None) -> HybridSearchBuilder:
        return self.add_route(HybridSearchRoute("vector", vector_column, int(limit), weight,
                                                vector=list(vector),
                                                options=dict(options or {})))

    def add_full_text_route(self, field_name: str, query: str, limit: int, weight: float = 1.0,
                            options: Optional[Dict[str, str]] = None) -> HybridSearchBuilder:
        return self.add_route(HybridSearchRoute("full_text", field_name, int(limit), weight,
                                                full_text_query=query,
                                                options=dict(options or {})))

    def _route_result(self, route: HybridSearchRoute) -> SearchResult:
        builder: Any
        if route.route_type == "vector":
            builder = (VectorSearchBuilder(self._table).with_vector_column(route.field_name)
                       .with_query_vector(route.vector).with_options(route.options))
        else:
            builder = FullTextSearchBuilder(self._table).with_query(route.field_name,
                                                                    route.full_text_query or "")
        builder._filter, builder._partition_filter = self._filter, self._partition_filter
        return builder.with_limit(route.limit).execute_local()

    def execute_local(self) -> SearchResult:
        if self._limit <= 0:
            raise ValueError("Limit must be positive, set via with_limit()")
        if not self._routes:
            raise ValueError("Hybrid search needs at least one route")
        fused: Dict[int, float] = {}
        for route in self._routes:
            result = self._route_result(route)
            if result.is_empty():
                continue
            if self._ranker == RRF_RANKER:
                for rank, row_id in enumerate(result.row_ids):
                    fused[row_id] = fused.get(row_id, 0.0) + route.weight / (_RRF_K + rank + 1)
            else:
                lo, hi = min(result.scores), max(result.scores)
                for row_id, score in result:
                    norm = (score - lo) / (hi - lo) if hi > lo else 1.0
                    fused[row_id] = fused.get(row_id, 0.0) + route.weight * norm
        ranked = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:self._limit]
        return SearchResult(ranked)

    def to_arrow(self, projection: Optional[Sequence[str]] = None) -> pa.Table:
        return self.execute_local().to_arrow(self._table, projection)
