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

try:  # optional: only conditional merges need it
    import datafusion as _datafusion
except ImportError:  # pragma: no cover - exercised by the missing-extra test via monkeypatch
    _datafusion = None

_REF = re.compile(r"\b([st])\.(\w+)\b")
_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")


def require_engine() -> Any:
    """The datafusion module, or the ImportError pypaimon raises."""
    if sys.version_info[:2] < (3, 10):
        raise ImportError("merge_into condition expressions require Python 3.10 or newer")
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
