"""The vectors a refine factor rescores with (docs/search.md, "Refining quantized hits"): the
vector column of an index file's row range, read once and kept per index file, so a refined
query costs a lookup instead of a scan of its hits.

Sound because an index file is live only while its rows' vectors are the ones it indexed: an
update of the column is refused (THROW_ERROR) or drops the file in the same commit
(DROP_PARTITION_INDEX; a rebuild writes a new file name), and under IGNORE no index file is
used at all. Compaction keeps values and row ids. Deleted rows may stay in a cached block; the
index never returns them (include bitmaps), and a lookup returns only the ids asked for.

Cost: rows x dimension x 4 bytes per cached file (the size of an ``ivf-flat`` file), at most
``CACHE_BYTES`` in all (least recently used files go first); a file larger than that is not
cached and its hits are read through a scan per query batch, as before.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

#: Bytes of vectors kept for refining, all files together.
CACHE_BYTES = 512 << 20

_lock = threading.Lock()
_blocks: OrderedDict[str, Tuple[np.ndarray, np.ndarray]] = OrderedDict()
_held = 0


def _block(path: str, rows: int, dimension: int,
           read: Callable[[], Tuple[np.ndarray, np.ndarray]]
           ) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(sorted row ids, vectors) of the file at ``path``, read with ``read`` on first use;
    None when the file's vectors would not fit in ``CACHE_BYTES``."""
    global _held
    if rows * dimension * 4 > CACHE_BYTES:
        return None
    with _lock:
        found = _blocks.get(path)
        if found is not None:
            _blocks.move_to_end(path)
            return found
    ids, vectors = read()
    order = np.argsort(ids, kind="stable")
    block = (np.ascontiguousarray(ids[order]), np.ascontiguousarray(vectors[order]))
    with _lock:
        if path not in _blocks:
            _blocks[path] = block
            _held += block[1].nbytes
            while _held > CACHE_BYTES and len(_blocks) > 1:
                _, (_, old) = _blocks.popitem(last=False)
                _held -= old.nbytes
    return block


def vectors_of_hits(f: Dict[str, Any], dimension: int, union: np.ndarray,
                    read_all: Callable[[], Tuple[np.ndarray, np.ndarray]],
                    read_rows: Callable[[np.ndarray], Tuple[np.ndarray, np.ndarray]]
                    ) -> Tuple[np.ndarray, np.ndarray]:
    """(row ids, vectors) of the rows ``union`` (ascending absolute row ids inside the index
    file ``f``): from the file's cached block (read with ``read_all`` on first use); rows the
    block lacks (deleted when it was read, seen again by time travel) and every row of a file
    too large to cache are read with ``read_rows``."""
    block = _block(f["path"], int(f["to"]) - int(f["from"]) + 1, dimension, read_all)
    if block is None or block[0].size == 0:
        return read_rows(union)
    ids, vectors = block
    at = np.minimum(np.searchsorted(ids, union), ids.size - 1)
    keep = ids[at] == union
    if keep.all():
        return union, vectors[at]
    more_ids, more = read_rows(union[~keep])
    return (np.concatenate([union[keep], more_ids]),
            np.concatenate([vectors[at[keep]], more.reshape(-1, vectors.shape[1])]))


def cached_files() -> int:
    """How many files' vectors are held (tests)."""
    with _lock:
        return len(_blocks)
