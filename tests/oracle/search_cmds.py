"""Oracle commands for search (run inside the pypaimon venv by driver.py).

``vector_search``: pypaimon's ``new_vector_search_builder()`` (column, query vectors, limit,
filter, options) -> per query ``[[row_id, score], ...]`` best first.
``full_text_search``: ``new_full_text_search_builder()`` -> ``[[row_id, score], ...]``.
``hybrid_search``: ``new_hybrid_search_builder()`` with vector / full-text routes and a ranker.
"""


def _ranked(result):
    getter = result.score_getter()
    rows = [(int(r), float(getter(r) or 0.0)) for r in result.results()]
    return [list(x) for x in sorted(rows, key=lambda x: (-x[1], x[0]))]


def cmd_vector_search(cmd, table_of, build_predicate):
    table = table_of(cmd)
    out = []
    for vector in cmd["queries"]:
        builder = (table.new_vector_search_builder().with_vector_column(cmd["column"])
                   .with_query_vector(vector).with_limit(int(cmd["limit"]))
                   .with_options(dict(cmd.get("search_options") or {})))
        if cmd.get("filter") is not None:
            builder = builder.with_filter(
                build_predicate(table.new_read_builder().new_predicate_builder(), cmd["filter"]))
        out.append(_ranked(builder.execute_local()))
    return out


def cmd_full_text_search(cmd, table_of, build_predicate):
    table = table_of(cmd)
    builder = (table.new_full_text_search_builder().with_query(cmd["column"], cmd["query"])
               .with_limit(int(cmd["limit"])))
    if cmd.get("filter") is not None:
        builder = builder.with_filter(
            build_predicate(table.new_read_builder().new_predicate_builder(), cmd["filter"]))
    return _ranked(builder.execute_local())


def cmd_hybrid_search(cmd, table_of):
    table = table_of(cmd)
    builder = table.new_hybrid_search_builder().with_limit(int(cmd["limit"]))
    builder = builder.with_ranker(cmd.get("ranker", "rrf"))
    for route in cmd["routes"]:
        if route["type"] == "vector":
            builder = builder.add_vector_route(route["column"], route["vector"],
                                               int(route["limit"]), float(route["weight"]))
        else:
            builder = builder.add_full_text_route(route["column"], route["query"],
                                                  int(route["limit"]), float(route["weight"]))
    return _ranked(builder.execute_local())
