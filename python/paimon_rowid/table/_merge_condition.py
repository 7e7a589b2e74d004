"""``merge_into`` conditions: one SQL boolean expression over ``s.<col>`` / ``t.<col>``.

A condition goes through two steps (docs/merge-into.md, "Conditions"):

1. **Compiled once, on the driver, before anything is read** (:func:`compile_condition`).
   sqlglot (Postgres dialect, the SQL DataFusion follows) tokenizes and parses the text as ONE
   expression: trailing text, several statements, comments, subqueries, aggregates, windows,
   parameters and columns other than ``s.x`` / ``t.x`` are a ValueError naming the condition.
   The text handed to the evaluator is the user's own text, token for token, with each column
   reference written as one quoted name (``s.x`` -> ``"s.x"``); nothing is re-generated, so
   DataFusion sees the functions, casts and literals exactly as written (as pypaimon's does).
   Long AND/OR chains (``a OR b OR ... ``, 20,000 terms) are re-associated into a balanced tree
   (AND and OR are associative in SQL's three-valued logic): DataFusion's planner is quadratic
   in a chain's depth and overflows its stack past a few thousand. Any other nesting deeper than
   ``MAX_DEPTH`` is refused. Cost: linear in the text (20,000 terms: ~0.35 s of CPU).
2. **Evaluated per batch by DataFusion** (:class:`ConditionEvaluator`): the referenced columns
   plus a row-number column become one DataFusion table, the condition is parsed by DataFusion
   as an expression (never spliced into a statement) and selected beside the row numbers; the
   mask is placed by those row numbers, so it is aligned by row, never by result position.

DataFusion and sqlglot are the optional ``sql`` extra (``pip install 'paimon-rowid[sql]'``),
needed only when a clause has a condition; conditions need Python >= 3.10.
"""
from __future__ import annotations

import functools
import gc
import re
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Deepest nesting of one condition, AND/OR chains aside (each chain is balanced first).
MAX_DEPTH = 128
#: AND/OR chains with more operands than this are re-associated into a balanced tree.
BALANCE_FROM = 16
# DataFusion's SQL parser stops at 50 nested levels by default; a balanced chain of 20,000
# terms plus MAX_DEPTH fits well below this (and far below what its stack holds).
_PARSER_RECURSION_LIMIT = 1024
_ROW = "__merge_row"  # the row-number column (never a reference: those hold a dot)
_TABLE = "_merge_batch"

# Optional, and imported on first use only: DataFusion pulls in pandas, about a quarter of a
# second that every `import paimon_rowid` would otherwise pay for conditional merges alone.
_NOT_LOADED: Any = object()
_datafusion: Any = _NOT_LOADED  # the module once loaded; None when it is not installed
_sqlglot: Any = _NOT_LOADED


def require_engine() -> Any:
    """The datafusion module (and sqlglot loaded), or the ImportError pypaimon raises."""
    global _datafusion, _sqlglot
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
    if _sqlglot is _NOT_LOADED:
        try:
            import sqlglot.dialects.postgres
            import sqlglot.expressions
            import sqlglot.tokens
            _sqlglot = sqlglot
        except ImportError:
            _sqlglot = None
    if _sqlglot is None:
        raise ImportError("merge_into condition expressions require sqlglot (to parse them). "
                          "Install it with: pip install 'paimon-rowid[sql]' (or: pip install "
                          "sqlglot)")
    return _datafusion


# ------------------------------------------------------------------------------ compiling


@dataclass(frozen=True)
class Condition:
    """A compiled condition: ``text`` as written, ``sql`` for DataFusion (references quoted,
    long AND/OR chains balanced), ``refs`` the columns it names (``"s.x"``, ``"t.y"``)."""
    text: str
    sql: str
    refs: Tuple[str, ...]

    def refs_of(self, prefix: str) -> List[str]:
        """The column names it references on one side (``"s"`` or ``"t"``), sorted."""
        return [r[2:] for r in self.refs if r.startswith(prefix + ".")]


def shown(text: str) -> str:
    """The condition as error messages quote it (a long one cut at 200 characters)."""
    return repr(text) if len(text) <= 200 else repr(text[:200]) + f"... ({len(text)} characters)"


def _refused(text: str, why: str) -> ValueError:
    return ValueError(f"merge_into condition {shown(text)} {why}")


_QUOTED_REF = re.compile(r"^[st]\..+", re.S)
_WORD = re.compile(r"\w+")


def _forbidden(exp: Any) -> Tuple[Tuple[Any, str], ...]:
    return ((exp.Query, "a subquery"), (exp.Subquery, "a subquery"), (exp.Exists, "a subquery"),
            (exp.AggFunc, "an aggregate function"), (exp.Window, "a window function"),
            (exp.Placeholder, "a parameter"), (exp.Parameter, "a parameter"),
            (exp.SessionParameter, "a parameter"), (exp.Star, "'*'"), (exp.Alias, "an alias"),
            (exp.Table, "a table"), (exp.Dot, "a dotted name (write s.col['field'] for a "
                                               "field of a struct)"))


def _column_ref(text: str, column: Any) -> str:
    """``"s.x"`` for a Column node of the tree, or a ValueError."""
    parts = column.parts  # Identifiers, outermost qualifier first
    if len(parts) == 2 and not parts[0].quoted and parts[0].name in ("s", "t") and \
            column.name != "*":
        return f"{parts[0].name}.{column.name}"
    if len(parts) == 1 and parts[0].quoted and _QUOTED_REF.match(column.name):
        return column.name  # already written "s.x"
    name = ".".join(p.name for p in parts)
    raise _refused(text, f"names the column {name!r}: columns are written s.<column> (source) "
                         "or t.<column> (target)")


def _token_refs(text: str, tokens: List[Any]) -> Tuple[Dict[int, Tuple[int, str]], List[str]]:
    """The column references in the token stream: {first token: (tokens spanned, the text that
    replaces them)} and the references in order. ``s . x`` (x any name, quoted or not, keywords
    too) is one reference, as is a quoted ``"s.x"``."""
    T = _sqlglot.tokens.TokenType
    out: Dict[int, Tuple[int, str]] = {}
    refs: List[str] = []
    k = 0
    n = len(tokens)
    while k < n:
        tok = tokens[k]
        after_dot = k > 0 and tokens[k - 1].token_type == T.DOT
        if not after_dot and tok.token_type == T.VAR and tok.text in ("s", "t") and \
                k + 2 < n and tokens[k + 1].token_type == T.DOT and \
                (tokens[k + 2].token_type == T.IDENTIFIER or
                 _WORD.fullmatch(tokens[k + 2].text or "")):
            ref = f"{tok.text}.{tokens[k + 2].text}"
            out[k] = (3, '"' + ref.replace('"', '""') + '"')
            refs.append(ref)
            k += 3
            continue
        if not after_dot and tok.token_type == T.IDENTIFIER and _QUOTED_REF.match(tok.text):
            refs.append(tok.text)  # kept as written
        k += 1
    return out, refs


class _Renderer:
    """Renders token ranges of the condition as DataFusion text, balancing long chains."""

    def __init__(self, text: str, tokens: List[Any], replaced: Dict[int, Tuple[int, str]]):
        self.text, self.tokens = text, tokens
        self.exp = _sqlglot.expressions
        T = _sqlglot.tokens.TokenType
        self.T = T
        # per token: the text before it (whitespace) and its own text (a reference's first
        # token carries the whole quoted name, the two after it nothing)
        self.piece: List[str] = []
        self.gap: List[str] = []
        skip = 0
        for k, tok in enumerate(tokens):
            gap = text[tokens[k - 1].end + 1:tok.start] if k else ""
            if skip:
                skip -= 1
                self.piece.append("")
                self.gap.append("")
                continue
            self.gap.append(gap)
            if k in replaced:
                span, quoted = replaced[k]
                self.piece.append(quoted)
                skip = span - 1
            else:
                self.piece.append(text[tok.start:tok.end + 1])
        self.opens = {T.L_PAREN, T.L_BRACKET, T.L_BRACE, T.CASE}
        self.closes = {T.R_PAREN, T.R_BRACKET, T.R_BRACE, T.END}

    def verbatim(self, lo: int, hi: int) -> str:
        return "".join(self.gap[k] + self.piece[k] for k in range(lo, hi)).strip()

    def _split(self, lo: int, hi: int, op: Any) -> List[Tuple[int, int]]:
        """Token ranges between the top-level ``op`` tokens (OR / AND) of ``[lo, hi)``; the AND
        of a BETWEEN at the same level does not split."""
        T = self.T
        depth, between = 0, False
        bounds, start = [], lo
        for k in range(lo, hi):
            if k and self.tokens[k - 1].token_type == T.DOT:
                continue  # a name (s.end, s.or), whatever keyword it spells
            kind = self.tokens[k].token_type
            if kind in self.opens:
                depth += 1
            elif kind in self.closes:
                depth -= 1
            elif depth == 0 and kind == T.BETWEEN:
                between = True
            elif depth == 0 and kind == op:
                if op == T.AND and between:
                    between = False
                    continue
                bounds.append((start, k))
                start = k + 1
        bounds.append((start, hi))
        return bounds

    def _closes_at_end(self, lo: int, hi: int) -> bool:
        """Whether the parenthesis at ``lo`` is closed by the one at ``hi - 1``."""
        depth = 0
        for k in range(lo, hi):
            if k and self.tokens[k - 1].token_type == self.T.DOT:
                continue
            kind = self.tokens[k].token_type
            if kind in self.opens:
                depth += 1
            elif kind in self.closes:
                depth -= 1
                if depth == 0:
                    return k == hi - 1
        return False

    def render(self, lo: int, hi: int, node: Any) -> str:
        exp, T = self.exp, self.T
        kind = type(node)
        if kind is exp.Paren and self.tokens[lo].token_type == T.L_PAREN and \
                self.tokens[hi - 1].token_type == T.R_PAREN and self._closes_at_end(lo, hi):
            return "(" + self.render(lo + 1, hi - 1, node.this) + ")"
        if kind in (exp.Or, exp.And):
            operands = _chain(node, kind)
            ranges = self._split(lo, hi, T.OR if kind is exp.Or else T.AND)
            if len(ranges) != len(operands):  # not the token layout we know: keep it whole
                if len(operands) > BALANCE_FROM:
                    raise _refused(self.text, "has a chain of AND/OR this engine cannot split")
                return self.verbatim(lo, hi)
            parts = [self.render(a, b, child) for (a, b), child in zip(ranges, operands)]
            word = " OR " if kind is exp.Or else " AND "
            if len(parts) <= BALANCE_FROM:
                return word.join(parts)
            parts = ["(" + p + ")" for p in parts]
            while len(parts) > 1:
                parts = ["(" + parts[i] + word + parts[i + 1] + ")" if i + 1 < len(parts)
                         else parts[i] for i in range(0, len(parts), 2)]
            return parts[0]
        return self.verbatim(lo, hi)


def _chain(node: Any, kind: Any) -> List[Any]:
    """The operands of a chain of ``kind`` (AND or OR) nodes, left to right, iteratively."""
    out: List[Any] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if type(item) is kind:
            stack.append(item.expression)
            stack.append(item.this)
        else:
            out.append(item)
    return out


def _check_tree(text: str, tree: Any) -> List[str]:
    """Refuses what a condition may not contain and nesting beyond MAX_DEPTH (links of an
    AND/OR chain do not count: the chain is balanced); returns the column references."""
    exp = _sqlglot.expressions
    forbidden = _forbidden(exp)
    any_forbidden = tuple(kind for kind, _ in forbidden)
    chains = (exp.And, exp.Or)
    refs: List[str] = []
    stack: List[Tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _refused(text, f"nests deeper than {MAX_DEPTH} levels")
        if isinstance(node, any_forbidden):
            what = next(w for kind, w in forbidden if isinstance(node, kind))
            raise _refused(text, f"may not contain {what}: a condition is one expression "
                                 "over the columns of one source row and one target row")
        kind = type(node)
        if isinstance(node, exp.Column):
            refs.append(_column_ref(text, node))
            continue
        chain = kind in chains
        for child in node.iter_expressions():
            stack.append((child, depth if chain and type(child) is kind else depth + 1))
    return refs


def compile_condition(text: str) -> Condition:
    """Parses ``text`` as one boolean SQL expression over ``s.*`` / ``t.*`` columns (see the
    module doc); a ValueError says why it is not one (a TypeError when it is not a str).
    Linear in the text; cached."""
    if not isinstance(text, str):
        raise TypeError(f"merge_into condition must be a str, got {type(text).__name__}")
    require_engine()
    return _compile_cached(text)


@functools.lru_cache(maxsize=256)
def _compile_cached(text: str) -> Condition:
    # The parse allocates a few objects per character: the cyclic collector, run every 700
    # allocations, would double its time (they are freed by reference counting anyway).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _compile(text)
    finally:
        if collecting:
            gc.enable()


def _compile(text: str) -> Condition:
    errors = _sqlglot.errors
    dialect = _sqlglot.dialects.postgres.Postgres()
    T = _sqlglot.tokens.TokenType
    try:
        tokens = list(dialect.tokenize(text))
    except errors.TokenError as error:
        raise _refused(text, f"is not valid SQL: {error}") from None
    if not tokens:
        raise _refused(text, "is empty")
    for tok in tokens:
        if tok.token_type == T.SEMICOLON:
            raise _refused(text, "is not one expression (';' separates statements)")
        if tok.token_type == T.HEREDOC_STRING:
            raise _refused(text, "uses a dollar-quoted string; write '...' instead")
    try:
        parsed = dialect.parser().parse_into(_sqlglot.expressions.Condition, tokens, text)
    except errors.ParseError as error:
        first = error.errors[0] if getattr(error, "errors", None) else {}
        where = f" (line {first.get('line')}, column {first.get('col')})" if first else ""
        what = first.get("description", str(error)) if first else str(error)
        raise _refused(text, f"is not one SQL expression: {what}{where}") from None
    except RecursionError:
        raise _refused(text, f"nests deeper than {MAX_DEPTH} levels") from None
    if len(parsed) != 1 or parsed[0] is None:
        raise _refused(text, "is not one SQL expression")
    if any(tok.comments for tok in tokens):
        raise _refused(text, "contains a comment; a condition is one SQL expression, "
                             "without comments")
    tree = parsed[0]
    refs = _check_tree(text, tree)
    replaced, token_refs = _token_refs(text, tokens)
    if sorted(token_refs) != sorted(refs):  # the tree and the text must name the same columns
        raise _refused(text, "has column references this engine cannot place: write them as "
                             "s.<column> or t.<column>")
    sql = _Renderer(text, tokens, replaced).render(0, len(tokens), tree)
    return Condition(text, sql, tuple(sorted(set(refs))))


# ------------------------------------------------------------------------------ evaluating


class ConditionEvaluator:
    """Evaluates compiled conditions over Arrow tables with ``s.*`` / ``t.*`` columns. One
    DataFusion session; ``partitions`` > 1 evaluates a table in that many parts in parallel
    (results are placed by row number either way)."""

    def __init__(self, partitions: int = 1) -> None:
        self._ctx: Optional[Any] = None
        self._partitions = max(1, int(partitions))

    def _context(self) -> Any:
        if self._ctx is None:
            engine = require_engine()
            config = engine.SessionConfig().with_target_partitions(self._partitions).set(
                "datafusion.sql_parser.recursion_limit", str(_PARSER_RECURSION_LIMIT))
            self._ctx = engine.SessionContext(config)
        return self._ctx

    def true_mask(self, table: pa.Table, condition: Condition) -> pa.Array:
        """A boolean array, True exactly where ``condition`` is TRUE for that row of ``table``
        (FALSE and NULL are False: a row whose condition is NULL falls through to the next
        clause). Errors of the expression (types, unknown functions) are ValueErrors naming
        the condition."""
        n = table.num_rows
        if n == 0:
            return pa.array([], pa.bool_())
        wanted = [c for c in condition.refs if c in table.column_names]
        data = pa.table([table.column(c) for c in wanted] + [pa.array(np.arange(n))],
                        names=wanted + [_ROW]).combine_chunks()
        batches = data.to_batches()
        parts = self._partitions
        if parts > 1 and n >= parts:
            step = -(-n // parts)
            partitions = [data.slice(i, step).to_batches() for i in range(0, n, step)]
        else:
            partitions = [batches]
        engine = require_engine()
        ctx = self._context()
        ctx.register_record_batches(_TABLE, partitions)
        try:
            frame = ctx.table(_TABLE)
            expr = frame.parse_sql_expr(condition.sql)
            result = frame.select(engine.col(_ROW), expr.alias("m")).collect()
        except Exception as error:  # DataFusion raises its own Exception subclasses
            raise ValueError(f"merge_into condition {shown(condition.text)} failed: {error}") \
                from error
        finally:
            ctx.deregister_table(_TABLE)
        out = pa.Table.from_batches(result) if result else \
            pa.table({_ROW: pa.array([], pa.int64()), "m": pa.array([], pa.bool_())})
        rows = out.column(0).to_numpy()
        column = out.column(1).combine_chunks()
        if len(rows) != n:
            raise ValueError(f"merge_into condition {shown(condition.text)} gave {len(rows)} "
                             f"values for {n} rows")
        if not np.array_equal(rows, np.arange(n)):  # results came back in another order
            order = np.argsort(rows, kind="stable")
            if not np.array_equal(rows[order], np.arange(n)):
                raise RuntimeError(f"merge_into condition {shown(condition.text)} returned rows "
                                   "that do not match its input one to one")
            column = column.take(pa.array(order))
        if pa.types.is_null(column.type):  # a bare NULL: never TRUE
            column = pa.nulls(n, pa.bool_())
        elif column.type != pa.bool_():
            # pypaimon filters with WHERE, which DataFusion refuses for a non-boolean
            # predicate (no cast: an INT or 'true' condition is an error there too)
            raise ValueError(f"merge_into condition {shown(condition.text)} is not boolean: it "
                             f"gives {column.type}")
        return pc.fill_null(column, False)


# ------------------------------------------------------------------------- scan pushdown

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}
_LEAF = {"=": "equal", "!=": "not_equal", "<": "less_than", "<=": "less_or_equal",
         ">": "greater_than", ">=": "greater_or_equal"}


def _pushable_type(data_type: pa.DataType) -> bool:
    # Comparisons whose SQL and Arrow-compute semantics agree exactly (no floats: NaN orders
    # differently; no temporal types: literal conversions differ).
    return (pa.types.is_integer(data_type) or pa.types.is_string(data_type)
            or pa.types.is_large_string(data_type) or pa.types.is_boolean(data_type))


def scan_predicate(condition: Condition, schema: pa.Schema, builder: Any) -> Optional[Any]:
    """A predicate (of ``builder``, a PredicateBuilder of the target) that every row making
    ``condition`` TRUE satisfies, or None. DataFusion normalises the condition (IN, BETWEEN
    and NOT are rewritten into comparisons; literals are cast to the column types); AND keeps
    the conjuncts that convert, OR needs both sides. The condition is still evaluated on the
    rows read, so this only prunes."""
    engine = require_engine()
    fields = [f for f in schema if _pushable_type(f.type)]
    empty = pa.table({f"{p}.{f.name}": pa.array([], f.type) for f in schema for p in "st"})
    config = engine.SessionConfig().set("datafusion.sql_parser.recursion_limit",
                                        str(_PARSER_RECURSION_LIMIT))
    ctx = engine.SessionContext(config)
    ctx.register_record_batches("_scan", [empty.to_batches() or
                                          [pa.RecordBatch.from_pylist([], schema=empty.schema)]])
    try:
        frame = ctx.table("_scan")
        plan = frame.filter(frame.parse_sql_expr(condition.sql)).optimized_logical_plan()
    except Exception:  # noqa: BLE001 - a condition DataFusion refuses fails later, where it runs
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
