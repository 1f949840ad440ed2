"""The sum of all entries of a float32 tensor, added in the order PyTorch's CPU kernel adds them.

Floating-point addition is not associative, so the last bit of a sum depends on
the order. NumPy sums pairwise in blocks of 8; PyTorch's kernel (``SumKernel.cpp``,
``cascade_sum``) keeps one accumulator per lane of a 32-byte vector (8 float32),
four vectors in flight, and adds its rows in a cascade of blocks of 16.
Replaying that order makes ``x.sum()`` and ``x.mean()`` of a float32 loss agree
with PyTorch's to the last bit. Above ``LARGEST`` entries PyTorch splits the sum
among threads, whose number decides the order: there NumPy's sum stands. So it
does in float64, the language's dtype, whose speed matters more than its last bit
(the same order gives PyTorch's float64 sums too, with 4 lanes).
"""

from __future__ import annotations

import numpy as np

LARGEST = 32768  # PyTorch's grain size: larger sums are split among threads
_VECTOR_BYTES = 32
_IN_FLIGHT = 4  # vectors accumulated side by side (PyTorch's ilp_factor)
_BLOCK = 16  # rows summed before they join the next level of the cascade
_SEQUENTIAL = 4  # up to this many entries NumPy adds them in order too
_F32 = np.dtype(np.float32)


def sum_all(x: np.ndarray) -> np.ndarray:
    """The sum of every entry of ``x`` as a 0-d array, in PyTorch's order where it is known."""
    if x.dtype != _F32 or not _SEQUENTIAL < x.size <= LARGEST:
        return np.asarray(np.sum(x))
    flat = x.ravel(order="K")  # memory order, as PyTorch walks a tensor
    lanes = _VECTOR_BYTES // x.dtype.itemsize
    n_vectors = flat.size // lanes
    if n_vectors == 0:
        return np.asarray(_row_sum(flat))
    total = x.dtype.type(0)
    for entry in flat[n_vectors * lanes :]:  # the tail that fills no vector comes first
        total = total + entry
    for lane in _row_sum(flat[: n_vectors * lanes].reshape(n_vectors, lanes)):
        total = total + lane
    return np.asarray(total)


def _row_sum(rows):
    """The rows (entries, or vectors) summed with four accumulators side by side."""
    n = len(rows) // _IN_FLIGHT
    if n:
        grouped = rows[: n * _IN_FLIGHT].reshape((n, _IN_FLIGHT) + rows.shape[1:])
        partial = list(_cascade(grouped))
    else:
        partial = [np.zeros(rows.shape[1:], rows.dtype) for _ in range(_IN_FLIGHT)]
    for row in rows[n * _IN_FLIGHT :]:
        partial[0] = partial[0] + row
    total = partial[0]
    for p in partial[1:]:
        total = total + p
    return total


def _cascade(rows):
    """PyTorch's multi_row_sum for fewer than 2**16 rows: each block of 16 rows is summed in
    order and joins level 1; every 16 blocks level 1 joins level 2, every 256 level 2
    joins level 3; the rows after the last whole block stay on level 0."""
    n_blocks = len(rows) // _BLOCK
    levels = [np.zeros(rows.shape[1:], rows.dtype) for _ in range(4)]
    if n_blocks:
        blocked = rows[: n_blocks * _BLOCK].reshape((n_blocks, _BLOCK) + rows.shape[1:])
        block_sums = np.add.reduce(blocked.swapaxes(0, 1), axis=0)  # row after row
        for b in range(n_blocks):
            levels[1] = levels[1] + block_sums[b]
            done = (b + 1) * _BLOCK
            for j in (2, 3):
                if done & (_BLOCK - 1) << ((j - 1) * 4):
                    break
                levels[j] = levels[j] + levels[j - 1]
                levels[j - 1] = np.zeros_like(levels[j - 1])
    for row in rows[n_blocks * _BLOCK :]:
        levels[0] = levels[0] + row
    return ((levels[0] + levels[1]) + levels[2]) + levels[3]
