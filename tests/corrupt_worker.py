"""Worker process for test_corrupt.py: reads cases (a JSON list) from stdin and, for each, reads
the whole table through paimon_rowid, reporting on stdout:

    START <case id>
    RESULT {"case": id, "outcome": "ok"|"error", "type": "module.Class", "message": ...,
            "num_rows": n}

A crash (signal, abort) or hang is detected by the parent from the missing RESULT line.
"""
import json
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


def main():
    cases = json.load(sys.stdin)
    for case in cases:
        print(f"START {case['id']}", flush=True)
        try:
            result = read_all(case["warehouse"], case["identifier"], case.get("projection"),
                              case.get("options"))
            reply = {"case": case["id"], "outcome": "ok", "num_rows": result.num_rows}
        except Exception as error:  # noqa: BLE001 - classified by the parent
            reply = {"case": case["id"], "outcome": "error",
                     "type": f"{type(error).__module__}.{type(error).__qualname__}",
                     "mro": [f"{c.__module__}.{c.__qualname__}" for c in type(error).__mro__],
                     "message": str(error)[:500]}
        print("RESULT " + json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
