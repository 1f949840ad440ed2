"""Float32 sums added in the order PyTorch's CPU kernel adds them: over any dims, any size.

Floating-point addition is not associative, so the last bit of a sum depends on
the order. NumPy sums pairwise in blocks of 8; PyTorch (``SumKernel.cpp``,
``cascade_sum``, driven by ``TensorIterator``) adds in an order this module
replays, so ``x.sum()``, ``x.mean((0, 2))`` and a bias's gradient agree to the
last bit:

- The iteration: the tensor's dims of size > 1, ordered as ``TensorIterator``
  orders them (reduced dims innermost, then by stride), neighbours merged where
  memory allows. Its two innermost dims make one call of the kernel's loop; the
  outer dims repeat it, each call adding into its output entries (``+=``).
- In one call, each output column is summed along the reduced dim in one of two
  orders: ``_cascade`` (``multi_row_sum``: blocks of 2**p rows added in turn, the
  blocks' sums gathered level by level) or ``_row_sum`` (four accumulators side by
  side, each a cascade). Which, for which columns, follows the kernel's branches:
  a contiguous reduced dim sums vectors of 8 lanes then the lanes
  (``_contiguous_sum``); contiguous kept columns go in cascades 32 at a time, the
  rest 8 or 1 at a time by ``_row_sum``.
- From ``GRAIN`` entries up PyTorch splits the work among its threads
  (``get_num_threads``, as ``torch.get_num_threads()``): a sum of everything
  into one partial sum per thread's range, then those added; other sums split
  along a kept dim, which changes where the 32-column groups fall.

The order depends on the layout alone (shape, strides, dims, threads), so each layout's
calls are planned once (``_plan``) and a sum only runs them; each block of rows summed in
order is one NumPy reduction row after row (``_each_in_order``), not a Python loop.

Float64, the language's dtype, keeps NumPy's sum, whose speed matters more than its
last bit; so does a layout no tensor of PyTorch's has (strides that are no whole
number of entries), and a sum that would take more than ``MAX_CALLS`` calls.
"""

from __future__ import annotations

import math

import numpy as np

from .. import state
from .common import axis

GRAIN = 32768  # PyTorch's grain size: sums of this many entries or more are split
_LANES = 8  # float32 entries in a 32-byte vector
_IN_FLIGHT = 4  # accumulators side by side (PyTorch's ilp_factor, and nrows)
_COLUMN_ROUNDING = 32  # columns per 128 bytes: a thread's share of columns starts at one
MAX_CALLS = 4096  # calls of the kernel's loop replayed one by one, at most
_F32 = np.dtype(np.float32)


def sum_all(x: np.ndarray) -> np.ndarray:
    """The sum of every entry of ``x`` as a 0-d array, in PyTorch's order for float32."""
    x = np.asarray(x)
    return np.asarray(sum_over(x, tuple(range(x.ndim))))


def sum_along(x: np.ndarray, axis: int) -> np.ndarray:
    """The sum of ``x`` along one ``axis``, in PyTorch's order for float32."""
    return sum_over(x, (axis,))


def float32_sum(x, dim, keepdim):
    """A float32 sum of all entries or along dims, in PyTorch's order; None for the sums
    NumPy's order stands for (another dtype)."""
    if type(x) is not np.ndarray or x.dtype != _F32:
        return None

    axes = tuple(range(x.ndim)) if dim is None else axis(dim, x.ndim)
    total = sum_over(x, axes)
    if keepdim:
        return total.reshape([1 if i - x.ndim in axes or i in axes else n
                              for i, n in enumerate(x.shape)])  # fmt: skip
    return total


def sum_over(x: np.ndarray, axes) -> np.ndarray:
    """``x`` summed over ``axes`` (dims removed), in PyTorch's order for float32."""
    x = np.asarray(x)
    if x.dtype != _F32:
        return np.asarray(
            np.sum(x, axis=tuple(sorted({a % x.ndim for a in axes})) if x.ndim else ())
        )
    key = (x.shape, x.strides, tuple(axes), state.get_num_threads())
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        plan = _PLANS[key] = _plan(x.shape, x.strides, key[2], key[3])
    return plan(x)


# A sum's order depends on the layout alone (shape, strides, dims, threads), never on the
# values: each layout's plan is worked out once, and each sum of it only runs its calls.
_PLANS = {}
_PLANS_KEPT = 1024


def _plan(shape, strides, axes, threads):
    """The function that sums an array of this layout over ``axes``."""
    ndim = len(shape)
    axes = tuple(sorted({a % ndim for a in axes})) if ndim else ()
    kept = tuple(n for i, n in enumerate(shape) if i not in axes)
    if math.prod(shape) == 0:
        return lambda x: np.zeros(kept, _F32)
    if all(shape[a] == 1 for a in axes) and ndim:  # nothing to add: 0 + x
        return lambda x: x.reshape(kept) + np.float32(0)

    def numpy_sum(x):
        return np.asarray(np.sum(x, axis=axes))

    if any(s < 0 for s in strides):  # PyTorch's tensors have no negative strides (flip copies)
        contiguous = _plan(shape, _c_strides(shape), axes, threads)
        return lambda x: contiguous(np.ascontiguousarray(x))
    if any(s % _F32.itemsize for s in strides):
        return numpy_sum
    steps = _replay(_iteration(shape, strides, axes), threads)
    if steps is None:
        return numpy_sum
    size = max(math.prod(kept), 1)
    span = 1 + sum((n - 1) * s // _F32.itemsize for n, s in zip(shape, strides))
    calls, shared = steps

    def run(x):
        base = x.reshape(-1) if x.flags.c_contiguous else _base(x, span)
        out = np.zeros(size, _F32)
        partial = np.zeros(threads, _F32) if shared else None
        for view_shape, view_strides, start, call in calls:
            rows = np.ndarray(view_shape, _F32, base, start, view_strides)
            call(rows, out if partial is None else partial)
        if shared:
            out += sum_over(partial, (0,))
        return out.reshape(kept)

    return run


def _c_strides(shape):
    strides, step = [], _F32.itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _base(x, span):
    """``x``'s memory from its first entry, flat (``x`` has non-negative strides)."""
    return np.lib.stride_tricks.as_strided(x, shape=(span,), strides=(x.itemsize,))


# ----------------------------------------------------------------------------
# The iteration: TensorIterator's dims, ordered and merged
# ----------------------------------------------------------------------------


class _Dim:
    __slots__ = ("size", "input", "output")

    def __init__(self, size, input, output):
        self.size, self.input, self.output = size, input, output  # strides in entries

    @property
    def reduced(self):
        return self.output == 0


def _iteration(shape, strides, axes):
    """The dims of the loop, innermost first (TensorIterator's reorder and coalesce)."""
    out_strides, step = {}, 1
    for i in reversed(range(len(shape))):
        if i not in axes:
            out_strides[i] = step
            step *= shape[i]
    dims = [_Dim(n, s // _F32.itemsize, out_strides.get(i, 0))
            for i, (n, s) in enumerate(zip(shape, strides)) if n != 1]  # fmt: skip
    order = list(reversed(dims))
    for i in range(1, len(order)):  # PyTorch's insertion sort, ambiguous pairs kept
        j = i
        for k in range(i - 1, -1, -1):
            comparison = _should_swap(order[k], order[j])
            if comparison > 0:
                order[k], order[j] = order[j], order[k]
                j = k
            elif comparison < 0:
                break
    merged = []
    for d in order:
        last = merged[-1] if merged else None
        if last and last.size * last.input == d.input and last.size * last.output == d.output:
            merged[-1] = _Dim(last.size * d.size, last.input, last.output)
        else:
            merged.append(d)
    return merged


def _should_swap(a, b):
    """1 if dim ``a`` goes after dim ``b``, -1 before, 0 if it cannot tell: the output's
    reduced dims first, then the smaller stride of the output, then of the input."""
    if a.reduced != b.reduced:
        return 1 if b.reduced else -1
    for sa, sb in ((a.output, b.output), (a.input, b.input)):
        if sa == 0 or sb == 0:
            continue
        if sa != sb:
            return -1 if sa < sb else 1
        if a.size > b.size:
            return 1
    return 0


# ----------------------------------------------------------------------------
# The calls of the kernel's loop, serial or split among threads
# ----------------------------------------------------------------------------
#
# Each call is planned as (shape, strides, offset, call): the rows it sums, a view of the
# input's memory (the summed dim first, strides and offset in bytes), and the function
# that sums them into the output.


def _replay(dims, threads):
    """The calls that add the entries as PyTorch's sum does, and whether they add into one
    partial sum per thread (added after); None where the sum is not replayed."""
    n = math.prod(d.size for d in dims)
    if n < GRAIN or threads == 1:
        calls = _serial(0, 0, dims)
        return None if calls is None else (calls, False)
    if all(d.reduced for d in dims):  # one partial sum per thread's range, then those added
        used = min(threads, -(-n // GRAIN))
        chunk = -(-n // used)
        calls = []
        for t in range(used):
            ranged = _ranged(dims, t * chunk, min(n, (t + 1) * chunk), t)
            if ranged is None:
                return None
            calls += ranged
        return calls, True
    calls = _split_along_columns(dims, threads)
    return None if calls is None else (calls, False)


def _split_along_columns(dims, threads):
    """PyTorch's parallel_dim_reduction: the outermost kept dim of at least ``threads``
    entries (else the largest) cut into one share per thread, each share's ends rounded
    down to a multiple of 32 where that dim is contiguous; each share summed alone."""
    split = len(dims) - 1
    for i in range(len(dims) - 1, -1, -1):
        if dims[i].reduced:
            break
        if dims[i].size >= threads:
            split = i
            break
        if dims[i].size > dims[split].size:
            split = i
    d = dims[split]
    chunk = -(-d.size // min(threads, d.size))
    calls = []
    for begin in range(0, d.size, chunk):
        end = min(d.size, begin + chunk)
        if d.input == 1:
            begin -= begin % _COLUMN_ROUNDING
            end = end if end == d.size else end - end % _COLUMN_ROUNDING
        if begin == end:
            continue
        share = [*dims[:split], _Dim(end - begin, d.input, d.output), *dims[split + 1 :]]
        serial = _serial(begin * d.input, begin * d.output, share)
        if serial is None:
            return None
        calls += serial
    return calls


def _planned(rows_shape, rows_strides, start, targets, d0, d1):
    size = _F32.itemsize
    strides = tuple(s * size for s in rows_strides)
    return tuple(rows_shape), strides, start * size, _call(targets, d0, d1)


def _serial(offset, out_offset, dims):
    """Every call of the loop over the whole iteration: the calls into different output
    entries at once, those into the same entries one after another."""
    dims = [*dims, _Dim(1, 0, 0), _Dim(1, 0, 0)][: max(len(dims), 2)]
    inner, outer = dims[:2], dims[2:]
    reduced_outer = [d for d in outer if d.reduced][::-1]  # outermost first
    kept_outer = [d for d in outer if not d.reduced][::-1]
    if math.prod(d.size for d in reduced_outer) > MAX_CALLS:
        return None
    targets = np.zeros((), np.int64) + out_offset
    for d in [*kept_outer, inner[1]]:
        targets = targets[..., None] + np.arange(d.size) * d.output
    shape = [inner[0].size] + [d.size for d in kept_outer] + [inner[1].size]
    strides = [inner[0].input] + [d.input for d in kept_outer] + [inner[1].input]
    return [
        _planned(shape, strides, offset + sum(i * d.input for i, d in zip(r, reduced_outer)),
                 targets, inner[0], inner[1])
        for r in np.ndindex(*[d.size for d in reduced_outer])
    ]  # fmt: skip


def _ranged(dims, begin, end, out_offset):
    """The calls of the loop over entries ``begin`` to ``end`` of the iteration (a thread's
    range), one by one as PyTorch's DimCounter steps through them; every dim is reduced."""
    dims = [*dims, _Dim(1, 0, 0), _Dim(1, 0, 0)][: max(len(dims), 2)]
    shape = [d.size for d in dims]
    values = [int(v) for v in np.unravel_index(begin, shape[::-1])][::-1]
    at, calls = begin, []
    while at < end:
        step0 = min(shape[0] - values[0], end - at)
        step1 = 1
        if step0 == shape[0]:
            step1 = min(shape[1] - values[1], (end - at) // shape[0])
        start = sum(v * d.input for v, d in zip(values, dims))
        d0, d1 = _Dim(step0, dims[0].input, 0), _Dim(step1, dims[1].input, 0)
        targets = np.zeros(step1, np.int64) + out_offset
        calls.append(_planned((step0, step1), (d0.input, d1.input), start, targets, d0, d1))
        at += step0 * step1
        carry, i = (step1, 1) if step1 != 1 else (step0, 0)
        while i < len(values) and carry:
            values[i] += carry
            carry = 1 if values[i] >= shape[i] else 0
            values[i] -= shape[i] * carry
            i += 1
        if len(calls) > MAX_CALLS:
            return None
    return calls


# ----------------------------------------------------------------------------
# One call: cascade_sum's branches, and the orders of multi_row_sum and row_sum
# ----------------------------------------------------------------------------


def _call(targets, d0, d1):
    """One call of cascade_sum's loop, as a function of its rows (size0, K..., size1),
    ``d0`` reduced, and the output: each column's sum added into the output at ``targets``
    (K..., size1), the columns of one output entry in turn."""
    n, k = d0.size, d1.size
    if d0.input == 1 and n >= _LANES:  # contiguous inner reduction: vectors, then lanes
        sums_of = _contiguous_sum
    else:
        if d1.input == 1 and k >= _LANES:  # contiguous outer: 32 columns at a time
            grouped = _IN_FLIGHT * _LANES * (k // (_IN_FLIGHT * _LANES))
        elif d0.input < d1.input:  # column by column
            grouped = 0
        else:  # 4 columns at a time
            grouped = _IN_FLIGHT * (k // _IN_FLIGHT)
        sums_of = _split_sum(grouped, k)
    if not d1.output:  # every column into the same entry, in column order
        at = targets[..., 0]

        def into_one(rows, out):
            whole = np.concatenate([out[at][..., None], sums_of(rows)], axis=-1)
            out[at] = np.add.accumulate(whole, axis=-1)[..., -1]

        return into_one
    first = int(targets.flat[0])
    if np.array_equal(targets.ravel(), np.arange(first, first + targets.size)):
        span = slice(first, first + targets.size)  # the output's entries in order

        def into_span(rows, out):
            out[span] += sums_of(rows).ravel()

        return into_span

    def into_targets(rows, out):
        out[targets] += sums_of(rows)

    return into_targets


def _split_sum(grouped, k):
    """The columns' sums: the first ``grouped`` by cascades, the others by row_sum."""
    if grouped == k:
        return _cascade
    if grouped == 0:
        return _row_sum

    def split(rows):
        sums = np.empty(rows.shape[1:], _F32)
        sums[..., :grouped] = _cascade(rows[..., :grouped])
        sums[..., grouped:] = _row_sum(rows[..., grouped:])
        return sums

    return split


def _contiguous_sum(entries):
    """A contiguous run of entries summed (lane by lane of any trailing dims): whole
    vectors by row_sum, then the entries that fill no vector, then the vector's lanes."""
    n_vectors = len(entries) // _LANES
    lanes = _row_sum(entries[: n_vectors * _LANES].reshape((n_vectors, _LANES) + entries.shape[1:]))
    return _in_order(np.concatenate([entries[n_vectors * _LANES :], lanes]))


def _row_sum(rows):
    """The rows (entries, or vectors) summed with four accumulators side by side."""
    n = len(rows) // _IN_FLIGHT
    partial = _cascade(rows[: n * _IN_FLIGHT].reshape((n, _IN_FLIGHT) + rows.shape[1:]))
    rest = rows[n * _IN_FLIGHT :]
    if len(rest):  # the rows after the last four go to the first accumulator, in order
        partial[0] = _in_order(np.concatenate([partial[:1], rest]))
    return _in_order(partial)


def _cascade(rows):
    """PyTorch's multi_row_sum: blocks of 2**p rows (p = max(4, ceil(log2 n) // 4)) each
    summed in order and added into level 1; every 2**p blocks level 1 joins level 2 and
    starts again, every 2**p of those level 2 joins level 3; the rows after the last
    whole block stay on level 0; then the levels are added, 0 to 3."""
    n = len(rows)
    step = 1 << max(4, (n - 1).bit_length() // 4 if n > 2 else 0)
    n_blocks = n // step
    if n_blocks == 0:  # level 0 alone
        return _in_order(rows)
    blocks = _each_in_order(rows[: n_blocks * step].reshape((n_blocks, step) + rows.shape[1:]))
    joined1, level1 = _groups(blocks, step)
    total = _in_order(level1)
    if n_blocks * step < n:
        total = _in_order(rows[n_blocks * step :]) + total
    if len(joined1):
        joined2, level2 = _groups(joined1, step)
        total = (total + _in_order(level2)) + _in_order(joined2)
    return total


def _groups(sums, step):
    """Consecutive ``sums`` in whole groups of ``step``: each group's sum in order, and the
    sums after the last whole group."""
    whole = len(sums) // step
    return _each_in_order(sums[: whole * step].reshape((whole, step) + sums.shape[1:])), sums[
        whole * step :
    ]


def _each_in_order(groups):
    """Each group (axis 1) summed from zero in order: ((0 + a) + b) + ...

    Starting from the first entry rather than from zero changes a sum only by the sign of
    a zero, which the closing ``+ 0`` makes positive either way."""
    if groups.shape[1] == 0 or groups.shape[0] == 0:
        return np.zeros((groups.shape[0],) + groups.shape[2:], _F32)
    if groups[0, 0].size < 2:  # one entry a row: accumulate runs along it, one by one
        return np.add.accumulate(groups, axis=1)[:, -1] + np.float32(0)
    # With the rows' entries contiguous and innermost, NumPy's reduction adds row after
    # row into the output, entry by entry, in order; it sums pairwise only along an
    # innermost reduced axis, which this layout never has. Far faster than accumulate,
    # which walks each column alone.
    return np.add.reduce(np.ascontiguousarray(groups), axis=1) + np.float32(0)


def _in_order(sums):
    """The sums (axis 0) added from zero in order."""
    return _each_in_order(sums[None])[0]
