"""Test seams of the Ray jobs, passed explicitly: never read from the environment.

``update_by_row_id`` and ``write_paimon`` on Ray take a private keyword ``_hooks``
(a ``TaskHooks``); the driver ships it to its tasks with their other arguments and each task
calls its hook at one seam. The multi-node kill tests (tests/test_ray_cluster.py) and the
race tests (tests/test_ray_row_ids.py) use them to hold a task while its files are on disk.
Production callers never pass hooks; a task then does nothing extra.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable, Optional

__all__ = ["TaskHooks", "HoldWhileExists"]


@dataclass(frozen=True)
class TaskHooks:
    """``before_apply``: an update's apply task, before it opens the table or reads its
    base. ``after_apply``: an update's apply task, after its files are written and before it
    returns. ``after_write``: a ``write_paimon`` task, after its files are written and
    before it reports them."""
    before_apply: Optional[Callable[[], None]] = None
    after_apply: Optional[Callable[[], None]] = None
    after_write: Optional[Callable[[], None]] = None


class HoldWhileExists:
    """A hook that waits while ``path`` exists (at most ``timeout`` seconds). With
    ``report_node``, it first writes the Ray node id of its task to ``path + ".node"`` (so a
    test knows which node to kill). Picklable: it travels to Ray workers by value."""

    def __init__(self, path: str, *, timeout: float = 60.0, report_node: bool = False) -> None:
        self.path = str(path)
        self.timeout = timeout
        self.report_node = report_node

    def __call__(self) -> None:
        if self.report_node and os.path.exists(self.path):
            import ray
            with open(self.path + ".node", "w") as out:
                out.write(ray.get_runtime_context().get_node_id())
        deadline = time.monotonic() + self.timeout
        while os.path.exists(self.path) and time.monotonic() < deadline:
            time.sleep(0.02)


def before_apply(hooks: Optional[TaskHooks]) -> None:
    """Runs the ``before_apply`` hook when one was given."""
    if hooks is not None and hooks.before_apply is not None:
        hooks.before_apply()


def after_apply(hooks: Optional[TaskHooks]) -> None:
    """Runs the ``after_apply`` hook when one was given."""
    if hooks is not None and hooks.after_apply is not None:
        hooks.after_apply()


def after_write(hooks: Optional[TaskHooks]) -> None:
    """Runs the ``after_write`` hook when one was given."""
    if hooks is not None and hooks.after_write is not None:
        hooks.after_write()
