"""Ranking pieces of a search (docs/search.md): row-id range arithmetic, exact scores of
vectors as pypaimon converts paimon-vindex's distances, and the per-query top-k. Pure numpy,
no I/O."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

Ranges = List[Tuple[int, int]]

#: Rows scored per block by ``offer_scores`` (bounds the [queries, rows] score matrix).
SCORE_BLOCK_ROWS = 65536


def merge_ranges(ranges: Ranges) -> Ranges:
    out: Ranges = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def subtract(lo: int, hi: int, covered: Ranges) -> Ranges:
    """The parts of [lo, hi] no range of ``covered`` (sorted, merged) holds."""
    out: Ranges = []
    nxt = lo
    for c_lo, c_hi in covered:
        if c_hi < nxt:
            continue
        if c_lo > hi:
            break
        if c_lo > nxt:
            out.append((nxt, c_lo - 1))
        nxt = max(nxt, c_hi + 1)
    if nxt <= hi:
        out.append((nxt, hi))
    return out


def ids_to_ranges(ids: np.ndarray) -> Ranges:
    """Ascending ids as inclusive runs."""
    if ids.size == 0:
        return []
    breaks = np.nonzero(np.diff(ids) != 1)[0]
    starts = np.concatenate(([ids[0]], ids[breaks + 1]))
    ends = np.concatenate((ids[breaks], [ids[-1]]))
    return [(int(a), int(b)) for a, b in zip(starts, ends)]


def scores_of(vectors: np.ndarray, queries: np.ndarray, metric: str) -> np.ndarray:
    """[q, n] scores of ``vectors`` for ``queries`` as paimon-vindex's distances converted by
    pypaimon (l2: squared distance, 1 / (1 + d); cosine: 1 - (1 - cos); ip: dot). One query
    is scored by numpy's own single-threaded loop: through BLAS a product this small wakes
    OpenBLAS's threads, which costs more than the product (10,000 x 128: 0.25 ms of CPU
    against 0.45-2.9 ms, more on a loaded machine)."""
    if queries.shape[0] == 1:
        dots = np.einsum("ij,j->i", vectors, queries[0], optimize=False)[None, :]
    else:
        dots = queries @ vectors.T
    if metric == "inner_product":
        return dots
    if metric == "l2":
        d = (queries * queries).sum(1)[:, None] + (vectors * vectors).sum(1)[None, :] - 2 * dots
        return 1.0 / (1.0 + np.maximum(d, 0.0))
    if metric == "cosine":
        qn = np.linalg.norm(queries, axis=1)[:, None]
        vn = np.linalg.norm(vectors, axis=1)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.nan_to_num(dots / (qn * vn))
    raise ValueError(f"Unknown vector search metric: {metric}")


class TopK:
    """The best ``k`` (score, row id) per query: higher score first, then smaller row id."""

    def __init__(self, queries: int, k: int) -> None:
        self.k = k
        self.scores: List[Dict[int, float]] = [{} for _ in range(queries)]

    def offer(self, query: int, row_ids: Any, scores: Any) -> None:
        found = self.scores[query]
        for row_id, score in zip(row_ids, scores):
            found[int(row_id)] = float(score)
        if len(found) > 4 * self.k:
            self.scores[query] = dict(self.ranked(query))

    def ranked(self, query: int) -> List[Tuple[int, float]]:
        items = sorted(self.scores[query].items(), key=lambda kv: (-kv[1], kv[0]))
        return items[:self.k]


def offer_scores(ids: np.ndarray, vectors: np.ndarray, queries: np.ndarray, metric: str,
                 top: TopK) -> None:
    """Scores ``vectors`` (rows ``ids``) for every query and offers each query's best."""
    if ids.size == 0:
        return
    if vectors.shape[1] != queries.shape[1]:
        raise ValueError(f"Query vector dimension mismatch: expected {vectors.shape[1]}, "
                         f"got {queries.shape[1]}")
    for lo in range(0, ids.size, SCORE_BLOCK_ROWS):
        block = scores_of(vectors[lo:lo + SCORE_BLOCK_ROWS], queries, metric)
        block_ids = ids[lo:lo + SCORE_BLOCK_ROWS]
        width = int(block.shape[1])
        keep = top.k if top.k < width else width
        for q in range(queries.shape[0]):
            best = np.argpartition(-block[q], keep - 1)[:keep] if keep < width \
                else np.arange(width)
            top.offer(q, block_ids[best], block[q][best])
