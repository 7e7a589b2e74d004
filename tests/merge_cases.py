"""Shared pieces of the merge_into tests (test_merge_into.py, test_merge_into_validation.py):
the source builder, the clause decoder, the validation table kinds and the two engines' calls."""
from __future__ import annotations

import json

import pyarrow as pa

import dv_tables as dv
from oracle import merge_spec as ms

ALL_ROW_ID = dv.ALL + ["_ROW_ID"]
DEDUPLICATE = ("MERGE matched multiple source rows to the same target _ROW_ID. Deduplicate the "
               "source before merging.")


def src(ids, a=None, b=None, p=None) -> pa.Table:
    n = len(ids)
    return pa.table({"id": pa.array(ids, pa.int64()),
                     "a": pa.array(a if a is not None else [None] * n, pa.int32()),
                     "b": pa.array(b if b is not None else [None] * n, pa.string()),
                     "p": pa.array(p if p is not None else [None] * n, pa.string())})


def api():
    import paimon_rowid
    return paimon_rowid


def decode(clauses_m, clauses_nm):
    module = api()
    return ms.decode_matched(module, clauses_m), ms.decode_not_matched(module, clauses_nm)


def rows(wh):
    return dv.by_row_id(dv.our_read(wh, "db.t", ALL_ROW_ID))


def make_table(wh, kind):
    """kind: "part" (DVs, partitioned by p), "plain", "de_off" (no data evolution),
    "rt_off" (data evolution without row tracking: only reachable by editing the schema
    file, since both engines refuse to create it), "dv_off" (no deletion vectors)."""
    if kind in ("part", "plain"):
        dv.our_setup(wh, "t", dv.LAYOUTS[kind])
    elif kind == "de_off":
        dv.our_setup(wh, "t", [], options={}, writes=[(0, 2)])
    elif kind == "dv_off":
        dv.our_setup(wh, "t", [], options=dict(dv.DE), writes=[(0, 2)])
    else:
        dv.our_setup(wh, "t", [], writes=[(0, 2)])
        path = dv.table_dir(wh, "db.t") / "schema" / "schema-0"
        schema = json.loads(path.read_text())
        schema["options"]["row-tracking.enabled"] = "false"
        path.write_text(json.dumps(schema))


def state(wh):
    return dv.files(wh), dv.latest_id(wh, "db.t")


def merge(engine, wh, source, **kwargs):
    """Ours' merge, embedded (returns the dict) or local (commits; returns None)."""
    import paimon_rowid as pr
    if engine == "embedded":
        return pr.merge_into("db.t", source, {"warehouse": wh}, **kwargs)
    table = dv.our_table(wh, "db.t")
    builder = table.new_batch_write_builder()
    builder.new_commit().commit(builder.new_update().merge_into(
        table if isinstance(source, str) and source == "db.t" else source, **kwargs))
    return None


SRC = src([1, 50], [1, 2], ["x", "y"], ["y", "x"])
ENGINES = ["embedded", "local"]
