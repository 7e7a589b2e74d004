"""JSON form of ``merge_into`` clauses, shared by the test process and the oracle driver, so
one case table drives both engines. Standard library only (the driver runs in pypaimon's venv).

Clauses (``when_matched`` / ``when_not_matched`` are lists of these):
  ``{"action": "update", "set": "*" | {col: value}, "condition": str | None}``
  ``{"action": "delete", "condition": str | None}``
  ``{"insert": "*" | {col: value}, "condition": str | None}``
Values: ``{"s": col}`` -> ``source_col(col)``, ``{"t": col}`` -> ``target_col(col)``,
``{"lit": v}`` -> ``lit(v)``; anything else is passed as is (plain literals, and the strings
``"s.x"`` / ``"t.x"``, which the engines read as column references); tagged literals of
literals.py (``{"$date": ...}``) are decoded first.

``decode_*`` take the module (or namespace) holding ``WhenMatched``, ``WhenNotMatched``,
``source_col``, ``target_col`` and ``lit``: pypaimon's or paimon_rowid's.
"""
try:  # the test process imports this as oracle.merge_spec, the driver as merge_spec
    from . import literals
except ImportError:  # pragma: no cover - driver side
    import literals


def update(set_spec="*", condition=None):
    return {"action": "update", "set": set_spec, "condition": condition}


def delete(condition=None):
    return {"action": "delete", "condition": condition}


def insert(spec="*", condition=None):
    return {"insert": spec, "condition": condition}


def decode_value(api, value):
    if isinstance(value, dict) and len(value) == 1:
        (tag, arg), = value.items()
        if tag == "s":
            return api.source_col(arg)
        if tag == "t":
            return api.target_col(arg)
        if tag == "lit":
            return api.lit(literals.decode(arg))
    return literals.decode(value)


def decode_spec(api, spec):
    if isinstance(spec, dict):
        return {col: decode_value(api, v) for col, v in spec.items()}
    return spec  # "*" (or a wrong type, for the validation tests)


def decode_matched(api, clauses):
    out = []
    for clause in clauses or ():
        if clause["action"] == "delete":
            out.append(api.WhenMatched.delete(condition=clause.get("condition")))
        else:
            out.append(api.WhenMatched.update(decode_spec(api, clause["set"]),
                                              condition=clause.get("condition")))
    return out


def decode_not_matched(api, clauses):
    return [api.WhenNotMatched(insert=decode_spec(api, c["insert"]),
                               condition=c.get("condition")) for c in clauses or ()]
