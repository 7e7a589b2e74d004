"""Forked and pooled writers (issue 44 §1): every file a process creates has a name of its
own, even in children of a parent that already used the engine (fork(2) copies the parent's
memory, random generator included), and no file is ever written over another. Each test
checks that every committed row reads back and that no two files share a name."""
from __future__ import annotations

import multiprocessing
import os

import pyarrow as pa
import pytest

from ours import catalog, create_table

pytestmark = pytest.mark.native

DE = {"row-tracking.enabled": "true", "data-evolution.enabled": "true"}
SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string())])


def _rows(ids):
    return pa.table({"id": pa.array(ids, pa.int64()), "s": [f"s{i}" for i in ids]})


def _read_ids(warehouse):
    table = catalog(warehouse).get_table("db.t")
    rb = table.new_read_builder()
    return sorted(rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist())


def _all_names(warehouse):
    """Every file name under the table, with how often it occurs (a name twice in two
    directories would be two files sharing one name)."""
    names: dict = {}
    for root, _dirs, files in os.walk(os.path.join(warehouse, "db.db", "t")):
        for name in files:
            names.setdefault(name, []).append(root)
    return names


def _write(warehouse, ids, commit=True):
    table = catalog(warehouse).get_table("db.t")
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    writer.write_arrow(_rows(ids))
    messages = writer.prepare_commit()
    if commit:
        builder.new_commit().commit(messages)
    return messages


def _child(warehouse, ids, commit, ready):
    _write(warehouse, ids, commit)
    ready.put(commit)


def _used_parent(warehouse):
    """A parent that has used every part of the engine: catalog, write, commit, read."""
    create_table(warehouse, "t", SCHEMA, DE)
    _write(warehouse, [0])
    assert _read_ids(warehouse) == [0]


def test_forked_children_of_a_used_parent_never_share_file_names(warehouse):
    # The reproduction: child 1 commits, child 2 only prepares. Before the fix
    # child 2's uncommitted file replaced child 1's committed one.
    _used_parent(warehouse)
    ctx = multiprocessing.get_context("fork")
    done = ctx.Queue()
    children = [ctx.Process(target=_child, args=(warehouse, [1], True, done)),
                ctx.Process(target=_child, args=(warehouse, [2, 3], False, done))]
    for p in children:
        p.start()
    for p in children:
        p.join(60)
        assert p.exitcode == 0
    assert _read_ids(warehouse) == [0, 1]
    shared = {n: where for n, where in _all_names(warehouse).items() if len(where) > 1}
    assert shared == {}


def test_os_fork_children_writing_in_parallel(warehouse):
    _used_parent(warehouse)
    pids = []
    for k in range(1, 5):
        pid = os.fork()
        if pid == 0:  # the child: write, commit, leave without running the parent's atexit
            code = 1
            try:
                _write(warehouse, [10 * k, 10 * k + 1])
                code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    written = sorted(x for k in range(1, 5) for x in (10 * k, 10 * k + 1))
    assert _read_ids(warehouse) == [0] + written
    assert all(len(where) == 1 for where in _all_names(warehouse).values())


def _pool_commit(args):
    warehouse, i = args
    _write(warehouse, [1000 + i])
    return i


def test_a_pool_of_four_writing_one_hundred_commits(warehouse):
    _used_parent(warehouse)
    with multiprocessing.get_context("fork").Pool(4) as pool:
        done = pool.map(_pool_commit, [(warehouse, i) for i in range(100)])
    assert sorted(done) == list(range(100))
    assert _read_ids(warehouse) == [0] + [1000 + i for i in range(100)]
    table = catalog(warehouse).get_table("db.t")
    assert table.latest_snapshot()["id"] == 101
    assert all(len(where) == 1 for where in _all_names(warehouse).values())
