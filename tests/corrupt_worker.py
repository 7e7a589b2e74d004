"""Worker process for test_corrupt.py and test_checksums.py: reads cases (a JSON list) from
stdin and, for each, reads the table through paimon_rowid, reporting on stdout:

    START <case id>
    RESULT {"case": id, "outcome": "ok"|"error", "type": "module.Class", "message": ...,
            "num_rows": n, "digest": sha256 of the rows (when asked)}

A case reads the whole table (scan), or with "row_ids" only those ids (read_by_row_id). With
"flip" = {"path", "pristine", "position", "mask"}, the worker first restores `path` from
`pristine` (so a case after a crashed one starts clean), XORs one byte and restores the file
after the read. A crash (signal, abort) or hang is detected by the parent from the missing
RESULT line.
"""
import hashlib
import json
import shutil
import sys


def read_all(warehouse, identifier, projection, options):
    from paimon_rowid import CatalogFactory
    table = CatalogFactory.create({"warehouse": warehouse}).get_table(identifier)
    if options:
        table = table.copy(options)
    read_builder = table.new_read_builder()
    if projection is not None:
        read_builder.with_projection(projection)
    splits = read_builder.new_scan().plan().splits()
    return read_builder.new_read().to_arrow(splits)


def read_ids(warehouse, identifier, projection, options, row_ids):
    import pyarrow as pa

    from paimon_rowid.row_id_jobs import read_by_row_id
    ids = pa.table({"_ROW_ID": pa.array(row_ids, pa.int64())})
    return read_by_row_id(identifier, ids, {"warehouse": warehouse},
                          projection=[c for c in projection if c != "_ROW_ID"],
                          dynamic_options=options or None)


def digest(table):
    """Order-independent: rows sorted by _ROW_ID, values through to_pylist."""
    if "_ROW_ID" in table.schema.names:
        table = table.sort_by("_ROW_ID")
    return hashlib.sha256(repr(table.to_pydict()).encode()).hexdigest()


def flip(spec):
    shutil.copyfile(spec["pristine"], spec["path"])
    with open(spec["path"], "r+b") as f:
        f.seek(spec["position"])
        byte = f.read(1)[0]
        f.seek(spec["position"])
        f.write(bytes([byte ^ spec["mask"]]))


def main():
    cases = json.load(sys.stdin)
    for case in cases:
        print(f"START {case['id']}", flush=True)
        spec = case.get("flip")
        try:
            if spec:
                flip(spec)
            if case.get("row_ids") is not None:
                result = read_ids(case["warehouse"], case["identifier"], case["projection"],
                                  case.get("options"), case["row_ids"])
            else:
                result = read_all(case["warehouse"], case["identifier"], case.get("projection"),
                                  case.get("options"))
            reply = {"case": case["id"], "outcome": "ok", "num_rows": result.num_rows}
            if case.get("digest"):
                reply["digest"] = digest(result)
        except Exception as error:  # noqa: BLE001 - classified by the parent
            reply = {"case": case["id"], "outcome": "error",
                     "type": f"{type(error).__module__}.{type(error).__qualname__}",
                     "mro": [f"{c.__module__}.{c.__qualname__}" for c in type(error).__mro__],
                     "message": str(error)[:500]}
        finally:
            if spec:
                shutil.copyfile(spec["pristine"], spec["path"])
        print("RESULT " + json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
