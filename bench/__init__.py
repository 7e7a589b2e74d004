"""Side-by-side benchmarks of paimon_rowid against pypaimon 2.1.0 (``python -m bench``).

The orchestrator (``cli``) runs under our Python; every measured round runs in its own worker
subprocess (``worker``) under the interpreter of the side being measured, so peak RSS and
/proc/<pid>/io are per side. Modules imported by the worker (``engines``, ``workloads``,
``registry``, ``digest``, ``measure``) use only the standard library, numpy and pyarrow, and
work on both pyarrow 26 (ours) and pyarrow 19 (pypaimon's virtualenv).
"""
