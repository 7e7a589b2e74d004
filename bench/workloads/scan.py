"""2. Scans of the base table: full, and with selective predicates."""
from __future__ import annotations

from bench.data import Y_RANGE
from bench.digest import table_digest
from bench.registry import IDENTIFIER, Target, Workload, register


class _Scan(Workload):
    group = "scan"
    projection = None

    def filter(self, p):
        return None

    def prepare(self, ctx):
        return {"warehouse": ctx.base_table(), "filter": self.filter(ctx.params),
                "projection": self.projection}

    def run(self, engine, state):
        table = engine.get_table(state["warehouse"], IDENTIFIER)
        return engine.scan(table, projection=state["projection"], filter=state["filter"])

    def check(self, engine, state, result):
        return {"digest": table_digest(result, ["id"]), "problems": []}


@register
class ScanFull(_Scan):
    name = "scan_full"
    target = Target(1.0, "no slower than pypaimon (our bar; issue 7 sets none)")
    peer_target = Target(1.5, "issue 18: vs pypaimon + Rust, scan >= 1.5x")
    description = "plan + to_arrow of all columns of the whole table."

    def title(self, p):
        return f"full scan, {p['rows']:,} rows"


@register
class ScanIdRange(_Scan):
    name = "scan_id_range"
    target = Target(1.0, "no slower than pypaimon (our bar; issue 7 sets none)")
    peer_target = Target(1.5, "issue 18: vs pypaimon + Rust, scan >= 1.5x")
    description = ("`id BETWEEN a AND b` selecting 1% of the rows; ids are sorted, so file "
                   "statistics can prune most files.")

    def filter(self, p):
        lo = p["rows"] // 2
        return ["between", "id", lo, lo + p["rows"] // 100 - 1]

    def title(self, p):
        return "scan, id range (1%, prunable by stats)"


@register
class ScanYFilter(_Scan):
    name = "scan_y_filter"
    target = Target(1.0, "no slower than pypaimon (our bar; issue 7 sets none)")
    peer_target = Target(1.5, "issue 18: vs pypaimon + Rust, scan >= 1.5x")
    description = ("`y < Y_RANGE/1000` on a uniformly random column (~0.1% of rows): nothing "
                   "to prune, every row is filtered.")

    def filter(self, p):
        return ["less_than", "y", Y_RANGE // 1000]

    def title(self, p):
        return "scan, y < c (~0.1%, not prunable)"
