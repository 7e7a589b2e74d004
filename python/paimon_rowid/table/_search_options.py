"""Option handling of the search indexes (docs/search.md): which table / call options reach
paimon-vindex and paimon-ftindex, under pypaimon 2.1.0's names and precedence, so that equal
options give equal index files. Pure Python, no I/O."""
from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Mapping, Optional

VECTOR_INDEX_TYPES = ("ivf-flat", "ivf-pq", "ivf-sq", "ivf-rq", "diskann")
FULL_TEXT_INDEX_TYPE = "full-text"
SEARCH_INDEX_TYPES = VECTOR_INDEX_TYPES + (FULL_TEXT_INDEX_TYPE,)

SEARCH_MODES = ("fast", "full", "detail")
DEFAULT_SEARCH_MODE = "full"  # pypaimon's default is fast (uncovered rows not searched)

DEFAULT_DIMENSION = 128
DEFAULT_ROWS_PER_SHARD = 100_000
ADD_BATCH_ROWS = 10_000

# Build options of paimon-vindex 0.5.0 that pypaimon also takes without a prefix, and the
# index types each is valid for.
_BARE_BUILD_KEYS = ("ivf.coarse-assignment", "ivf.pq-encoding",
                    "ivf.train.max-points-per-centroid", "pq.train.max-points-per-centroid")
_PLAIN_KEYS = ("nlist", "expected-vector-count", "pq.m", "pq.code-ratio", "pq.bits", "rq.bits",
               "target-recall", "max-bytes-per-vector", "deployment-profile") + _BARE_BUILD_KEYS
_DISKANN_KEYS = ("build-preset", "max-degree", "build-search-list-size", "alpha", "seed",
                 "memory-budget-bytes", "storage-layout", "raw-vector-encoding",
                 "build-distance")


def _native_key(key: str) -> Optional[str]:
    """The paimon-vindex option a (suffix of a) user key names, or None."""
    if key in ("index.dimension", "dimension"):
        return "dimension"
    if key in ("distance.metric", "metric"):
        return "metric"
    if key in ("pq.use-opq", "use-opq"):
        return "use-opq"
    if key in _PLAIN_KEYS:
        return key
    bare = key[len("diskann."):] if key.startswith("diskann.") else key
    if bare in _DISKANN_KEYS:
        return "diskann." + bare
    return None


def _build_key_allowed(native: str, index_type: str) -> bool:
    if native == "ivf.pq-encoding":
        return index_type == "ivf-pq"
    if native == "pq.train.max-points-per-centroid":
        return index_type in ("ivf-pq", "diskann")
    return index_type != "diskann"


def _collect(out: Dict[str, str], options: Mapping[str, Any], index_type: str, column: str,
             validate: bool) -> None:
    def put(key: str, suffix: str, value: Any) -> None:
        native = _native_key(suffix)
        if native is None:
            return
        if native in _BARE_BUILD_KEYS and not _build_key_allowed(native, index_type):
            if validate:
                raise ValueError(f"Option '{key}' is not supported for index type "
                                 f"'{index_type}'.")
            return
        out[native] = str(value)

    items = [(str(k), v) for k, v in options.items()]
    for key, value in items:  # bare build keys, then "<type>." keys, then "fields.<col>."
        if key in _BARE_BUILD_KEYS:
            put(key, key, value)
    for prefix in (index_type + ".", f"fields.{column}."):
        for key, value in items:
            if key.startswith(prefix):
                put(key, key[len(prefix):], value)


#: Our training bounds where no option sets them (pypaimon sets none: paimon-vindex then trains
#: its IVF k-means and its PQ codebooks on every vector of the shard). k-means needs a few tens
#: of points per centroid: 40 per list (nlist lists; 39 is faiss's warning threshold) and 32 per
#: PQ code (2^pq.bits codes per sub-quantizer) keep recall@10 >= 0.95 at our defaults on the
#: bench's data and cut training 5-8x (docs/search.md, "Training"). Set a key to
#: ``global-index.row-count-per-shard`` or more to train on every vector (pypaimon's files,
#: byte for byte).
DEFAULT_TRAIN_POINTS = {"ivf.train.max-points-per-centroid": 40,
                        "pq.train.max-points-per-centroid": 32}


def vector_native_options(table_options: Mapping[str, Any], user_options: Mapping[str, Any],
                          index_type: str, column: str, vector_length: Optional[int]
                          ) -> Dict[str, str]:
    """paimon-vindex's options for one build: table options, then the call's (validated),
    then the index type, the dimension (a VECTOR column's length, else ``dimension``, default
    128) and the metric (default inner_product)."""
    out: Dict[str, str] = {}
    _collect(out, table_options, index_type, column, validate=False)
    _collect(out, user_options, index_type, column, validate=True)
    out["index.type"] = index_type.replace("-", "_")
    if vector_length is not None:
        dimension = vector_length
    else:
        dimension = int(out.get("dimension", DEFAULT_DIMENSION))
        if dimension <= 0:
            raise ValueError(f"Invalid value for '{index_type}.dimension': {dimension}. "
                             "Must be a positive integer.")
    out["dimension"] = str(dimension)
    out.setdefault("metric", "inner_product")
    if index_type.startswith("ivf-"):
        for key, points in DEFAULT_TRAIN_POINTS.items():
            if _build_key_allowed(key, index_type):
                out.setdefault(key, str(points))
    return out


def train_sample_ratio(table_options: Mapping[str, Any], user_options: Mapping[str, Any],
                       index_type: str, column: str) -> float:
    """``fields.<col>.train.sample-ratio`` or ``<type>.train.sample-ratio`` (call options
    first), in (0, 1]; 1.0 when unset."""
    field_key = f"fields.{column}.train.sample-ratio"
    type_key = f"{index_type}.train.sample-ratio"
    for options in (user_options, table_options):
        key = field_key if field_key in options else type_key
        if key in options:
            value = options[key]
            try:
                ratio = float(value)
            except (TypeError, ValueError):
                ratio = math.nan
            if not math.isfinite(ratio) or ratio <= 0 or ratio > 1:
                raise ValueError(f"Invalid value for '{key}': {value}. Must be greater than 0 "
                                 "and less than or equal to 1.")
            return ratio
    return 1.0


def positive_int(options: Mapping[str, Any], key: str, default: int) -> int:
    value = options.get(key, default)
    try:
        out = int(str(value))
    except ValueError:
        out = 0
    if out <= 0:
        raise ValueError(f"Option '{key}' must be greater than 0.")
    return out


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        return ";".join(str(v) for v in value)
    return str(value)


def full_text_native_options(merged: Mapping[str, Any]) -> Dict[str, str]:
    """paimon-ftindex's options: every ``full-text.<key>`` with the prefix removed."""
    prefix = "full-text."
    return {str(k)[len(prefix):]: _option_text(v) for k, v in merged.items()
            if str(k).startswith(prefix)}


def full_text_meta(native: Mapping[str, str]) -> bytes:
    """The index-manifest meta of a full-text file: its options as compact JSON."""
    return json.dumps(dict(native), separators=(",", ":")).encode("utf-8")


def score_of_distance(distance: float, metric: str) -> float:
    """pypaimon's score (higher is better) of a paimon-vindex distance."""
    if metric == "l2":
        return 1.0 / (1.0 + distance)
    if metric == "cosine":
        return 1.0 - distance
    if metric == "inner_product":
        return -distance
    raise ValueError(f"Unknown vector search metric: {metric}")


def search_mode(call_options: Mapping[str, Any], table_options: Mapping[str, Any],
                family: str) -> str:
    """pypaimon's search mode of an index family (``vector-index``, ``full-text-index``):
    ``<family>.search-mode``, else ``global-index.search-mode``; call options (the vector
    builders' ``with_option(s)``) before table options. ``fast`` searches only the rows index
    files cover; ``full`` and ``detail`` also score the others directly (equal results here:
    both search exactly the live rows no file covers). Default ``full`` (pypaimon: ``fast``).
    ValueError for another value."""
    for source in (call_options, table_options):
        for key in (f"{family}.search-mode", "global-index.search-mode"):
            value = source.get(key)
            if value is None:
                continue
            mode = str(value).strip().lower()
            if mode not in SEARCH_MODES:
                raise ValueError(f"Invalid {key} '{value}': expected one of "
                                 f"{', '.join(SEARCH_MODES)}.")
            return mode
    return DEFAULT_SEARCH_MODE


#: Our refine factor where no option sets one (pypaimon: none). IVF-PQ's quantized scores
#: rank clustered neighbours poorly (recall@10 0.24 at paimon-vindex's default pq.m on
#: bench/vector_search.py's 100k x 128 data); rescoring k x 20 hits exactly lifts it past 0.95
#: (bench/RESULTS-search.md). ``refine-factor`` 1 rescores only the k hits.
DEFAULT_REFINE_FACTORS = {"ivf-pq": 20}


def refine_factor(options: Dict[str, str], table_options: Dict[str, str], column: str,
                  index_type: str) -> int:
    """pypaimon's ``refine-factor`` lookup (also ``refine_factor``, ``rerank-factor``,
    ``rerank_factor``), call options first, then table options; per field
    (``fields.<col>.``), per index type (``ivf-pq.``, ``ivf_pq.``, ``ivf.``) or bare; else
    ``DEFAULT_REFINE_FACTORS`` (0: none)."""
    prefixes: List[str] = []
    normalized = index_type.replace("-", "_")
    for base in (f"fields.{column}.", ""):
        prefixes.append(base + index_type + ".")
        if normalized != index_type:
            prefixes.append(base + normalized + ".")
        if normalized.startswith("ivf"):
            prefixes.append(base + "ivf.")
        prefixes.append(base)
    for source in (options, table_options):
        for prefix in prefixes:
            for suffix in ("refine_factor", "refine-factor", "rerank_factor", "rerank-factor"):
                value = source.get(prefix + suffix)
                if value is None:
                    continue
                try:
                    factor = int(str(value).strip())
                except ValueError as e:
                    raise ValueError(f"Invalid vector refine factor: {value}. Must be an "
                                     "integer.") from e
                if factor <= 0:
                    raise ValueError(f"Vector refine factor must be positive, got: {value}")
                return factor
    return DEFAULT_REFINE_FACTORS.get(index_type, 0)
