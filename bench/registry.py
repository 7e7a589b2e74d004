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
                  blob_reads=100, blob_bytes=1024, rounds=5, verify="all",
                  image_rows=40_000, image_commits=4, image_bytes=1024, backfill_rounds=3,
                  plan_files=2_000, plan_rows=128_000, plan_commits=4,
                  plan_target_file_size="1 kb", plan_rows_per_commit=10_000, plan_rounds=3,
                  join_rows=100_000, join_incoming=1_000, join_buckets=16,
                  evolve_updates=50),
    "medium": dict(rows=1_000_000, commits=10, update_fraction=0.01, clustered=10_000,
                   read_few=10_000, read_many=100_000, blob_rows=400_000, blob_commits=4,
                   blob_reads=10_000, blob_bytes=1024, rounds=5, verify="all",
                   image_rows=400_000, image_commits=4, image_bytes=1024,
                   plan_files=20_000, plan_rows=1_280_000, plan_commits=10,
                   plan_target_file_size="1 kb", plan_rows_per_commit=100_000,
                   join_rows=1_000_000, join_incoming=100_000, join_buckets=16,
                   evolve_updates=50),
    "large": dict(rows=10_000_000, commits=10, update_fraction=0.01, clustered=10_000,
                  read_few=10_000, read_many=1_000_000, blob_rows=4_000_000, blob_commits=8,
                  blob_reads=10_000, blob_bytes=1024, rounds=5, verify="first",
                  read_many_rounds=2,
                  image_rows=4_000_000, image_commits=4, image_bytes=1024, backfill_rounds=2,
                  plan_files=100_000, plan_rows=6_400_000, plan_commits=10,
                  plan_target_file_size="1 kb", plan_rows_per_commit=1_000_000,
                  join_rows=10_000_000, join_incoming=100_000, join_buckets=16,
                  evolve_updates=50),
}

IDENTIFIER = "bench.t"
TABLE_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
EMBEDDED = ("ours", "pypaimon")
RAY = ("ours-ray", "pypaimon-ray")
# With the peer (bench/peers.py), every pair against pypaimon also runs against pypaimon with
# its Rust backend.
PEER_BASELINES = {"pypaimon": "pypaimon-rust", "pypaimon-ray": "pypaimon-rust-ray"}
RAY_PEER = "pypaimon-rust-ray"
# A baseline that cannot load here is replaced by this one (noted in the results).
FALLBACK_BASELINE = {"pypaimon-ray": "pypaimon"}


@dataclass(frozen=True)
class Target:
    """``speedup`` = pypaimon median / ours median that the workload must reach; optionally
    also ours' median ``metric`` (a ``Workload.metrics`` key) must stay <= ``limit``
    (``limit_text`` says it in words)."""
    speedup: float
    source: str = "issue 7"
    metric: Optional[str] = None
    limit: Optional[float] = None
    limit_text: str = ""

    def met(self, speedup: float, metrics: Optional[Dict[str, float]]) -> bool:
        if speedup < self.speedup:
            return False
        if self.metric is None:
            return True
        value = (metrics or {}).get(self.metric)
        return value is not None and value <= self.limit

    def describe(self) -> Dict[str, Any]:
        return {"speedup": self.speedup, "source": self.source, "metric": self.metric,
                "limit": self.limit, "limit_text": self.limit_text}


class Workload:
    name: str = ""
    group: str = ""
    description: str = ""
    target: Optional[Target] = None
    # The target against pypaimon with its Rust backend (issue 18's table), when it differs.
    peer_target: Optional[Target] = None
    # The target of the Ray pair against pypaimon.ray with the Rust backend (issue 18).
    ray_peer_target: Optional[Target] = None
    # (candidate, baseline) engine pairs; ray_pairs run with --ray when both engines load.
    pairs: Sequence[Tuple[str, str]] = (EMBEDDED,)
    ray_pairs: Sequence[Tuple[str, str]] = ()
    # True: every round runs on its own copy of the fixture warehouse (args["warehouse"]).
    mutates: bool = False

    # -- orchestrator side -----------------------------------------------------------------
    def target_for(self, baseline: str) -> Optional[Target]:
        if baseline == RAY_PEER:
            return self.ray_peer_target
        if baseline in PEER_BASELINES.values() and self.peer_target is not None:
            return self.peer_target
        return self.target

    def title(self, p: Dict[str, Any]) -> str:
        return self.name

    def skip_reason(self, ctx) -> Optional[str]:
        return None

    def rounds(self, p: Dict[str, Any]) -> Optional[int]:
        """Fewer timed rounds for a slow workload at a size (None: the run's); an explicit
        ``--rounds`` wins."""
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

    # Extra per-round figures (every round, untimed): ``metrics`` returns {key: number};
    # ``metric_labels`` names them for the report: {key: (label, "bytes"|"s"|"count")}.
    metric_labels: Dict[str, Tuple[str, str]] = {}

    def metrics(self, engine, state: Any, result: Any) -> Dict[str, float]:
        return {}


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
