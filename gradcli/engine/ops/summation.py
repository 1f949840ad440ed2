"""Float32 sums added in the order PyTorch's CPU kernel adds them: of all entries, or along one dim.

Floating-point addition is not associative, so the last bit of a sum depends on
the order. NumPy sums pairwise in blocks of 8; PyTorch's kernel (``SumKernel.cpp``,
``cascade_sum``) adds a contiguous run of entries with one accumulator per lane
of a 32-byte vector (8 float32), four vectors in flight (``row_sum``), each
accumulator adding its rows in a cascade of blocks of 16 (``multi_row_sum``);
along a dim that is not the last it adds whole rows, 32 or 4 columns at a time
in the cascade and the rest with ``row_sum``. Replaying that order makes
``x.sum()``, ``x.mean(0)`` and a bias's gradient agree with PyTorch's to the
last bit. Above ``LARGEST`` entries PyTorch splits a sum among threads, whose
number decides the order: there NumPy's sum stands. So it does in float64, the
language's dtype, whose speed matters more than its last bit.
"""

from __future__ import annotations

import numpy as np

LARGEST = 32768  # PyTorch's grain size: larger sums are split among threads
_LANES = 8  # float32 entries in a 32-byte vector
_IN_FLIGHT = 4  # vectors accumulated side by side (PyTorch's ilp_factor)
_BLOCK = 16  # rows summed before they join the next level of the cascade
_SEQUENTIAL = 4  # up to this many entries NumPy adds them in order too
_F32 = np.dtype(np.float32)


def sum_all(x: np.ndarray) -> np.ndarray:
    """The sum of every entry of ``x`` as a 0-d array, in PyTorch's order where it is known."""
    if x.dtype != _F32 or not _SEQUENTIAL < x.size <= LARGEST:
        return np.asarray(np.sum(x))
    return np.asarray(_contiguous_sum(x.ravel(order="K")))  # memory order, as PyTorch's


def sum_along(x: np.ndarray, axis: int) -> np.ndarray:
    """The sum of ``x`` along one ``axis`` (negative), in PyTorch's order where it is known."""
    if x.dtype != _F32 or x.size > LARGEST or not x.flags.c_contiguous or x.shape[axis] < 2:
        return np.sum(x, axis=axis)
    n = x.shape[axis]
    outer = x.shape[:axis]
    inner = x.shape[axis + 1 :] if axis != -1 else ()
    k = int(np.prod(inner, dtype=np.int64))
    rows = x.reshape(-1, n, k).transpose(1, 0, 2)  # (summed, outer, inner)
    if k == 1:  # the summed dim is the contiguous one: each run is summed as sum_all's
        return _contiguous_sum(rows[:, :, 0]).reshape(outer)
    # Whole rows at a time: 32 columns (8 when fewer than 8) in the cascade, the rest by row_sum.
    in_cascade = _IN_FLIGHT * (_LANES * (k // (_LANES * _IN_FLIGHT)) if k >= _LANES else k // 4)
    total = np.empty(rows.shape[1:], x.dtype)
    total[:, :in_cascade] = _cascade(rows[:, :, :in_cascade])
    total[:, in_cascade:] = _row_sum(rows[:, :, in_cascade:])
    return total.reshape(outer + inner)


def _contiguous_sum(entries):
    """A contiguous run of entries summed (lane by lane of any trailing dims): whole
    vectors by row_sum, then the entries that fill no vector, then the vector's lanes."""
    n_vectors = len(entries) // _LANES
    if len(entries) <= _SEQUENTIAL or n_vectors == 0:
        return _row_sum(entries)
    lanes = _row_sum(entries[: n_vectors * _LANES].reshape((n_vectors, _LANES) + entries.shape[1:]))
    total = np.zeros(entries.shape[1:], entries.dtype)
    for entry in entries[n_vectors * _LANES :]:
        total = total + entry
    for lane in lanes:
        total = total + lane
    return total


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
        block_sums = np.add.accumulate(blocked, axis=1)[:, -1]  # row after row
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


def float32_sum(x, dim, keepdim):
    """A float32 sum of all entries or along one dim, added in PyTorch's order (so it agrees
    to the last bit: this module); None for the sums NumPy's order stands for."""
    if type(x) is not np.ndarray or x.dtype != np.float32:
        return None
    if dim is None:
        return None if keepdim else sum_all(x)
    from .common import axis

    ax = axis(dim, x.ndim)
    if len(ax) != 1:
        return None
    total = sum_along(x, ax[0])
    return np.expand_dims(total, ax[0]) if keepdim else total
