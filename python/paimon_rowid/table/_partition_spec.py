"""Partition specs of overwrites and truncates (``{key: value}`` dicts), turned into the
native committer's overwrite arguments. Behaviour: docs/python-api.md, "Overwrite".

A spec is an AND of equalities on the keys it names (keys it leaves out match any value);
``None`` or the table's ``partition.default-name`` (``__DEFAULT_PARTITION__``) means null.
Values are typed as the key's column (``1`` for INT, ``datetime.date`` for DATE); a string
for a non-string key is parsed as that type, as Java does (pypaimon compares the raw
values and so never matches ``'1'`` against an INT partition).
"""
from __future__ import annotations

import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence

import pyarrow as pa

from .predicate import Predicate, PredicateBuilder

DYNAMIC_OVERWRITE = "dynamic-partition-overwrite"
DEFAULT_PARTITION_NAME = "__DEFAULT_PARTITION__"


def _builder(table: Any) -> PredicateBuilder:
    keys = table.partition_keys
    by_name = {f.name: f for f in table.fields}
    fields = [by_name[k] for k in keys]
    schema = table.read_schema(list(keys)) if keys else pa.schema([])
    return PredicateBuilder(fields, [schema.field(i).type for i in range(len(keys))])


def _literal(key: str, value: Any, arrow_type: pa.DataType) -> Any:
    """The spec value as the key's type: strings are parsed for non-string keys; any other
    value must be exactly a value of the type (a timestamp with digits the key's precision
    drops, or an aware datetime for a zoneless key, would match another partition)."""
    stringly = pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
    try:
        if isinstance(value, str) and not stringly:
            return pa.array([value], pa.string()).cast(arrow_type)[0].as_py()
        typed = pa.array([value], arrow_type)[0].as_py()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, TypeError,
            OverflowError) as error:
        raise ValueError(f"partition value {value!r} of {key!r} is not a valid {arrow_type}: "
                         f"{error}") from None
    if not pa.types.is_floating(arrow_type) and typed != value:
        raise ValueError(f"partition value {value!r} of {key!r} is not exactly a {arrow_type} "
                         f"value (it would be {typed!r})")
    return value


def spec_predicate(table: Any, spec: Mapping[str, Any]) -> Optional[Predicate]:
    """The predicate selecting the partitions of ``spec``; None for ``{}`` (every partition).
    ValueError for a key that is not a partition key (pypaimon's message) or a value that
    does not parse as its key's type."""
    if not isinstance(spec, Mapping):
        raise TypeError(f"a partition spec must be a dict, got {type(spec).__name__}")
    builder = _builder(table)
    default_name = table.options.get("partition.default-name", DEFAULT_PARTITION_NAME)
    leaves: List[Optional[Predicate]] = []
    for key, value in spec.items():
        if key not in builder.field_names:  # checked first: the message names the keys
            raise ValueError(f"The field {key} is not in field list {builder.field_names}.")
        if value is None or (isinstance(value, str) and value == default_name):
            leaves.append(builder.is_null(key))
            continue
        arrow_type = builder._arrow_types[builder.field_names.index(key)]
        leaves.append(builder.equal(key, _literal(key, value, arrow_type)))
    return PredicateBuilder.and_predicates(leaves)


def is_dynamic(table: Any) -> bool:
    """Whether an overwrite replaces only the partitions it writes (Java's and pypaimon's
    default for a partitioned table) rather than those its spec selects."""
    if not table.partition_keys:
        return False
    return str(table.options.get(DYNAMIC_OVERWRITE, "true")).strip().lower() == "true"


def overwrite_arguments(table: Any, spec: Mapping[str, Any]) -> Dict[str, Any]:
    """The native Committer's overwrite keywords for ``overwrite(spec)``."""
    if is_dynamic(table):
        if not isinstance(spec, Mapping):
            raise TypeError(f"a partition spec must be a dict, got {type(spec).__name__}")
        if spec:
            warnings.warn(
                f"overwrite({dict(spec)!r}) replaces the partitions the new rows are written "
                f"to, not the spec's: '{DYNAMIC_OVERWRITE}' is true (the default of a "
                f"partitioned table, as in pypaimon and Java). Set it to 'false' to overwrite "
                f"by the spec.", UserWarning, stacklevel=3)
        return {"overwrite": True, "overwrite_dynamic": True}
    predicate = spec_predicate(table, spec)
    return {"overwrite": True,
            "overwrite_partitions": None if predicate is None else predicate.to_native(),
            "overwrite_description": repr(dict(spec))}


def truncate_arguments(table: Any, partitions: Optional[Sequence[Mapping[str, Any]]]
                       ) -> Dict[str, Any]:
    """The native Committer's keywords for ``truncate_partitions(partitions)`` (partitions
    None: ``truncate_table()``). pypaimon's checks and messages."""
    arguments: Dict[str, Any] = {"overwrite": True, "overwrite_skip_if_unchanged": True}
    if partitions is None:
        return arguments
    if isinstance(partitions, Mapping) or not isinstance(partitions, Sequence):
        raise TypeError("partitions must be a list of partition specs (dicts), got "
                        f"{type(partitions).__name__}")
    if not partitions:
        raise ValueError("Partitions list cannot be empty.")
    keys = table.partition_keys
    specs = []
    for spec in partitions:
        if not isinstance(spec, Mapping):
            raise TypeError(f"a partition spec must be a dict, got {type(spec).__name__}")
        for key in spec:
            if key not in keys:
                raise ValueError(f"Partition spec key '{key}' is not a partition column. "
                                 f"Partition keys are: {list(keys)}.")
        if not spec:  # pypaimon's type and first words
            raise RuntimeError("Failed to build partition filter for drop_partitions: an "
                               "empty partition spec would drop every partition; use "
                               "truncate_table() for that.")
        specs.append(spec_predicate(table, spec))
    predicate = PredicateBuilder.or_predicates(specs)
    assert predicate is not None
    arguments["overwrite_partitions"] = predicate.to_native()
    arguments["overwrite_description"] = repr([dict(s) for s in partitions])
    return arguments
