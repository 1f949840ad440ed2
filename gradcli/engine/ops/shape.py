"""Shapes: reshape and view, squeeze, transpose and permute, broadcasting, flips and rolls."""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliIndexError, ShapeError
from .. import batching_rules as batching
from .. import limits
from ..declared_samples import Sample
from ..messages import expand_mismatch
from ..optable import OWN, Table, over
from ..tensor import Tensor
from . import sympy_forms as sym
from .common import batch_of, dims, negative_dims, shape_arg
from .common import dims as _check_dims
from .summation import sum_over

table = Table("shape", mp=OWN)
_SHAPE = dict(kind="shape", method=True, function=True)


def _reshape(x, shape):
    try:
        return np.reshape(x, shape)
    except ValueError:
        raise ShapeError(
            f"shape '{list(shape)}' is invalid for input of size {np.size(x)}"
        ) from None


def _reshape_rule(g, ans, x, *params):
    return view_op(g, batch_of(g, ans) + tuple(np.shape(x)))


def _viewable(data, shape):
    """Whether ``data`` takes ``shape`` without a copy (its strides allow it), as a view needs.

    A wrong number of entries counts as viewable: that is the reshape's own error to report.
    """
    known = math.prod(s for s in shape if s != -1)
    if np.size(data) != known and (-1 not in shape or known == 0 or np.size(data) % known):
        return True
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return False
    except TypeError:  # NumPy < 2.1: no copy argument; a view's shape can only be set in place
        try:
            data.view().shape = shape
        except AttributeError:
            return False
    return True


_VIEW = over("ViewBackward0", (_reshape_rule,), forward=_reshape, saves=False)


@table.composite(
    "reshape",
    "(input: Tensor, *shape: int)",
    words="g reshaped to a's shape",
    **_SHAPE,
    doc="reshape(x, shape): the same entries in another shape",
    symbolic=lambda s, x, *shape: x.reshape(shape),
    overloads=[_VIEW, over("UnsafeViewBackward0", (_reshape_rule,), forward=_reshape, saves=False)],
    batching=batching.reshaping,
    complex="holomorphic",
)
def reshape(over, input, *shape):
    shape = shape_arg(shape)
    if type(input) is Tensor and not _viewable(input._data, shape):
        return over["UnsafeViewBackward0"](input, shape)  # PyTorch's reshape that copies
    return over["ViewBackward0"](input, shape)


view_op = _VIEW.fn  # what rules use: a reshape recorded as a view


@table.composite(
    "view",
    "(input: Tensor, *shape: int)",
    words="g reshaped to a's shape",
    doc="view(x, shape): reshape sharing memory",
    symbolic=lambda s, x, *shape: x.reshape(shape),
    overloads=[over("ViewBackward0", (_reshape_rule,), forward=_reshape, saves=False)],
    **_SHAPE,
    batching=batching.reshaping,
    complex="holomorphic",
)
def view(over, input, *shape):
    shape = shape_arg(shape)
    if type(input) is Tensor and not _viewable(input._data, shape):
        raise EngineError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return over["ViewBackward0"](input, shape)


@table.composite(
    "flatten",
    "(input: Tensor, start_dim: int = 0, end_dim: int = -1)",
    **_SHAPE,
    doc="flatten(x, start_dim=0, end_dim=-1): merge dimensions into one",
    symbolic=sym.flatten,
    batching=batching.reshaping,
)
def flatten(over, input, start_dim=0, end_dim=-1):
    shape = np.shape(input)
    if not shape:
        dims(start_dim, 0), dims(end_dim, 0)  # only 0 and -1 name a 0-d tensor's dim
        return reshape(input, (1,))
    start = dims(start_dim, len(shape))[0] + len(shape)
    end = dims(end_dim, len(shape))[0] + len(shape)
    if start > end:
        raise EngineError("flatten() has invalid args: start_dim cannot come after end_dim")
    merged = math.prod(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


def _squeeze(x, dim=None):
    if dim is None:
        return np.squeeze(x)
    shape = np.shape(x)
    if not shape:
        dims(dim, 0)  # only 0 and -1 name a 0-d tensor's dim
        return np.asarray(x)
    if not isinstance(dim, (int, np.integer)) and len(dim) == 0:
        return np.asarray(x)  # squeeze(x, []) drops nothing, unlike a reduction over []
    squeezed = tuple(d for d in dims(dim, len(shape)) if shape[d] == 1)
    return np.squeeze(x, axis=squeezed) if squeezed else np.asarray(x)


# fmt: off
squeeze = table.op(
    "squeeze", _squeeze, "(input: Tensor, dim: int|int[] = None)", saves=False,
    overloads=[over("SqueezeBackward0", (_reshape_rule,), when=lambda x, dim=None: dim is None),
               over("SqueezeBackward1", (_reshape_rule,),
                    when=lambda x, dim: isinstance(dim, (int, np.integer))),
               over("SqueezeBackward2", (_reshape_rule,))],
    doc="squeeze(x, dim=None): drop dimensions of size 1", inplace="reshapes", **_SHAPE,
    symbolic=sym.squeeze,
    batching=batching.reshaping,
    words="g reshaped to a's shape", complex="holomorphic")
def _unsqueeze_rule(g, ans, x, dim):
    # PyTorch's: g with the inserted dim squeezed (counted from the end: g may carry
    # leading batch dims), so a second pass records SqueezeBackward1, as PyTorch's.
    n = np.ndim(ans)
    return squeeze(g, int(dim) % n - n)


unsqueeze = table.op("unsqueeze", lambda x, dim: np.expand_dims(x, dim),
                     "(input: Tensor, dim: int)",
                     grad_fn="UnsqueezeBackward0", rules=(_unsqueeze_rule,), saves=False,
                     doc="unsqueeze(x, dim): insert a dimension of size 1", inplace="reshapes",
                     symbolic=lambda s, x, dim: np.expand_dims(x, dim),
                     **_SHAPE, batching=batching.reshaping,
                     words="g reshaped to a's shape", complex="holomorphic")
# fmt: on


# ----- transposes -----


def _transpose_rule(g, ans, x, dim0, dim1):
    n = np.ndim(x)
    if n == 0:  # transpose(x, 0, -1) of a 0-d tensor is x
        return g
    return transpose(g, dim0 - n if dim0 >= 0 else dim0, dim1 - n if dim1 >= 0 else dim1)


def _permute_rule(g, ans, x, order):
    n = np.ndim(x)
    inverse = np.argsort([d % n for d in order])
    nb = g.ndim - n
    return permute_op(g, tuple(range(nb)) + tuple(int(i) + nb for i in inverse))


def _swapaxes(x, dim0, dim1):
    if np.ndim(x) == 0:  # dims 0 and -1 name a 0-d tensor's one dim, as in PyTorch
        dims((dim0, dim1) if dim0 != dim1 else dim0, 0)
        return np.asarray(x)
    return np.swapaxes(x, dim0, dim1)


def _permute(x, order):
    return np.transpose(x, tuple(order))


# fmt: off
transpose = table.op("transpose", _swapaxes, "(input: Tensor, dim0: int, dim1: int)",
                     grad_fn="TransposeBackward0", rules=(_transpose_rule,), saves=False,
                     doc="transpose(x, dim0, dim1): swap two dimensions", inplace="reshapes",
                     symbolic=lambda s, x, dim0, dim1: np.swapaxes(x, dim0, dim1),
                     other_names=("transposed",),
                     **_SHAPE, batching=batching.transpose,
                     words="g transposed back", complex="holomorphic")
_PERMUTE = over("PermuteBackward0", (_permute_rule,), forward=_permute, saves=False)
# fmt: on


@table.composite(
    "permute",
    "(input: Tensor, *dims: int)",
    words="g permuted back",
    overloads=[_PERMUTE],
    doc="permute(x, dims): reorder dimensions",
    symbolic=lambda s, x, *dims: np.transpose(x, dims),
    **_SHAPE,
    batching=batching.permute,
    complex="holomorphic",
)
def permute(over, input, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    if len(dims) != np.ndim(input):
        raise ShapeError(
            f"permute: number of dimensions in the tensor input does not match "
            f"the length of the desired ordering of dimensions i.e. input.dim() = "
            f"{np.ndim(input)} is not equal to len(dims) = {len(dims)}"
        )
    return over["PermuteBackward0"](input, tuple(int(d) for d in dims))


permute_op = _PERMUTE.fn


@table.composite(
    "movedim",
    "(input: Tensor, source: int|int[], destination: int|int[])",
    words="g permuted back",
    doc="movedim(x, source, destination): the dims source moved to destination, in order",
    symbolic=lambda s, x, source, destination: np.moveaxis(x, source, destination),
    **_SHAPE,
    batching=batching.movedim,
    complex="holomorphic",
)
def movedim(over, input, source, destination):
    ndim = np.ndim(input)
    source = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    destination = (
        (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    )
    if len(source) != len(destination):
        raise ShapeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should "
            f"contain the same number of dims as destination ({list(destination)} dims)"
        )
    source = negative_dims(source, ndim)
    destination = negative_dims(destination, ndim)
    _check_dims(source, ndim)
    _check_dims(destination, ndim)
    moved = dict(zip((d % max(ndim, 1) for d in destination), (d % max(ndim, 1) for d in source)))
    rest = iter(d for d in range(ndim) if d not in moved.values())
    order = [moved[i] if i in moved else next(rest) for i in range(ndim)]
    return permute(input, *order) if ndim else input


@table.composite(
    "t",
    "(input: Tensor)",
    words="g transposed back",
    doc="t(x): transpose of a matrix (a vector stays as it is)",
    symbolic=lambda s, x: x.T,
    kind="linalg",
    method=True,
    function=True,
    inplace="reshapes",
    overloads=[
        over("TBackward0", (_transpose_rule,), forward=_swapaxes, saves=False),
        over("TBackward0", (_permute_rule,), forward=_permute, saves=False, key="vector"),
    ],
    batching=batching.matrix_transpose,
    complex="holomorphic",
)
def t(over, input):
    n = np.ndim(input)
    if n > 2:
        raise ShapeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    if n < 2:
        return over["vector"](input, tuple(range(n)))  # a new node, as in PyTorch
    return over["TBackward0"](input, 0, 1)


@table.composite(
    "T",
    "(input: Tensor)",
    words="g transposed back",
    doc="x.T: reverse the dimensions (a matrix's transpose)",
    symbolic=lambda s, x: x.T,
    kind="linalg",
    attribute="language",
    library=False,
    overloads=[over("PermuteBackward0", (_transpose_rule,), forward=_swapaxes, saves=False)],
    batching=batching.matrix_transpose,
    complex="holomorphic",
)
def numpy_T(over, input):  # noqa: N802
    n = np.ndim(input)
    if n < 2:
        return permute_op(input, tuple(range(n)))  # a new node, as in PyTorch
    if n > 2:
        return permute(input, tuple(range(n - 1, -1, -1)))
    return over["PermuteBackward0"](input, 0, 1)


@table.composite(
    "mT",
    "(input: Tensor)",
    doc="x.mT: the last two dimensions swapped",
    kind="linalg",
    attribute=True,
    library=False,
)
def matrix_T(over, input):  # noqa: N802
    return transpose(input, -2, -1)


# ----- broadcasting and its adjoint -----


def broadcast_array(x, shape):
    shape = tuple(shape)
    if type(x) is np.ndarray and not x.ndim and min(shape, default=0) >= 0:
        # A 0-d array (a reduction's gradient) is every shape's: its view, made directly
        # (NumPy's broadcast_to builds an iterator to check, some microseconds a call).
        view = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
        view.flags.writeable = False
        return view
    if shape and min(shape) < 0:
        shape = expanded_shape(np.shape(x), shape)
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        raise ShapeError(expand_mismatch(np.shape(x), shape)) from None


def expanded_shape(old, sizes):
    """``sizes`` for a tensor of shape ``old``, each -1 the size it keeps (PyTorch's expand)."""
    sizes = tuple(sizes)
    lead = len(sizes) - len(old)
    if lead < 0:
        raise ShapeError(expand_mismatch(old, sizes))
    shape = []
    for i, n in enumerate(sizes):
        if n == -1:
            if i < lead:
                raise ShapeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            n = old[i - lead]
        elif n < 0:
            raise ShapeError(
                f"expand: the size {n} at dimension {i} is negative: a size is at least 0, "
                "or -1 to keep the tensor's own"
            )
        shape.append(n)
    return tuple(shape)


def _sum_to(g, shape, batch_dims=0):
    """Sum ``g`` down to ``batch + shape`` where ``batch`` is g's first ``batch_dims`` dims."""
    g = np.asarray(g)
    shape = tuple(shape)
    lead = g.ndim - batch_dims - len(shape)
    if lead < 0:  # the target has extra leading 1s (a value assigned into k[0])
        g = g.reshape(g.shape[:batch_dims] + (1,) * -lead + g.shape[batch_dims:])
        lead = 0
    axes = list(range(batch_dims, batch_dims + lead))
    axes += [
        batch_dims + lead + i
        for i, n in enumerate(shape)
        if n == 1 and g.shape[batch_dims + lead + i] != 1
    ]
    if axes and batch_dims == 0:  # a float32 sum in PyTorch's order, as its sum_to's
        return sum_over(g, axes).reshape(shape)
    out = np.sum(g, axis=tuple(axes), keepdims=True) if axes else g
    return out.reshape(g.shape[:batch_dims] + shape)


def _sum_to_rule(g, ans, x, shape, batch_dims=0):
    # Bring back the leading dims the sum removed (as size 1), then broadcast;
    # g is (its own batch dims) + (x's batch_dims) + shape.
    shape = tuple(shape)
    x_shape = tuple(np.shape(x))
    outer = tuple(g.shape[: g.ndim - len(shape)])
    lead = len(x_shape) - batch_dims - len(shape)
    return broadcast_to(
        view_op(g, outer + (1,) * lead + shape), outer[: len(outer) - batch_dims] + x_shape
    )


# fmt: off
# To a 0-d tensor it is a sum of every entry, which PyTorch records as SumBackward0.
sum_to = table.internal("sum_to", _sum_to, "(input: Tensor, size: int[], batch_dims: int = 0)",
                        overloads=[over("SumBackward0", (_sum_to_rule,),
                                        when=lambda g, shape, batch_dims=0:
                                        not tuple(shape) and not batch_dims),
                                   over("SumToSizeBackward0", (_sum_to_rule,))],
                        saves=False, doc="a broadcast gradient summed back to a shape",
                        kind="shape",
                        words="g broadcast back to a's shape",
                        samples=(Sample("3-d to 2-d", [(2, 3, 4)], {"size": [3, 1]}),),
                        complex="holomorphic")
broadcast_to = table.op("broadcast_to", broadcast_array, "(input: Tensor, size: int[])",
                        grad_fn="ExpandBackward0",
                        # A view, but what is computed from it has its logical size.
                        size=lambda x, shape: limits.shape_size(shape),
                        rules=(lambda g, ans, x, shape:
                               sum_to(g, np.shape(x), g.ndim - len(tuple(shape))),),
                        saves=False, doc="broadcast_to(x, shape): repeat along new dimensions",
                        kind="shape",
                        words="g summed over the broadcast dimensions", complex="holomorphic")
# fmt: on


@table.composite(
    "expand",
    "(input: Tensor, *sizes: int)",
    **_SHAPE,
    doc="expand(x, *sizes): broadcast to a larger shape (-1 keeps a size)",
    symbolic=sym.expand,
    batching=batching.expand,
    complex="holomorphic",
)
def expand(over, input, *sizes):
    return broadcast_to(input, expanded_shape(np.shape(input), shape_arg(sizes)))


def _as_shape_of(name, fn, doc):
    @table.composite(
        name, "(input: Tensor, other: Tensor)", kind="shape", method=True, library=False, doc=doc
    )
    def like(over, input, other):
        return fn(input, *np.shape(other))

    return like


_as_shape_of("expand_as", expand, "x expanded to other's shape")
_as_shape_of("view_as", view, "x viewed in other's shape")
_as_shape_of("reshape_as", reshape, "x reshaped to other's shape")


# ----- flips and rolls -----


def _roll_rule(g, ans, x, shifts, dims_):
    if dims_ is None:  # rolled as one flat vector
        batch = batch_of(g, ans)
        flat = view_op(g, batch + (math.prod(np.shape(x)),))
        return view_op(roll_op(flat, (-shifts,), (-1,)), batch + tuple(np.shape(x)))
    return roll_op(g, tuple(-s for s in shifts), dims_)


_FLIP = over(
    "FlipBackward0",
    (lambda g, ans, x, dims_: flip_op(g, dims_),),
    forward=lambda x, dims_: np.array(np.flip(x, dims_), order="K"),  # a copy
    saves=False,
)
_ROLL = over(
    "RollBackward0",
    (_roll_rule,),
    forward=lambda x, shifts, dims_: np.roll(x, shifts, dims_),
    saves=False,
)


@table.composite(
    "flip",
    "(input: Tensor, *dims: int)",
    words="g flipped back",
    kind="shape",
    method=True,
    function=True,
    doc="flip(x, dims): reverse the order of entries along dims",
    symbolic=lambda s, x, *dims: np.flip(x, dims),
    overloads=[_FLIP],
    batching=batching.flip,
    complex="holomorphic",
)
def flip(over, input, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    flipped = negative_dims(dims, np.ndim(input))
    _check_dims(flipped, np.ndim(input))  # a dimension named twice is an error, as in PyTorch
    return over["FlipBackward0"](input, flipped)


@table.composite(
    "roll",
    "(input: Tensor, shifts: int|int[], dims: int|int[] = None)",
    words="g rolled back",
    kind="shape",
    method=True,
    overloads=[_ROLL],
    doc="roll(x, shifts, dims=None): shift entries around along dims (the flattened x if None)",
    complex="holomorphic",
)
def roll(over, input, shifts, dims=None):
    if dims is None:
        return over["RollBackward0"](input, int(shifts), None)
    shifts = (shifts,) if isinstance(shifts, (int, np.integer)) else tuple(shifts)
    shifts = tuple(int(s) for s in shifts)
    if np.ndim(input) == 0:
        first = dims if isinstance(dims, (int, np.integer)) else tuple(dims)[0]
        raise GradcliIndexError(f"Dimension specified as {first} but tensor has no dimensions")
    return over["RollBackward0"](input, shifts, negative_dims(dims, np.ndim(input)))


flip_op = _FLIP.fn
roll_op = _ROLL.fn


# The Taylor series rules (engine/jet.py): each is linear in its input.
table.series(**dict.fromkeys(
    ("reshape", "view", "squeeze", "unsqueeze", "transpose", "permute", "t", "T",
     "broadcast_to", "flip", "roll", "sum_to"), "linear"))  # fmt: skip
