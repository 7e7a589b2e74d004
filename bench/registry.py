"""Workloads are plug-ins: a ``Workload`` subclass decorated with ``@register`` in a module of
``bench/workloads/`` (listed in ``workloads/__init__.py``).

A workload has two halves that run in different processes:

- orchestrator side (our Python): ``prepare`` makes its inputs and fixture tables once (via
  ``ctx``) and returns JSON-able args; ``round_args`` gives one round its args (a mutating
  workload gets a fresh copy of the fixture warehouse); ``skip_reason`` is a capability check.
- worker side (the measured side's Python, pyarrow 19 or 22): ``setup`` (untimed) loads inputs,
  ``run`` is the timed operation, ``check`` (untimed) returns what must be equal across sides
  (a ``digest.table_digest``) plus sanity problems. Worker-side code talks to the library only
  through the ``engines.Engine`` interface, so a workload is engine-agnostic and a new engine
  (e.g. Ray) is one adapter.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

# Sizes. "large" is issue 7's measurement size; "small" (~100x smaller) runs in CI; "medium"
# keeps the absolute id counts of the targets (10k ids) on a 1M-row table.
SIZES: Dict[str, Dict[str, Any]] = {
    "small": dict(rows=100_000, commits=10, update_fraction=0.01, clustered=100,
                  read_few=100, read_many=10_000, blob_rows=40_000, blob_commits=2,
                  blob_reads=100, blob_bytes=1024, rounds=5, verify="all"),
    "medium": dict(rows=1_000_000, commits=10, update_fraction=0.01, clustered=10_000,
                   read_few=10_000, read_many=100_000, blob_rows=400_000, blob_commits=4,
                   blob_reads=10_000, blob_bytes=1024, rounds=5, verify="all"),
    "large": dict(rows=10_000_000, commits=10, update_fraction=0.01, clustered=10_000,
                  read_few=10_000, read_many=1_000_000, blob_rows=4_000_000, blob_commits=8,
                  blob_reads=10_000, blob_bytes=1024, rounds=5, verify="first"),
}

IDENTIFIER = "bench.t"
TABLE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
EMBEDDED = ("ours", "pypaimon")
RAY = ("ours-ray", "pypaimon-ray")
# A baseline that cannot load here is replaced by this one (noted in the results).
FALLBACK_BASELINE = {"pypaimon-ray": "pypaimon"}


@dataclass(frozen=True)
class Target:
    """``speedup`` = pypaimon median / ours median that the workload must reach."""
    speedup: float
    source: str = "issue 7"


class Workload:
    name: str = ""
    group: str = ""
    description: str = ""
    target: Optional[Target] = None
    # (candidate, baseline) engine pairs; ray_pairs run with --ray when both engines load.
    pairs: Sequence[Tuple[str, str]] = (EMBEDDED,)
    ray_pairs: Sequence[Tuple[str, str]] = ()
    # True: every round runs on its own copy of the fixture warehouse (args["warehouse"]).
    mutates: bool = False

    # -- orchestrator side -----------------------------------------------------------------
    def title(self, p: Dict[str, Any]) -> str:
        return self.name

    def skip_reason(self, ctx) -> Optional[str]:
        return None

    def prepare(self, ctx) -> Dict[str, Any]:
        raise NotImplementedError

    def round_args(self, ctx, args: Dict[str, Any], round_dir: Path) -> Dict[str, Any]:
        if not self.mutates:
            return args
        copy = round_dir / "wh"
        shutil.copytree(args["warehouse"], copy)
        return {**args, "warehouse": str(copy)}

    # -- worker side -------------------------------------------------------------------------
    def setup(self, engine, args: Dict[str, Any]) -> Any:
        return args

    def run(self, engine, state: Any) -> Any:
        raise NotImplementedError

    def check(self, engine, state: Any, result: Any) -> Dict[str, Any]:
        """``{"digest": table_digest(...), "problems": [str, ...]}``."""
        raise NotImplementedError


_REGISTRY: Dict[str, Workload] = {}


def register(cls):
    instance = cls()
    if not instance.name or instance.name in _REGISTRY:
        raise ValueError(f"workload name missing or taken: {instance.name!r}")
    _REGISTRY[instance.name] = instance
    return cls


def workloads() -> List[Workload]:
    from bench import workloads as _load  # noqa: F401  (imports register every workload)
    return list(_REGISTRY.values())


def get(name: str) -> Workload:
    workloads()
    return _REGISTRY[name]
