"""Engine adapters: the one interface through which workloads drive a library (worker side).

``load(name)`` imports the library; it raises ``EngineUnavailable`` (with the reason) when the
library, or Ray for the Ray engines, cannot be imported in this interpreter.

Names: ``ours`` (paimon_rowid, embedded), ``pypaimon`` (pypaimon 2.1.0's table-level API, no
Ray), ``ours-backfill`` (paimon_rowid with its one-call ``backfill``, which the ``backfill_call``
workload compares with the hand-written seed loop on ``ours``), ``ours-ray``
(paimon_rowid.ray, built by another engineer), ``pypaimon-ray``
(pypaimon.ray; needs ray installed in pypaimon's virtualenv), ``pypaimon-rust`` (pypaimon with
its Rust backend, bench/peers.py: the peer's virtualenv, which has Ray too).
"""
from __future__ import annotations


class EngineUnavailable(RuntimeError):
    pass


def load(name: str):
    if name == "ours":
        from bench.engines.ours import Ours
        return Ours()
    if name == "ours-backfill":
        from bench.engines.ours import OursBackfill
        return OursBackfill()
    if name == "ours-ray":
        from bench.engines.ours import OursRay
        return OursRay()
    if name == "pypaimon":
        from bench.engines.pypaimon_engine import Pypaimon
        return Pypaimon()
    if name == "pypaimon-rust":
        from bench.engines.pypaimon_engine import PypaimonRust
        return PypaimonRust()
    if name == "pypaimon-ray":
        from bench.engines.pypaimon_engine import PypaimonRay
        return PypaimonRay()
    if name == "pypaimon-rust-ray":
        from bench.engines.pypaimon_engine import PypaimonRustRay
        return PypaimonRustRay()
    raise ValueError(f"unknown engine {name!r}")
