"""``torch.nn.functional``'s layer functions: ``linear``, ``normalize`` and ``pad``, and the
ops they are made of (``addmm``, ``clamp_min``, ``constant_pad_nd``, the reflection and
replication pads).

Each is composed as PyTorch composes it, so a graph has PyTorch's nodes: ``F.linear``
of a matrix with a bias is ``addmm(bias, x, w.t())`` (``AddmmBackward0``), of other
inputs a flattened ``addmm`` viewed back, or ``x @ w.t()`` without a bias;
``F.normalize`` is ``x / norm(x).clamp_min(eps).expand_as(x)``; ``F.pad`` is
``constant_pad_nd``, a reflection or replication pad of the last 1, 2 or 3 dims
(``ReflectionPad2DBackward0``), an index into the input whose rule adds the gradient
back where entries repeat, or the circular pad's slice assignments (``CopySlices``).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, NotImplementedByGradcli, ShapeError
from .. import batching_rules as batching
from .. import limits
from ..batched_values import Batched, call_physical, probe
from ..declared_samples import Sample
from ..optable import OWN, Table, over
from ..tensor import Tensor
from .arithmetic import add, div
from .common import LAYER as _LAYER
from .common import LAYER_IN_LANGUAGE as _IN_LANGUAGE
from .common import linear_dtypes
from .comparison import where
from .creation import zero_rule, zeros
from .indexing import getitem, index_scatter, setitem, zero_at
from .products import mat1_grad, mat2_grad, matmul
from .reductions import norm
from .shape import expand, reshape, t, view_op

table = Table("layers")

# ----- nn.Embedding's lookup: the rows of its weight -----


def _rows(indices):
    return np.asarray(indices._data if type(indices) is Tensor else indices)


def _embedding_rule(g, ans, weight, indices, padding_idx=None):
    grad = index_scatter(g, (_rows(indices),), np.shape(weight))
    if padding_idx is None:
        return grad
    return zero_at(grad, (padding_idx,), np.ndim(grad) - np.ndim(weight))  # never updated


embedding_rows = table.internal(
    "embedding_rows",
    lambda weight, indices, padding_idx=None: weight[_rows(indices)],
    "(weight: Tensor, indices, padding_idx: int = None)",
    grad_fn="EmbeddingBackward0",
    rules=(_embedding_rule,),
    size=lambda weight, indices, padding_idx=None: _rows(indices).size * np.shape(weight)[-1],
    doc="the rows of weight at indices, the row of padding_idx without gradient",
    kind="shape",
    words="g added into the rows looked up, none into padding_idx's",
    # padding_idx's row is held still, not differentiated: tests/test_nn.py checks it
    # against PyTorch (finite differences would see its entries move the result).
    samples=(Sample("rows", [(4, 3), np.array([[0, 2], [2, 1]])]),),
    batching=False,
    complex="holomorphic",
)


def embedding_lookup(weight, indices, padding_idx=None):
    """``nn.Embedding``'s rows of ``weight``, recorded as PyTorch records them."""
    return embedding_rows(weight, _rows(indices), padding_idx)


# ----- addmm: input + mat1 @ mat2 -----


def _addmm(input, mat1, mat2, beta=1, alpha=1):
    a, b = np.asarray(mat1), np.asarray(mat2)
    if a.ndim != 2 or b.ndim != 2:
        raise ShapeError(f"mat1 must be a matrix, got {a.ndim}-D tensor" if a.ndim != 2 else
                         f"mat2 must be a matrix, got {b.ndim}-D tensor")  # fmt: skip
    if a.shape[1] != b.shape[0]:
        raise ShapeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
            f"{b.shape[0]}x{b.shape[1]})"
        )
    product = np.matmul(a, b)
    if alpha != 1:
        product = product * alpha
    return (np.asarray(input) if beta == 1 else np.asarray(input) * beta) + product


def _scaled(product, alpha):
    """``product * alpha``, or ``product`` itself where that is the same numbers: alpha 1
    and real entries (a complex entry times 1 + 0j can change: inf * 0 is nan). As
    PyTorch's maybe_multiply: no pass over a weight's whole gradient to multiply by 1."""
    data = product._data if type(product) is Tensor else product
    if alpha == 1 and type(data) is np.ndarray and data.dtype.kind == "f":
        return product
    return product * alpha


addmm = table.op(
    "addmm", _addmm, "(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Number = 1, "
    "alpha: Number = 1)",
    grad_fn="AddmmBackward0", saves={"mat1": 2, "mat2": 1},
    rules=(lambda g, ans, c, a, b, beta=1, alpha=1: g if beta == 1 else g * beta,
           lambda g, ans, c, a, b, beta=1, alpha=1: _scaled(mat1_grad(g, b, a), alpha),
           lambda g, ans, c, a, b, beta=1, alpha=1: _scaled(mat2_grad(g, a, b), alpha)),
    size=lambda c, a, b, *params: max(np.size(c), np.shape(a)[0] * np.shape(b)[-1]),
    doc="beta * input + alpha * (mat1 @ mat2), input broadcast to the product",
    kind="linalg", method=True, domain=("real", "real", "real"), batching=False,
    words=("d addmm/dinput = beta", "d addmm/dmat1: g -> alpha * g @ mat2.T",
           "d addmm/dmat2: g -> alpha * mat1.T @ g"),
    samples=(Sample("2-d", [(2, 3), (2, 4), (4, 3)]), Sample("bias", [(3,), (2, 4), (4, 3)]),
             Sample("scaled", [(2, 3), (2, 4), (4, 3)], {"beta": 0.5, "alpha": 2.0})),
    complex="holomorphic",
    mp=OWN,
)  # fmt: skip


# ----- linear -----


def _linear_batching(entry, found):
    """linear at many points: x @ w.t() + b of each point's operands."""
    out = batching.call(matmul.op, found["input"], batching.call(t.op, found["weight"]))
    bias = found.get("bias")
    return out if bias is None else batching.call(add.op, out, bias)


@table.composite(
    "linear",
    "(input: Tensor, weight: Tensor, bias: Tensor = None)",
    doc="input @ weight.T + bias: a fully connected layer", **_IN_LANGUAGE,
    batching=_linear_batching,
    samples=(Sample("2-d", [(2, 4), (3, 4), (3,)]), Sample("1-d", [(4,), (3, 4), (3,)]),
             Sample("3-d", [(2, 2, 4), (3, 4), (3,)]), Sample("no bias", [(2, 4), (3, 4)])),
    complex="holomorphic",
    mp=OWN,
)  # fmt: skip
def linear(over, input, weight, bias=None):
    linear_dtypes(input, weight, bias)
    weight_t = t(weight)
    if bias is None:
        return matmul(input, weight_t)
    if np.ndim(input) == 2:
        return addmm(bias, input, weight_t)  # as PyTorch: the fused product
    contiguous = type(input) is not Tensor or input.is_contiguous()
    if contiguous and (np.ndim(input) == 3 or np.ndim(bias) == 1) and np.ndim(input) >= 1:
        # PyTorch's _flatten_nd_linear: the leading dims flattened into one, then viewed back.
        shape = np.shape(input)
        flat = reshape(input, (math.prod(shape[:-1]), shape[-1]))
        out = addmm(bias, flat, weight_t)
        return view_op(out, (*shape[:-1], np.shape(out)[1]))
    return matmul(input, weight_t) + bias


# ----- normalize -----

clamp_min = table.op(
    "clamp_min", lambda input, min: np.maximum(input, min), "(input: Tensor, min: Number)",
    grad_fn="ClampMinBackward0", rules=(lambda g, ans, x, min: where(x >= min, g, 0.0),),
    doc="max(x, min): x limited from below", kind="elementwise", method=True, inplace="library",
    kink="x gets the gradient at min", domain=("real", {"min": 0.0}),
    words="d clamp_min(a, min)/da = 1 where a >= min, else 0", mp=OWN,
)  # fmt: skip


def _normalize_batching(entry, found):
    """normalize at many points: each point's input over its own norm (broadcast)."""
    x = found["input"]
    size = batching.call(norm.op, x, found["p"], found["dim"], True)
    return batching.call(div.op, x, batching.call(clamp_min.op, size, found["eps"]))


@table.composite(
    "normalize",
    "(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12)",
    doc="input divided by its p-norm along dim (at least eps)",
    domain=("real",), **_LAYER, batching=_normalize_batching,
    samples=(Sample("2-d", [(2, 3)]), Sample("p 1 dim 0", [(2, 3)], {"p": 1.0, "dim": 0}),
             Sample("at 0", [(2, 3)], {"eps": 1e-6}, special=True)), mp=OWN,
)  # fmt: skip
def normalize(over, input, p=2.0, dim=1, eps=1e-12):
    denominator = clamp_min(norm(input, p, dim, True), eps)
    return input / expand(denominator, *np.shape(input))


# ----- pad -----


def _constant_pad(input, pad, value=0):
    x = np.asarray(input)
    pad = [int(p) for p in pad]
    _check_pad_length(pad, x.ndim)
    # Negative pads crop (each dim from its end, as PyTorch's pairs count from the last dim).
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if x.shape[d] + before + after < 0:
            raise EngineError(
                f"The input size {x.shape[d]}, plus negative padding {before} and {after} "
                f"resulted in a negative output size, which is invalid. Check dimension {d} of "
                "your input."
            )
        crop[d] = slice(-min(before, 0), x.shape[d] + min(after, 0))
        widths[d] = (max(before, 0), max(after, 0))
    return np.pad(x[tuple(crop)], widths, constant_values=value)


def _check_pad_length(pad, ndim):
    if len(pad) % 2:
        raise EngineError("Padding length must be divisible by 2")
    if len(pad) > 2 * ndim:
        raise EngineError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {ndim}"
        )


constant_pad_nd = table.op(
    "constant_pad_nd", _constant_pad, "(input: Tensor, pad: int[], value: Number = 0)",
    grad_fn="ConstantPadNdBackward0",
    # The adjoint of padding is cropping, and of cropping padding with zeros.
    rules=(lambda g, ans, x, pad, value=0: constant_pad_nd(g, [-p for p in pad]),),
    size=lambda x, pad, value=0: _padded_size(np.shape(x), pad),
    doc="x with pad[2i] entries before and pad[2i+1] after its last i-th dim, of value",
    kind="shape", domain=("real", {"pad": [1, 2]}),
    samples=(Sample("2-d", [(2, 3)], {"pad": [1, 2]}), Sample("crop", [(2, 3)], {"pad": [-1, 1]}),
             Sample("two dims", [(2, 3)], {"pad": [0, 1, 1, 0], "value": 2.0})),
    complex="holomorphic",
    mp=OWN,
)  # fmt: skip


def _padded_size(shape, pad):
    shape = list(shape)
    for i in range(min(len(pad) // 2, len(shape))):
        shape[-1 - i] = max(shape[-1 - i] + int(pad[2 * i]) + int(pad[2 * i + 1]), 0)
    return math.prod(shape)


_MODES = {"reflect": ("Reflection", "reflect"), "replicate": ("Replication", "edge")}


def _pad_index(shape, pad, mode):
    """The index of ``x`` that reads the padded result: one integer array per padded dim."""
    k = len(pad) // 2
    arrays = []
    for i in range(k):
        d = len(shape) - 1 - i
        before, after = int(pad[2 * i]), int(pad[2 * i + 1])
        if mode == "reflect" and (before >= shape[d] or after >= shape[d]):
            raise EngineError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({before}, {after}) at dimension {d} of input "
                f"[{', '.join(map(str, shape))}]"
            )
        picks = np.pad(np.arange(shape[d]), (before, after), mode=_MODES[mode][1])
        arrays.insert(0, picks.reshape((-1,) + (1,) * i))
    return (slice(None),) * (len(shape) - k) + tuple(arrays)


def _pad_and_gradient(name, k):
    """The overload recording the pad (``ReflectionPad1DBackward0``) and the one recording
    its gradient (``ReflectionPad1DBackwardBackward0``), each the other's adjoint.

    The gradient is an op of its own, as PyTorch's reflection_pad1d_backward: it takes x,
    through which it does not vary (zero_rule, not None), so a second derivative is 0, as
    PyTorch's, not "does not require grad"."""
    key = f"{name}Pad{k}DBackward0"

    def gradient_rule(gg, ans, g, x, index):
        # Linear in g: its adjoint pads gg again, whose leading batch dims the index keeps.
        return pad.op.over[key](gg, (slice(None),) * (np.ndim(gg) - np.ndim(x)) + index)

    gradient = over(
        f"{name}Pad{k}DBackwardBackward0",
        (gradient_rule, zero_rule),
        when=lambda g, x, index: sum(not isinstance(i, slice) for i in index) == k,
        forward=lambda g, x, index: index_scatter.op.forward(np.asarray(g), index, np.shape(x)),
        size=lambda g, x, index: index_scatter.op.size(g, index, np.shape(x)),
    )
    padding = over(
        key,
        (lambda g, ans, x, index: gradient.fn(g, x, index),),
        forward=lambda x, index: np.asarray(x)[index],
        size=limits.index_size,
    )
    return padding, gradient


_PAIRS = {name: [_pad_and_gradient(name, k) for k in (1, 2, 3)] for name, _ in _MODES.values()}
_BY_MODE = [padding for pairs in _PAIRS.values() for padding, _ in pairs]


def _pad_gradient(name, *samples):
    return table.internal(
        f"{name.lower()}_pad_backward", None, "(grad_output: Tensor, input: Tensor, index)",
        overloads=[gradient for _, gradient in _PAIRS[name]], saves=False, batching=False,
        doc=f"the gradient of a {name.lower()} pad: g added back where entries repeat",
        kind="shape", words=("d/dgrad_output: gg -> gg padded again", "d/dinput = 0"),
        samples=samples, complex="holomorphic",
    )  # fmt: skip


# The index reads the padded result from x: np.pad(np.arange(n), (before, after), mode).
reflection_pad_backward = _pad_gradient(
    "Reflection",
    Sample(
        "1-d (2, 1)", [(2, 7), (2, 4)], {"index": (slice(None), np.array([2, 1, 0, 1, 2, 3, 2]))}
    ),
)
replication_pad_backward = _pad_gradient("Replication", Sample(
    "2-d (1, 0, 0, 1)", [(1, 4, 5), (1, 3, 4)],
    {"index": (slice(None), np.array([[0], [1], [2], [2]]), np.array([0, 0, 1, 2, 3]))},
))  # fmt: skip


def _pad_batching(entry, found):
    """pad at many points: the physical tensor padded on the same last dims. The modes
    other than 'constant' take a batch of at most one dim: a point's own one joins the
    points' axis, and is parted again after."""
    probe(entry, found)  # the single-point errors first
    x = found["input"]
    physical = {k: v.physical if type(v) is Batched else v for k, v in found.items()}
    if found.get("mode", "constant") == "constant" or x.ndim == len(found["pad"]) // 2 + 1:
        return call_physical(entry, found, physical)
    p = x.physical
    physical["input"] = p.reshape(p.shape[0] * p.shape[1], *p.shape[2:])
    out = call_physical(entry, found, physical).physical
    return Batched(out.reshape(p.shape[0], p.shape[1], *out.shape[1:]))


@table.composite(
    "pad",
    "(input: Tensor, pad: int[], mode: 'constant'|'reflect'|'replicate'|'circular' = "
    "'constant', value: float = None)",
    doc="input padded on its last dims: with a value, by reflecting or repeating its edges, or "
    "circularly",
    domain=("real", {"pad": [1, 2]}), **_LAYER, batching=_pad_batching, overloads=_BY_MODE,
    samples=(Sample("2-d", [(2, 3)], {"pad": [1, 2]}),
             Sample("reflect", [(1, 2, 3)], {"pad": [2, 1], "mode": "reflect"}),
             Sample("replicate", [(1, 2, 3)], {"pad": [1, 1, 0, 2], "mode": "replicate"}),
             Sample("reflect 2-d", [(1, 3, 4)], {"pad": [2, 1, 1, 1], "mode": "reflect"}),
             Sample("replicate 1-d", [(2, 3)], {"pad": [1, 2], "mode": "replicate"}),
             Sample("circular", [(1, 2, 3)], {"pad": [2, 1], "mode": "circular"}),
             Sample("circular 2-d", [(1, 3, 4)], {"pad": [1, 2, -1, 2], "mode": "circular"}),
             Sample("circular 3-d", [(1, 2, 2, 3)], {"pad": [1, 0, 2, 1, 0, 1],
                                                     "mode": "circular"})),
    complex="holomorphic",
)  # fmt: skip
def pad(over, input, pad, mode="constant", value=None):
    pad = [int(p) for p in pad]
    if mode == "constant":
        return constant_pad_nd(input, pad, 0.0 if value is None else value)
    if mode not in _MODES and mode != "circular":
        raise NotImplementedByGradcli(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise EngineError(f'Padding mode "{mode}" doesn\'t take in value argument')
    _check_pad_length(pad, np.ndim(input))
    k, ndim, shape = len(pad) // 2, np.ndim(input), np.shape(input)
    if k not in (1, 2, 3):
        raise NotImplementedByGradcli(
            "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"
        )
    if ndim not in (k + 1, k + 2):
        raise NotImplementedByGradcli(
            f"Padding size {len(pad)} is not supported for {ndim}D input tensor."
        )
    if mode == "circular":  # takes empty dims: it checks its pads against them
        return _circular(input, pad)
    if any(n == 0 for n in shape[ndim - k - 1 if ndim == k + 2 else 0 :]):
        raise EngineError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: [{', '.join(map(str, shape))}]"
        )
    name = _MODES[mode][0]
    return over[f"{name}Pad{k}DBackward0"](input, _pad_index(shape, pad, mode))


def _circular(input, pad):
    """The circular pad as PyTorch composes it (_pad_circular): the input copied into a new
    tensor, then each padded dim's edges copied from its other end, every copy a slice
    assignment, so the graph is PyTorch's CopySlices and its gradient the slices'."""
    plain = type(input) is not Tensor
    x = Tensor._make(np.asarray(input)) if plain else input
    shape, k = tuple(x.shape), len(pad) // 2
    ndim = len(shape)
    out_shape = list(shape)
    for i in range(k):
        d = ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        out_shape[d] = shape[d] + before + after
        if before > shape[d] or after > shape[d]:
            raise EngineError("Padding value causes wrapping around more than once.")
        if out_shape[d] < 0:
            raise EngineError("Negative padding value is resulting in an empty dimension")
    out = zeros(*out_shape, dtype=x.dtype)
    inner, source = [slice(None)] * ndim, [slice(None)] * ndim
    for i in range(k):
        d, before, after = ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        inner[d] = slice(max(before, 0), out_shape[d] - max(after, 0))
        source[d] = slice(max(-before, 0), shape[d] - max(-after, 0))
    setitem(out, tuple(inner), getitem(x, tuple(source)))
    for i in range(k):  # corners are written more than once where several dims are padded
        d, before, after = ndim - 1 - i, pad[2 * i], pad[2 * i + 1]
        end = out_shape[d] - max(after, 0)
        if before > 0:
            edge = _along(ndim, d, 0, before)
            setitem(out, edge, getitem(out, _along(ndim, d, end - before, end)))
        if after > 0:
            start = max(before, 0)
            edge = _along(ndim, d, out_shape[d] - after, out_shape[d])
            setitem(out, edge, getitem(out, _along(ndim, d, start, start + after)))
    return out._data if plain else out


def _along(ndim, d, start, stop):
    index = [slice(None)] * ndim
    index[d] = slice(start, stop)
    return tuple(index)


# The Taylor series rules (engine/jet.py).
table.series(clamp_min="piecewise_linear", constant_pad_nd="linear")
