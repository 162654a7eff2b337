"""How a matrix of chunk vectors is scanned: the products, their threads, and principal axes.

A scan is a matrix-vector product bound by memory bandwidth. numpy's BLAS runs on the calling
thread only; a large product is split by this module into two halves on two threads; and the
principal axes of a set of rows let a first pass read only the leading coordinates of each
(services/search/vectors.py; docs/architecture.md, "Queries").
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

# Rows from which a product is split over two threads (below it the matrix stays in the CPU's
# cache and the hand-over would cost more than it saves).
SPLIT_MIN_ROWS = 32_768

# With the other core idle, the first pass over 100,000 rows takes 1.3 ms on two threads instead
# of 1.9 (numpy releases the GIL in the product). Scans run on the event loop, so one at a time:
# one helper thread is enough.
_SCAN_HELPER = ThreadPoolExecutor(1, thread_name_prefix="search-scan")


def scan_on_one_thread() -> None:
    """Limit numpy's BLAS to the calling thread, for the whole process.

    OpenBLAS's own threads (one per core by default) wake, split a product and spin, and at
    100,000 chunks made a scan slower in wall time than one thread, the more so when the other
    core is busy (docs/performance.md, "Search"). Queries already run side by side on the event
    loop and the query pool's threads, and `product` splits a large scan itself.
    """
    threadpool_limits(1, user_api="blas")


def product(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """`matrix @ query`, a large matrix in two halves on two threads."""
    if len(matrix) < SPLIT_MIN_ROWS:
        scores: np.ndarray = matrix @ query
        return scores
    scores = np.empty(len(matrix), dtype=np.float32)
    half = len(matrix) // 2
    other = _SCAN_HELPER.submit(np.matmul, matrix[half:], query, out=scores[half:])
    np.matmul(matrix[:half], query, out=scores[:half])
    other.result()
    return scores


def principal_axes(sample: np.ndarray) -> np.ndarray:
    """The orthonormal turn (columns: axes) to the principal axes of `sample`'s rows, the axis
    along which they differ most first. `sample` is centred in place."""
    sample -= sample.mean(axis=0)
    _, axes = np.linalg.eigh((sample.T @ sample).astype(np.float64))  # ascending variance
    return np.ascontiguousarray(axes[:, ::-1], dtype=np.float32)
