"""``merge_into`` conditions: SQL boolean expressions over ``s.<col>`` / ``t.<col>``, evaluated
by DataFusion (the engine pypaimon uses, so the functions, casts and NULL rules users write
against behave the same). We parse no SQL ourselves: column references are found and quoted
(``s.x`` -> ``"s.x"``, outside single-quoted literals), and DataFusion evaluates the expression
over an Arrow table whose columns carry those names.

DataFusion is an optional dependency (``pip install 'paimon-rowid[sql]'``), needed only when a
clause has a condition; it needs Python >= 3.10.
"""
from __future__ import annotations

import re
import sys
from typing import Any, List, Optional, Set

import pyarrow as pa
import pyarrow.compute as pc

# Optional, and imported on first use only: DataFusion pulls in pandas, about a quarter of a
# second that every `import paimon_rowid` would otherwise pay for conditional merges alone.
_NOT_LOADED: Any = object()
_datafusion: Any = _NOT_LOADED  # the module once loaded; None when it is not installed

_REF = re.compile(r"\b([st])\.(\w+)\b")
_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")


def require_engine() -> Any:
    """The datafusion module, or the ImportError pypaimon raises."""
    global _datafusion
    if sys.version_info[:2] < (3, 10):
        raise ImportError("merge_into condition expressions require Python 3.10 or newer")
    if _datafusion is _NOT_LOADED:
        try:
            import datafusion
            _datafusion = datafusion
        except ImportError:
            _datafusion = None
    if _datafusion is None:
        raise ImportError("merge_into condition expressions require DataFusion. Install it "
                          "with: pip install 'paimon-rowid[sql]' (or: pip install datafusion)")
    return _datafusion


def references(condition: str) -> Set[str]:
    """``{"s.x", "t.y", ...}``: the columns a condition names (outside string literals)."""
    stripped = _STRING_LITERAL.sub("", condition)
    return {f"{m.group(1)}.{m.group(2)}" for m in _REF.finditer(stripped)}


def quote_references(condition: str) -> str:
    """The condition with each ``s.x`` / ``t.x`` outside literals written ``"s.x"``."""
    parts: List[str] = []
    last = 0
    for m in _STRING_LITERAL.finditer(condition):
        parts.append(_REF.sub(r'"\1.\2"', condition[last:m.start()]))
        parts.append(m.group())
        last = m.end()
    parts.append(_REF.sub(r'"\1.\2"', condition[last:]))
    return "".join(parts)


class ConditionEvaluator:
    """Evaluates conditions over Arrow tables with ``s.*`` / ``t.*`` columns. One DataFusion
    session, one partition (input order is kept)."""

    def __init__(self) -> None:
        self._ctx: Optional[Any] = None

    def _context(self) -> Any:
        if self._ctx is None:
            engine = require_engine()
            config = engine.SessionConfig().with_target_partitions(1).set(
                "datafusion.optimizer.enable_round_robin_repartition", "false")
            self._ctx = engine.SessionContext(config)
        return self._ctx

    def true_mask(self, table: pa.Table, condition: str) -> pa.Array:
        """A boolean array, True exactly where ``condition`` is TRUE (FALSE and NULL are
        False: a row whose condition is NULL falls through to the next clause). Errors of the
        expression (syntax, types, unknown functions) are ValueErrors naming the condition."""
        if table.num_rows == 0:
            return pa.array([], pa.bool_())
        wanted = [c for c in references(condition) if c in table.column_names]
        data = table.select(sorted(wanted)) if wanted else \
            pa.table({"__rows": pa.nulls(table.num_rows, pa.int8())})
        ctx = self._context()
        name = "_merge_batch"
        ctx.register_record_batches(name, [data.combine_chunks().to_batches()])
        try:
            result = ctx.sql(f"SELECT ({quote_references(condition)}) AS m FROM {name}")
            batches = result.collect()
        except Exception as error:  # DataFusion raises its own Exception subclasses
            raise ValueError(f"merge_into condition {condition!r} failed: {error}") from error
        finally:
            ctx.deregister_table(name)
        column = pa.Table.from_batches(batches).column(0) if batches else \
            pa.chunked_array([], pa.bool_())
        if pa.types.is_null(column.type):  # a bare NULL: never TRUE
            column = pa.chunked_array([pa.nulls(len(column), pa.bool_())])
        elif column.type != pa.bool_():
            # pypaimon filters with WHERE, which DataFusion refuses for a non-boolean
            # predicate (no cast: an INT or 'true' condition is an error there too)
            raise ValueError(f"merge_into condition {condition!r} is not boolean: it gives "
                             f"{column.type}")
        if len(column) != table.num_rows:
            raise ValueError(f"merge_into condition {condition!r} gave {len(column)} values "
                             f"for {table.num_rows} rows")
        return pc.fill_null(column.combine_chunks(), False)


# ------------------------------------------------------------------------- scan pushdown

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_LEAF = {"=": "equal", "!=": "not_equal", "<": "less_than", "<=": "less_or_equal",
         ">": "greater_than", ">=": "greater_or_equal"}


def _pushable_type(data_type: pa.DataType) -> bool:
    # Comparisons whose SQL and Arrow-compute semantics agree exactly (no floats: NaN orders
    # differently; no temporal types: literal conversions differ).
    return (pa.types.is_integer(data_type) or pa.types.is_string(data_type)
            or pa.types.is_large_string(data_type) or pa.types.is_boolean(data_type))


def scan_predicate(condition: str, schema: pa.Schema, builder: Any) -> Optional[Any]:
    """A predicate (of ``builder``, a PredicateBuilder of the target) that every row making
    ``condition`` TRUE satisfies, or None. DataFusion parses and normalises the condition
    (IN, BETWEEN and NOT are rewritten into comparisons; literals are cast to the column
    types); AND keeps the conjuncts that convert, OR needs both sides. The condition is
    still evaluated on the rows read, so this only prunes."""
    engine = require_engine()
    fields = [f for f in schema if _pushable_type(f.type)]
    empty = pa.table({f"{p}.{f.name}": pa.array([], f.type) for f in schema for p in "st"})
    ctx = engine.SessionContext()
    ctx.register_record_batches("_scan", [empty.to_batches() or
                                          [pa.RecordBatch.from_pylist([], schema=empty.schema)]])
    try:
        plan = ctx.sql(f"SELECT * FROM _scan WHERE {quote_references(condition)}"
                       ).optimized_logical_plan()
    except Exception:  # noqa: BLE001 - an unparsable condition fails later, where it runs
        return None
    names = {f.name for f in fields}

    def convert(expr: Any) -> Optional[Any]:
        try:
            return convert_node(expr)
        except Exception:  # noqa: BLE001 - an expression the bindings cannot show us
            return None

    def convert_node(expr: Any) -> Optional[Any]:
        node = expr.to_variant()
        kind = type(node).__name__
        if kind == "BinaryExpr":
            op = str(node.op())
            if op in ("AND", "OR"):
                left, right = convert(node.left()), convert(node.right())
                if op == "AND":
                    parts = [p for p in (left, right) if p is not None]
                    return None if not parts else parts[0] if len(parts) == 1 else \
                        builder.and_predicates(parts)
                return None if left is None or right is None else \
                    builder.or_predicates([left, right])
            if op not in _LEAF:
                return None
            left, right = node.left().to_variant(), node.right().to_variant()
            if type(left).__name__ == "Literal" and type(right).__name__ == "Column":
                left, right, op = right, left, _FLIP[op]
                column, literal = left, node.left()
            else:
                column, literal = left, node.right()
            if type(column).__name__ != "Column" or \
                    type(literal.to_variant()).__name__ != "Literal":
                return None
            field = _field(column.name(), names)
            value = literal.python_value()
            if isinstance(value, pa.Scalar):
                value = value.as_py()
            if field is None or value is None or isinstance(value, float):
                return None
            return getattr(builder, _LEAF[op])(field, value)
        if kind in ("IsNull", "IsNotNull"):
            inner = node.expr().to_variant()
            if type(inner).__name__ != "Column":
                return None
            field = _field(inner.name(), names)
            if field is None:
                return None
            return builder.is_null(field) if kind == "IsNull" else builder.is_not_null(field)
        return None

    for node in _filters(plan):
        return convert(node.predicate())
    return None


def _field(name: str, names: Set[str]) -> Optional[str]:
    if name[:2] in ("s.", "t.") and name[2:] in names:
        return name[2:]
    return None


def _filters(plan: Any):
    node = plan.to_variant()
    if type(node).__name__ == "Filter":
        yield node
    for child in plan.inputs():
        yield from _filters(child)
