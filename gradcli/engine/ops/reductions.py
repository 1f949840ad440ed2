"""Reductions (sum, mean, prod, max, min, norms, variances); repeat and sum_to_size."""

from __future__ import annotations

import math

import numpy as np

from ...errors import EngineError, GradcliIndexError, GradcliTypeError
from .. import batching_rules as batching
from .. import dtypes, limits
from ..declared_samples import TRANSFORMS, Difference, Sample
from ..explain import extreme_ties, max_min_ties, norm_origin
from ..multiprecision import constant
from ..optable import OWN, Table, form, over
from ..tensor import Tensor
from . import language_forms as lf
from . import multiprecision_forms as forms
from . import sympy_forms as sym
from .arithmetic import maximum, minimum
from .common import (
    ValuesIndices,
    accumulating,
    axis,
    batch_of,
    contiguous,
    dims,
    nonempty_axes,
    one_dim,
    prod_others_array,
    raw,
    return_type,
    shape_arg,
)
from .comparison import where
from .creation import zeros_like
from .elementwise import abs, exp, sgn, sign
from .indexing import take_along, take_along_rule
from .shape import broadcast_to, reshape, transpose, unsqueeze, view_op
from .summation import float32_sum

table = Table("reductions", mp=OWN)
_F64 = np.dtype(np.float64)
_REDUCTION = dict(kind="reduction", method=True, function=True)
_DIM = "dim: int|int[] = None, keepdim: bool = False"


def expand_reduced(g, shape, dim, keepdim):
    """Bring a reduced gradient back to ``shape``: the rule shared by every reduction."""
    kept = unsqueeze_reduced(g, shape, dim, keepdim)
    batch = tuple(kept.shape[: kept.ndim - len(shape)]) if kept.ndim > len(shape) else ()
    return broadcast_to(kept, batch + tuple(shape))


def unsqueeze_reduced(g, shape, dim, keepdim):
    """A reduced gradient with its reduced dims back, of length 1 (PyTorch's
    ``unsqueeze_multiple``): it broadcasts against the input."""
    reduced = dims(dim, len(shape))
    if keepdim or (g.ndim == 0 and len(reduced) == len(shape)):  # a 0-d g broadcasts as it is
        return g
    for d in sorted((d % len(shape) for d in reduced), reverse=True):
        g = unsqueeze(g, d - len(shape))  # counted from the end: g may carry batch dims
    return g


def _count(shape, dim):
    reduced = dims(dim, len(shape))
    return math.prod(shape[d] for d in reduced) if shape else 1


def _dim_is_none(x, dim=None, *rest):
    return dim is None


def _by_dim(all_grad_fn, dim_grad_fn, rule):
    """sum, mean or prod: ``...Backward0`` without a dim, ``...Backward1`` with one, as
    PyTorch records them."""
    return [over(all_grad_fn, (rule,), when=_dim_is_none), over(dim_grad_fn, (rule,))]


@contiguous
def _sum(x, dim=None, keepdim=False, dtype=None):
    if dim is None and dtype is None and not keepdim and type(x) is np.ndarray:
        if x.dtype is _F64:  # NumPy's sum of every entry, without its Python wrapper
            return np.add.reduce(x, None)
    total = None if dtype is not None else float32_sum(x, dim, keepdim)
    if total is not None:
        return total
    return np.sum(x, axis=axis(dim, np.ndim(x)), keepdims=keepdim, dtype=accumulating(x, dtype))


def _sum_rule(g, ans, x, dim=None, keepdim=False, dtype=None):
    return expand_reduced(g, x.shape, dim, keepdim)


@contiguous
def _mean(x, dim=None, keepdim=False, dtype=None):
    x = np.asarray(x)
    if x.dtype.kind not in "fc" and dtype is None:
        raise EngineError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.scalar_name(x.dtype)}"
        )
    total = None if dtype is not None or not x.size else float32_sum(x, dim, keepdim)
    if total is not None:  # as PyTorch: the sum, divided
        return np.asarray(total / x.dtype.type(_count(x.shape, dim)))
    return np.mean(x, axis=axis(dim, np.ndim(x)), keepdims=keepdim, dtype=accumulating(x, dtype))


def _mean_rule(g, ans, x, dim=None, keepdim=False, dtype=None):
    return expand_reduced(g, x.shape, dim, keepdim) / _count(x.shape, dim)


@contiguous
def _prod(x, dim=None, keepdim=False, dtype=None):
    one_dim("prod", dim)
    return np.prod(x, axis=axis(dim, np.ndim(x)), keepdims=keepdim, dtype=accumulating(x, dtype))


def _prod_rule(g, ans, x, dim=None, keepdim=False, dtype=None):
    return expand_reduced(g, x.shape, dim, keepdim) * prod_others(x, dim)


def _prod_others_rule(g, ans, x, dim=None):
    # o_k = prod_{j != k} x_j, so d o_k / d x_i = o_k / x_i for k != i: the cheap
    # form, exact when no entry is 0. With a zero, the table form below.
    if np.ndim(x) == 0:  # no other entries: the constant 1 (sum over () would sum g's batch)
        return zeros_like(g)
    if not np.any(np.asarray(raw(x)) == 0):
        total = sum(g * ans, dims(dim, np.ndim(x)), keepdim=True)
        return (total - g * ans) / x
    shape = tuple(np.shape(x))
    if dim is not None:
        return _prod_others_vjp(g, x, dims(dim, len(shape))[0])
    batch = batch_of(g, ans)
    n = math.prod(shape)
    flat = _prod_others_vjp(view_op(g, batch + (n,)), view_op(x, (n,)), -1)
    return view_op(flat, batch + shape)


def _prod_others_vjp(g, x, d):
    """sum over k != i of g_k * prod_{j not in {i, k}} x_j along axis d: exact with zeros."""
    n = np.shape(x)[d]
    off = np.eye(n, dtype=bool)
    # Row i of y is x with x_i replaced by 1, so prod_others(y)[i, k] (k != i) is
    # the product over j not in {i, k}.
    y = where(off, 1.0, unsqueeze(transpose(x, d, -1), -2))
    table_ = where(off, 0.0, prod_others(y, -1))
    grad = sum(table_ * unsqueeze(transpose(g, d, -1), -2), -1)
    return transpose(grad, d, -1)


_SUM_SCHEMA = f"(input: Tensor, {_DIM}, *, dtype: dtype = None)"
# fmt: off
sum = table.op("sum", _sum, _SUM_SCHEMA,  # noqa: A001
               overloads=_by_dim("SumBackward0", "SumBackward1", _sum_rule),
               doc="sum of entries", domain=("real",), **_REDUCTION,
               symbolic=sym.reduction(np.sum),
               words="d sum(a)/da = 1 for every entry summed", complex="holomorphic",
               mp=forms.reduction(_sum))
mean = table.op("mean", _mean, _SUM_SCHEMA,
                overloads=_by_dim("MeanBackward0", "MeanBackward1", _mean_rule),
                doc="average of entries", domain=("real",), **_REDUCTION,
                symbolic=sym.reduction(np.mean),
                other_names=("average",),
                words="d mean(a)/da = 1/n for each of the n entries averaged",
                complex="holomorphic", mp=forms.reduction(forms.mean))
prod = table.op("prod", _prod, _SUM_SCHEMA,
                overloads=_by_dim("ProdBackward0", "ProdBackward1", _prod_rule),
                doc="product of entries",
                symbolic=sym.reduction(np.prod),
                kink="exact with zero, inf and nan entries: each entry's derivative is the "
                "product of the others (PyTorch divides, giving nan beside an inf or nan)",
                domain=("real",),
                **_REDUCTION,
                words="d prod(a)/da_i = the product of the other entries",
                differs=(Difference("beside an inf or nan entry",
                                    "each entry's derivative is the product of the others",
                                    "PyTorch divides the product by the entry: nan",
                                    ("at inf", "at -inf", "at nan"), ("grad", "jacobian")),
                         Difference("beside an inf entry", "second derivatives too",
                                    "as the first", ("at inf", "at -inf", "scale 1e+300"),
                                    ("grad2",)),
                         Difference("of a 0-d tensor", "second derivatives 0",
                                    "PyTorch's gradient does not depend on x: double backward "
                                    "raises", ("0-d", "0-d dim 0", "0-d dim -1"), ("grad2",))),
                                    complex="holomorphic", mp=forms.reduction(_prod))
prod_others = table.internal("prod_others", prod_others_array, "(input: Tensor, dim: int = None)",
                             grad_fn="ProdOthersBackward", rules=(_prod_others_rule,),
                             doc="the product of the other entries (prod's rule)", kind="reduction",
                             samples=(Sample("dim 1", [(2, 3)], {"dim": 1}),
                                      Sample("all", [(2, 3)])),
                             complex="holomorphic")
# fmt: on


# ----- largest and smallest -----


def _extreme_rule(g, ans, x, dim=None, keepdim=False, nan_entries=False):
    # Ties share the gradient evenly, as PyTorch does for amax/amin and max()/min().
    mask = x == expand_reduced(ans, np.shape(x), dim, keepdim)
    mask = mask._data if type(mask) is Tensor else mask
    if nan_entries:  # the inf-norms: a nan entry is one of the extremes, as in PyTorch
        mask = mask | (raw(x) != raw(x))  # nan (x != x: mpmath's numbers too)
    share = mask / np.sum(mask, axis=axis(dim, mask.ndim), keepdims=True)
    return expand_reduced(g, x.shape, dim, keepdim) * share.astype(np.result_type(raw(x), 1.0))


@contiguous
def _amax(x, dim=None, keepdim=False):
    return np.amax(x, axis=nonempty_axes("amax", x, dim), keepdims=keepdim)


@contiguous
def _amin(x, dim=None, keepdim=False):
    return np.amin(x, axis=nonempty_axes("amin", x, dim), keepdims=keepdim)


_TIES = "ties share the gradient evenly"
_NAN_EXTREMES = (
    "ties share the gradient evenly; a nan result gives nan gradients ({}(x) gives the gradient "
    "to the nan entries), as PyTorch"
)


def _evenly_distribute_rule(g, ans, x):
    # max(x) and min(x) share g among the entries equal to the result; a nan result
    # came from the nan entries, and they share it (amax/amin give nan), as PyTorch.
    data = np.asarray(raw(x))
    mask = data != data if raw(ans) != raw(ans) else data == np.asarray(raw(ans))  # nan: x != x
    share = (mask / np.sum(mask)).astype(np.result_type(data, 1.0))
    return expand_reduced(g, data.shape, None, False) * share


# fmt: off
amax = table.op("amax", _amax, f"(input: Tensor, {_DIM})", grad_fn="AmaxBackward0",
                rules=(_extreme_rule,), doc="largest entry", kink=_NAN_EXTREMES.format("max"),
                symbolic=sym.extreme("Max"),
                domain=("distinct",),
                **_REDUCTION,
                words="d amax(a)/da = 1 at the largest entry (shared evenly at ties), else 0",
                kink_at=extreme_ties(largest=True))
amin = table.op("amin", _amin, f"(input: Tensor, {_DIM})", grad_fn="AminBackward0",
                rules=(_extreme_rule,), doc="smallest entry", kink=_NAN_EXTREMES.format("min"),
                symbolic=sym.extreme("Min"),
                domain=("distinct",),
                **_REDUCTION,
                words="d amin(a)/da = 1 at the smallest entry (shared evenly at ties), else 0",
                kink_at=extreme_ties(largest=False))
# fmt: on


def _extreme(over, x, dim, keepdim, other, pick, elementwise, result):
    if other is not None:
        return elementwise(x, other)
    if dim is None:
        return over["all"](x)
    data = x._data if type(x) is Tensor else np.asarray(x)
    if data.ndim == 0:
        dims(dim, 0)  # only 0 and -1 name the dimension of a 0-d tensor
        return result((over["all"](x), Tensor._make(np.asarray(0))))
    given, dim = dim, dims(dim, data.ndim)[0]
    if data.shape[dim] == 0:  # no entry to pick (NumPy's ValueError), as PyTorch says
        name = "max" if pick is np.argmax else "min"
        raise GradcliIndexError(f"{name}(): Expected reduction dim {given} to have non-zero size.")
    index = np.expand_dims(pick(data, axis=dim), dim)
    values = over["dim"](x, index, dim, keepdim)
    return result((values, Tensor._make(index if keepdim else np.squeeze(index, dim))))


def _extreme_overloads(name, reduce):
    return [
        over(f"{name}Backward1", (_evenly_distribute_rule,), forward=reduce, key="all"),
        over(f"{name}Backward0", (take_along_rule,), forward=take_along, key="dim"),
    ]


_MAX_MIN = "(input: Tensor, dim: int|Tensor = None, keepdim: bool = False, *, other: Tensor = None)"
_MinValuesIndices = return_type("min")


@table.composite(
    "max",
    _MAX_MIN,
    domain=("distinct",),
    words="g goes to the entries taken (max/min along a dim: the index found)",
    kink_at=max_min_ties(largest=True),
    overloads=_extreme_overloads("Max", _amax),
    kink=_TIES,
    doc="max(x): largest entry; max(x, dim): (values, indices); max(x, y): elementwise",
    symbolic=sym.extreme_or_pair("Max"),
    language_form=form(
        lf.EXTREME,
        "max(x): largest entry; max(a, b): the larger, elementwise (maximum);"
        " max(x, dim=0): largest along dim (the values; argmax gives the indices)",
        lf.extreme,
    ),
    **_REDUCTION,
    batching=batching.extremum(amax),
)
def max(over, input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    if type(dim) is Tensor:
        return maximum(input, dim)
    one_dim("max", dim)
    return _extreme(over, input, dim, keepdim, other, np.argmax, maximum, ValuesIndices)


@table.composite(
    "min",
    _MAX_MIN,
    domain=("distinct",),
    words="g goes to the entries taken (max/min along a dim: the index found)",
    kink_at=max_min_ties(largest=False),
    overloads=_extreme_overloads("Min", _amin),
    kink=_TIES,
    doc="min(x): smallest entry; min(x, dim): (values, indices); min(x, y): elementwise",
    symbolic=sym.extreme_or_pair("Min"),
    language_form=form(
        lf.EXTREME,
        "min(x): smallest entry; min(a, b): the smaller, elementwise (minimum);"
        " min(x, dim=0): smallest along dim (the values; argmin gives the indices)",
        lf.extreme,
    ),
    **_REDUCTION,
    batching=batching.extremum(amin),
)
def min(over, input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    if type(dim) is Tensor:
        return minimum(input, dim)
    one_dim("min", dim)
    return _extreme(over, input, dim, keepdim, other, np.argmin, minimum, _MinValuesIndices)


# fmt: off
argmax = table.op("argmax",
                  lambda x, dim=None, keepdim=False:
                  np.argmax(x, axis=one_dim("argmax", dim), keepdims=keepdim),
                  "(input: Tensor, dim: int = None, keepdim: bool = False)",
                  doc="index of the largest entry",
                  indices=True,
                  symbolic="an index, chosen by comparing values: no derivative", **_REDUCTION)
argmin = table.op("argmin",
                  lambda x, dim=None, keepdim=False:
                  np.argmin(x, axis=one_dim("argmin", dim), keepdims=keepdim),
                  "(input: Tensor, dim: int = None, keepdim: bool = False)",
                  doc="index of the smallest entry",
                  indices=True,
                  symbolic="an index, chosen by comparing values: no derivative", **_REDUCTION)
all = table.op("all", lambda x, dim=None, keepdim=False:  # noqa: A001
               np.all(x, axis=axis(dim, np.ndim(x)), keepdims=keepdim),
               f"(input: Tensor, {_DIM})", doc="true where every entry is nonzero",
               kind="reduction", method=True, complex=True)
any = table.op("any", lambda x, dim=None, keepdim=False:  # noqa: A001
               np.any(x, axis=axis(dim, np.ndim(x)), keepdims=keepdim),
               f"(input: Tensor, {_DIM})", doc="true where some entry is nonzero",
               kind="reduction", method=True, complex=True)
# fmt: on


# ----- smooth reductions -----


@contiguous
def _logsumexp(x, dim=None, keepdim=False):
    x = np.asarray(x)
    if isinstance(dim, (list, tuple)) and not dim and x.ndim and not keepdim:  # PyTorch's
        raise EngineError(f"output with shape [] doesn't match the broadcast shape {[1] * x.ndim}")
    ax = axis(dim, np.ndim(x))
    real = x.real if x.dtype.kind == "c" else x  # a real shift keeps the principal branch
    empty = {"initial": -np.inf} if real.dtype.kind == "f" else {}  # -inf over no entry
    peak = np.amax(real, axis=ax, keepdims=True, **empty)
    peak = np.where(np.isfinite(peak), peak, 0)
    out = np.log(np.sum(np.exp(x - peak), axis=ax, keepdims=True)) + peak
    return out if keepdim else np.squeeze(out, axis=ax) if ax is not None else out.reshape(())


def _logsumexp_rule(g, ans, x, dim=None, keepdim=False):
    shape = x.shape
    return expand_reduced(g, shape, dim, keepdim) * exp(
        x - expand_reduced(ans, shape, dim, keepdim)
    )


@contiguous
def _norm(x, p=2, dim=None, keepdim=False):
    kind = np.asarray(x).dtype
    if kind.kind not in "fc":
        raise EngineError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                          f"as input. Got {dtypes.scalar_name(kind)}")  # fmt: skip
    ax = axis(dim, np.ndim(x))
    a = np.abs(x)
    reduced = a.size if ax is None else math.prod(a.shape[d] for d in np.atleast_1d(ax))
    if reduced == 1 and p != 0:  # |x|, which no power over- or underflows, as PyTorch's
        return np.sum(a, axis=ax, keepdims=keepdim)
    if p == 2:
        return np.sqrt(np.sum(a * a, axis=ax, keepdims=keepdim))
    if p == 1:
        return np.sum(a, axis=ax, keepdims=keepdim)
    if p == math.inf:
        return np.amax(a, axis=ax, keepdims=keepdim)
    if p == -math.inf:
        return np.amin(a, axis=ax, keepdims=keepdim)
    if p == 0:  # the number of non-zero entries
        return np.sum(a != 0, axis=ax, keepdims=keepdim).astype(a.dtype)
    # p < 0: a zero entry makes the sum inf and the norm 0, as in PyTorch.
    return np.sum(a**p, axis=ax, keepdims=keepdim) ** (1.0 / p)


def _norm_rule(g, ans, x, p=2, dim=None, keepdim=False):
    return _norm_gradient(sign, g, ans, x, p, dim, keepdim)


def _complex_norm_rule(g, ans, x, p=2, dim=None, keepdim=False):
    # The gradient of |z| is sgn(z) = z/|z| (PyTorch's convention), where sign(x) is real.
    return _norm_gradient(sgn, g, ans, x, p, dim, keepdim)


def _norm_gradient(sign, g, ans, x, p, dim, keepdim):
    shape = np.shape(x)
    ge = expand_reduced(g, shape, dim, keepdim)
    if p == 0:
        return zeros_like(ge * x)  # a count: piecewise constant
    if p == 1:
        return ge * sign(x)
    if p in (math.inf, -math.inf):
        return _extreme_rule(g, ans, abs(x), dim, keepdim, nan_entries=True) * sign(x)
    norm_e = expand_reduced(ans, shape, dim, keepdim)
    # PyTorch's three forms. The gradient is 0 where the norm is 0 (a subgradient), and
    # for p < 1 at a zero entry, where |x|**p has no derivative. The masks sit on the
    # factors, never on g: a second derivative that does not exist is nan in that
    # entry's column alone (its 0 * inf stays there), in every entry at the origin, while
    # the tangent (the rule's derivative in g) keeps the convention's 0.
    if p == 2:
        return ge * where(norm_e == 0, 0.0, x / norm_e)
    if p < 1:
        return sign(x) * where(x == 0, 0.0, abs(x) ** (p - 1)) * ge * norm_e ** (1 - p)
    scaled = sign(x) * abs(x) ** (p - 1) if p < 2 else x * abs(x) ** (p - 2)
    zero = norm_e == 0
    return scaled * ge * where(zero, 0.0, 1 / where(zero, 1.0, norm_e) ** (p - 1))


def _correction(unbiased, correction):
    if correction is not None:
        if unbiased is not None:  # PyTorch has no signature that takes both
            raise GradcliTypeError("var and std take unbiased or correction, not both")
        return correction
    return 1 if unbiased in (None, True) else 0


@contiguous
def _var(x, dim=None, unbiased=None, keepdim=False, correction=None):
    if np.asarray(x).dtype.kind not in "fc":
        raise EngineError("std and var only support floating point and complex dtypes")
    ddof = _correction(unbiased, correction)
    ax = axis(dim, np.ndim(x))
    if _count(np.shape(x), dim) > ddof:
        return np.var(x, axis=ax, ddof=ddof, keepdims=keepdim)
    # No degrees of freedom left: the sum of squares over 0, inf (nan where it is 0), as
    # PyTorch; computed here so that NumPy's "Degrees of freedom <= 0" warning never shows.
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.var(x, axis=ax, keepdims=keepdim) / 0.0


def _var_rule(g, ans, x, dim=None, unbiased=None, keepdim=False, correction=None):
    n = _count(x.shape, dim) - _correction(unbiased, correction)
    centred = x - mean(x, dims(dim, x.ndim), keepdim=True)
    # PyTorch's order: (2 / n) * g, its reduced dims back, times centred (which broadcasts it).
    g = unsqueeze_reduced(g, x.shape, dim, keepdim)
    if n > 0:
        return constant(2.0 / n, lambda m: m.mpf(2) / n) * g * centred  # to every digit
    # No degrees of freedom left: the value is inf or nan whatever x is, so it has no
    # derivative: nan where there are entries (PyTorch gives inf or finite numbers).
    return g * centred * math.nan


def _std(x, dim=None, unbiased=None, keepdim=False, correction=None):
    return np.sqrt(_var(x, dim, unbiased, keepdim, correction))


def _std_rule(g, ans, x, dim=None, unbiased=None, keepdim=False, correction=None):
    # As PyTorch: var's rule of g / (2 std), which is 0 where std is 0 (all entries equal).
    zero = ans == 0
    g = where(zero, 0.0, g / (2 * where(zero, 1.0, ans)))
    return _var_rule(g, ans, x, dim, unbiased, keepdim, correction)


# fmt: off
_VAR_SCHEMA = ("(input: Tensor, dim: int|int[] = None, unbiased: bool = None, "
               "keepdim: bool = False, *, correction: Number = None)")
logsumexp = table.op("logsumexp", _logsumexp, f"(input: Tensor, {_DIM})",
                     grad_fn="LogsumexpBackward0", rules=(_logsumexp_rule,),
                     doc="log(sum(exp(x))) without overflow", domain=("real", {"dim": -1}),
                     symbolic=sym.logsumexp,
                     other_names=("lse", "log_sum_exp"),
                     **_REDUCTION, words="d logsumexp(a)/da = softmax(a)", mp=forms.logsumexp,
                     differs=(Difference("without dim", "over every entry",
                                         "a calculator's default; PyTorch requires dim",
                                         ("2-d", "one element", "0-d", "empty"),
                                         TRANSFORMS, accepts=True),), complex="holomorphic")
norm = table.op("norm", _norm, "(input: Tensor, p: Number = 2, dim: int|int[] = None, "
                "keepdim: bool = False)", grad_fn="LinalgVectorNormBackward0", rules=(_norm_rule,),
                doc="vector p-norm (p=0 counts non-zero entries)", domain=("nonzero",),
                symbolic=sym.norm,
                kink="gradient 0 where the norm is 0, at a zero entry for p < 1, and for p = 0; "
                "second derivatives nan at the origin, as PyTorch",
                **_REDUCTION,
                words="d norm(a)/da = a/norm(a) for p = 2, sign(a)*|a|**(p-1)/norm(a)**(p-1)",
                kink_at=norm_origin, complex=(_complex_norm_rule,), mp=forms.norm,
                differs=(Difference("at the origin, finite p > 1 but not 2", "the tangent 0",
                                    "as torch.func.jvp; PyTorch's double-backward jvp is nan",
                                    (), ("jvp",)),))
var = table.op("var", _var, _VAR_SCHEMA, grad_fn="VarBackward0", rules=(_var_rule,),
               doc="variance (correction=1: the sample variance)", domain=("real",),
               symbolic=sym.var,
               kink="correction >= N: value inf (nan if all entries are equal), as PyTorch; "
               "gradient nan (PyTorch's depends on dim); dim=[] is every dim, its gradient "
               "that of the whole (PyTorch's is +-inf)", **_REDUCTION,
               words="d var(a)/da = 2*(a - mean(a))/(n - correction)", mp=forms.var,
               differs=(Difference("where correction >= N", "second derivatives nan",
                                   "the gradient is nan there (PyTorch's Hessian is 0)",
                                   ("one element", "0-d", "0-d dim 0", "0-d dim -1", "empty"),
                                   ("grad2", "hessian")),),
               complex=(_var_rule,))  # 2 (z - mean)/(n - correction): PyTorch's for complex z
std = table.op("std", _std, _VAR_SCHEMA, grad_fn="StdBackward0", rules=(_std_rule,),
               doc="standard deviation (correction=1: of a sample)", domain=("real",),
               symbolic=sym.std,
               kink="gradient 0 at zero variance, as PyTorch; correction >= N: value inf (nan if "
               "all entries are equal), gradient nan; dim=[] is every dim, its gradient that of "
               "the whole (PyTorch's is +-inf)", **_REDUCTION, mp=forms.std,
               words="d std(a)/da = (a - mean(a))/((n - correction)*std(a))",
               differs=(Difference("at zero variance", "the tangent is 0, as the gradient",
                                   "PyTorch's jvp there is nan",
                                   ("scale 1e-300",), ("jvp",)),),
               complex=(_std_rule,))
# fmt: on


# ----- tiles and sums to a size: their rules sum -----


def _repeat_rule(g, ans, x, sizes):
    # x is in every tile: g split into (tiles, x's size) per dimension, summed over the tiles.
    shape = (1,) * (len(sizes) - np.ndim(x)) + tuple(np.shape(x))
    batch = batch_of(g, ans)
    split = batch + tuple(v for r, n in zip(sizes, shape) for v in (r, n))
    tiles = tuple(2 * k - 2 * len(sizes) for k in range(len(sizes)))
    return view_op(sum(view_op(g, split), tiles), batch + tuple(np.shape(x)))


@table.composite(
    "repeat",
    "(input: Tensor, *sizes: int)",
    words="g summed over the repeats",
    kind="shape",
    method=True,
    doc="x.repeat(*sizes): x tiled sizes times along each dimension",
    overloads=[
        over(
            "RepeatBackward0",
            (_repeat_rule,),
            saves=False,
            forward=lambda x, sizes: np.tile(x, sizes),
        )
    ],
    complex="holomorphic",
)
def repeat(over, input, *sizes):
    sizes = shape_arg(sizes)
    if len(sizes) < np.ndim(input):
        raise EngineError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    limits.check("repeat", math.prod(sizes) * int(np.size(raw(input))))
    return over["RepeatBackward0"](input, sizes)


@table.composite(
    "sum_to_size",
    "(input: Tensor, *size: int)",
    kind="shape",
    method=True,
    library=False,
    doc="x summed down to a shape it broadcasts from",
)
def sum_to_size(over, input, *size):
    size = shape_arg(size)
    shape = np.shape(input)
    lead = len(shape) - len(size)
    ones = [lead + i for i, n in enumerate(size) if n == 1 and shape[lead + i] != 1]
    summed = list(range(lead)) + ones
    if not summed:
        return input
    out = sum(input, summed, keepdim=True)
    return reshape(out, size) if lead else out


# The Taylor series rules (engine/jet.py).
table.series(sum="linear", mean="linear", repeat="linear")
