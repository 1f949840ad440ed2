"""The op table against finite differences: every op, first and second order, batched.

One ``Case`` per way of calling an op: the function (written once for both
``gradcli`` and ``torch``, passed as ``m``), the input domains (log and sqrt
positive, asin in (-1, 1), det well conditioned, no input near a kink), and
the names in ``ops.OPS`` / ``ops.FUNCTIONS`` it exercises. The table is shared
with ``test_engine_torch.py``, which replays each case in PyTorch.

Every case passes ``gradcheck`` and ``gradgradcheck`` in float64, and with
``check_batched_grad`` a reverse pass whose root gradient carries a leading
batch dimension (the identity) equals the row-by-row passes. A test fails when
an op or a function of the table has no case, so the table cannot grow untested.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import gradcli
from gradcli.autograd import gradcheck, gradgradcheck
from gradcli.engine import ops
from gradcli.engine.opinfo import DOMAINS

# torch_fn = SAME: the case's ``fn`` runs unchanged with ``m = torch``.
SAME = "same"


@dataclass(frozen=True)
class Case:
    name: str
    covers: tuple[str, ...]
    fn: Callable
    domains: tuple[Callable, ...]
    torch_fn: Callable | str | None = SAME
    gradgrad: bool = True
    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3
    constants: dict = field(default_factory=dict)
    # Against PyTorch, where PyTorch is the less accurate (its trigamma: 5e-10, by mpmath).
    oracle_rtol: float | None = None

    def arrays(self):
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return tuple(sample(rng) for sample in self.domains)

    def torch_call(self):
        return self.fn if self.torch_fn == SAME else self.torch_fn


# ----- input domains: the ones the entries declare (``opinfo.DOMAINS``), by shape -----


def _domain(name):
    """Inputs of a shape drawn from the entries' domain ``name``: shape -> rng -> array."""

    def of_shape(*shape):
        return lambda rng: DOMAINS[name](rng, shape)

    return of_shape


real, positive, unit, nonzero = map(_domain, ("real", "positive", "unit", "nonzero"))
distinct, off_integers = map(_domain, ("distinct", "off_integers"))
well_conditioned, above_one = map(_domain, ("well_conditioned", "above_one"))
probability = _domain("probability")


def uniform(lo, hi, *shape):
    """A range of a case's own, wider than its entry's domain (softplus on (-3, 3))."""
    return lambda rng: rng.uniform(lo, hi, shape)


def nn(m):
    """torch.nn.functional for PyTorch; gradcli keeps those functions at the top level."""
    return m.nn.functional if m.__name__ == "torch" else m


# ----- the table -----

# The indices of x that F.pad's modes read: reflect (2, 1) of 4 entries, replicate (1, 0)
# of 4 columns and (0, 1) of 3 rows.
REFLECT_2_1 = [2, 1, 0, 1, 2, 3, 2]
REPLICATE_1_0_0_1 = (np.array([[0], [1], [2], [2]]), np.array([0, 0, 1, 2, 3]))


def _function(m, name):
    """``m.name``, or ``m.special.name`` for what PyTorch has only there (``entr``)."""
    return getattr(m, name) if hasattr(m, name) else getattr(m.special, name)


def unary(name, domain, *, shape=(2, 3), covers=None, torch_fn=SAME, **options):
    """An elementwise function called as m.name(x)."""
    return Case(
        name,
        covers or (name,),
        lambda m, x: _function(m, name)(x),
        (domain(*shape),),
        torch_fn,
        **options,
    )


def _setitem(index, value_shape):
    """y = x * 1; y[index] = 2 * v; a CopySlices (IndexPutBackward0 for advanced indices)."""

    def fn(m, x, v):
        y = x * 1.0
        y[index(m)] = v * 2.0
        return y

    return fn


def _set_into_constant(m, x):
    # The tutorial's pattern: a constant target whose entries are assigned expressions.
    k = m.zeros(3, dtype=m.float64)
    k[0] = x[0] ** 2 + 3 * x[1]
    k[1] = 2 * x[0] + x[2] ** 2
    return k


MASK = [[True, False, True], [False, True, True]]

CASES = [
    # arithmetic, with broadcasting and Python numbers on either side
    Case("add", ("add",), lambda m, x, y: x + y, (real(2, 1, 3), real(4, 1))),
    Case("add_number", ("add",), lambda m, x: 2.5 + x, (real(3),)),
    Case("sub", ("sub",), lambda m, x, y: x - y, (real(3, 1), real(1, 4))),
    Case("rsub", ("rsub",), lambda m, x: 2.5 - x, (real(2, 3),)),
    Case("mul", ("mul",), lambda m, x, y: x * y, (real(2, 3), real(3))),
    Case("mul_number", ("mul",), lambda m, x: 3.0 * x, (real(2, 2),)),
    Case("div", ("div",), lambda m, x, y: x / y, (real(2, 3), positive(2, 1))),
    Case("div_function", ("div",), lambda m, x, y: m.div(x, y), (real(3), positive(3))),
    Case("rdiv", ("reciprocal", "mul"), lambda m, x: 2.0 / x, (positive(3),)),
    Case("neg", ("neg",), lambda m, x: -x, (real(2, 3),)),
    Case("pow_scalar", ("pow",), lambda m, x: x**3, (real(2, 3),)),
    Case("pow_fraction", ("pow",), lambda m, x: x**2.5, (positive(3),)),
    Case("pow_method", ("pow",), lambda m, x: x.pow(-2), (positive(3),)),
    Case("pow_tensor", ("pow",), lambda m, x, y: x**y, (positive(2, 3), real(3))),
    Case("rpow", ("pow",), lambda m, y: 2.0**y, (real(4),)),
    Case("pow_function", ("pow",), lambda m, x, y: m.pow(x, y), (positive(3, 1), real(2))),
    Case("where", ("where",), lambda m, x, y: m.where(x > 0, x, y), (nonzero(2, 3), real(3))),
    Case("maximum", ("maximum",), lambda m, x, y: m.maximum(x, y), (distinct(2, 3), distinct(3))),
    Case("minimum", ("minimum",), lambda m, x, y: m.minimum(x, y), (distinct(2, 3), distinct(3))),
    Case("max_binary", ("max", "maximum"), lambda m, x, y: m.max(x, y), (distinct(4), distinct(4))),
    Case("min_binary", ("min", "minimum"), lambda m, x, y: m.min(x, y), (distinct(4), distinct(4))),
    Case("atan2", ("atan2",), lambda m, y, x: m.atan2(y, x), (nonzero(2, 3), nonzero(3))),
    Case("remainder_number", ("remainder",), lambda m, x: x % 1.0, (off_integers(2, 3),)),
    Case(
        "remainder",
        ("remainder",),
        lambda m, x, y: m.remainder(x, y),
        (off_integers(2, 3), uniform(2.0, 2.05, 3)),
    ),
    Case(
        "div_floor",
        ("div_floor",),
        lambda m, x, y: ops.div_floor(x, y),
        (off_integers(2, 3), uniform(1.0, 1.02, 3)),
        lambda m, x, y: m.div(x, y, rounding_mode="floor"),
    ),
    # elementwise (the functions of one input are the entries': see ELEMENTWISE below)
    Case("square", ("pow",), lambda m, x: x.square(), (real(2, 3),)),
    Case(
        "softplus",
        ("softplus",),
        lambda m, x: m.softplus(x),
        (uniform(-3, 3, 2, 3),),
        lambda m, x: m.nn.functional.softplus(x),
    ),
    Case(
        "softplus_beta",
        ("softplus",),
        lambda m, x: m.softplus(x, 2.0, 3.0),
        (uniform(-3, 3, 8),),
        lambda m, x: m.nn.functional.softplus(x, 2.0, 3.0),
    ),
    Case(
        "clamp",
        ("clamp",),
        lambda m, x: m.clamp(x, -0.5, 0.5),
        (lambda rng: np.array([-0.9, -0.3, 0.1, 0.4, 0.8, -0.7]),),
    ),
    Case(
        "clamp_min",
        ("clamp",),
        lambda m, x: x.clamp(min=-0.5),
        (lambda rng: np.array([-0.9, -0.3, 0.6]),),
    ),
    Case(
        "clamp_max",
        ("clamp",),
        lambda m, x: x.clip(max=0.5),
        (lambda rng: np.array([-0.9, 0.3, 0.6]),),
    ),
    # reductions
    Case("sum", ("sum",), lambda m, x: m.sum(x), (real(2, 3),)),
    Case("sum_dim", ("sum",), lambda m, x: x.sum(dim=1), (real(2, 3, 2),)),
    Case(
        "sum_dims_keepdim", ("sum",), lambda m, x: m.sum(x, (0, -1), keepdim=True), (real(2, 3, 2),)
    ),
    Case("mean", ("mean",), lambda m, x: m.mean(x), (real(2, 3),)),
    Case("mean_dim", ("mean",), lambda m, x: x.mean(dim=0), (real(3, 2),)),
    Case("mean_keepdim", ("mean",), lambda m, x: x.mean(-1, keepdim=True), (real(2, 3),)),
    Case("prod", ("prod",), lambda m, x: m.prod(x), (real(2, 3),)),
    Case("prod_dim", ("prod",), lambda m, x: x.prod(1), (real(2, 3),)),
    Case("prod_keepdim", ("prod",), lambda m, x: x.prod(0, keepdim=True), (real(3, 2),)),
    Case("prod_others", ("prod_others",), lambda m, x: ops.prod_others(x, 1), (real(2, 3),), None),
    Case("amax", ("amax",), lambda m, x: m.amax(x), (distinct(2, 3),)),
    Case("amax_dims", ("amax",), lambda m, x: m.amax(x, (0, 2)), (distinct(2, 3, 2),)),
    Case("amin", ("amin",), lambda m, x: x.amin(1, keepdim=True), (distinct(2, 3),)),
    Case("max", ("max", "amax"), lambda m, x: m.max(x), (distinct(2, 3),)),
    Case("min", ("min", "amin"), lambda m, x: x.min(), (distinct(2, 3),)),
    Case("max_dim", ("max", "take_along_dim"), lambda m, x: m.max(x, 1).values, (distinct(2, 3),)),
    Case(
        "max_dim_keepdim",
        ("max", "take_along_dim"),
        lambda m, x: x.max(dim=0, keepdim=True)[0],
        (distinct(3, 2),),
    ),
    Case("min_dim", ("min", "take_along_dim"), lambda m, x: m.min(x, -1).values, (distinct(2, 3),)),
    Case(
        "take_along_dim",
        ("take_along_dim",),
        lambda m, x: m.take_along_dim(x, m.tensor([[0, 2], [1, 1]]), 1),
        (real(2, 3),),
    ),
    Case(
        "gather",
        ("take_along_dim",),
        lambda m, x: m.gather(x, 1, m.tensor([[0, 2], [1, 1]])),
        (real(2, 3),),
    ),
    Case(
        "gather_smaller_index",
        ("take_along_dim", "getitem"),
        lambda m, x: x.gather(0, m.tensor([[2], [0], [2]])),
        (real(3, 2),),
    ),
    Case(
        "index_select",
        ("index_select",),
        lambda m, x: x.index_select(1, m.tensor([2, 0, 2])),
        (real(2, 3),),
    ),
    Case(
        "put_along_dim",
        ("put_along_dim",),
        lambda m, g: ops.put_along_dim(g, np.array([[0, 2], [1, 0]]), 1, (2, 3)),
        (real(2, 2),),
        lambda m, g: m.zeros(2, 3, dtype=m.float64).scatter(1, m.tensor([[0, 2], [1, 0]]), g),
    ),
    Case("logsumexp", ("logsumexp",), lambda m, x: m.logsumexp(x, 1), (real(2, 3),)),
    Case(
        "logsumexp_keepdim",
        ("logsumexp",),
        lambda m, x: x.logsumexp(0, keepdim=True),
        (real(3, 2),),
    ),
    Case("norm", ("norm",), lambda m, x: m.norm(x), (real(2, 3),)),
    Case("norm_1", ("norm",), lambda m, x: m.norm(x, 1, 1), (nonzero(2, 3),)),
    Case("norm_3", ("norm",), lambda m, x: x.norm(3, 0, keepdim=True), (nonzero(3, 2),)),
    Case("norm_inf", ("norm",), lambda m, x: m.norm(x, float("inf")), (distinct(2, 3),)),
    Case("var", ("var",), lambda m, x: m.var(x), (real(2, 3),)),
    Case("var_dim", ("var",), lambda m, x: x.var(1, correction=0), (real(2, 3),)),
    Case("std", ("std",), lambda m, x: m.std(x), (real(2, 3),)),
    Case("std_dim", ("std",), lambda m, x: x.std(0, keepdim=True), (real(3, 2),)),
    Case("softmax", ("softmax",), lambda m, x: m.softmax(x, 1), (real(2, 3),)),
    Case("log_softmax", ("log_softmax",), lambda m, x: x.log_softmax(-2), (real(3, 2),)),
    # linear algebra: matmul in every ndim combination
    Case("matmul_1d_1d", ("matmul", "dot"), lambda m, x, y: x @ y, (real(3), real(3))),
    Case("matmul_1d_2d", ("matmul",), lambda m, x, y: x @ y, (real(3), real(3, 2))),
    Case("matmul_2d_1d", ("matmul",), lambda m, x, y: m.matmul(x, y), (real(2, 3), real(3))),
    Case("matmul_2d_2d", ("matmul", "mm"), lambda m, x, y: m.mm(x, y), (real(2, 3), real(3, 2))),
    Case("matmul_outer_inner_1", ("matmul",), lambda m, x, y: x @ y, (real(3, 1), real(1, 2))),
    Case("matmul_1d_3d", ("matmul",), lambda m, x, y: x @ y, (real(3), real(2, 3, 2))),
    Case("matmul_3d_1d", ("matmul",), lambda m, x, y: x @ y, (real(2, 2, 3), real(3))),
    Case("matmul_2d_3d", ("matmul",), lambda m, x, y: x @ y, (real(2, 3), real(2, 3, 2))),
    Case("matmul_3d_2d", ("matmul",), lambda m, x, y: x @ y, (real(2, 2, 3), real(3, 2))),
    Case("matmul_3d_3d", ("matmul",), lambda m, x, y: x @ y, (real(2, 2, 3), real(2, 3, 2))),
    Case(
        "matmul_broadcast_batch",
        ("matmul",),
        lambda m, x, y: x @ y,
        (real(2, 1, 2, 3), real(3, 3, 1)),
    ),
    Case("dot", ("dot", "matmul"), lambda m, x, y: m.dot(x, y), (real(4), real(4))),
    Case("outer", ("outer",), lambda m, x, y: m.outer(x, y), (real(3), real(2))),
    Case("transpose", ("transpose",), lambda m, x: x.transpose(0, 2), (real(2, 3, 2),)),
    Case("t", ("t", "transpose"), lambda m, x: m.t(x), (real(2, 3),)),
    Case("T", ("T",), lambda m, x: x.T, (real(2, 3),)),
    Case("mT", ("transpose",), lambda m, x: x.mT, (real(2, 2, 3),)),
    Case("permute", ("permute",), lambda m, x: x.permute(2, 0, 1), (real(2, 3, 2),)),
    Case("permute_function", ("permute",), lambda m, x: m.permute(x, (1, 0)), (real(2, 3),)),
    Case("trace", ("trace",), lambda m, x: m.trace(x), (real(3, 3),)),
    Case("det", ("det",), lambda m, x: m.det(x), (well_conditioned(3, 3),)),
    Case("det_batched", ("det",), lambda m, x: m.det(x), (well_conditioned(2, 2, 2),)),
    Case("inverse", ("inverse",), lambda m, x: m.inverse(x), (well_conditioned(3, 3),)),
    Case("inverse_batched", ("inverse",), lambda m, x: m.inverse(x), (well_conditioned(2, 2, 2),)),
    Case("diag_of_vector", ("diag", "diag_embed"), lambda m, x: m.diag(x), (real(3),)),
    Case("diag_of_matrix", ("diag", "diagonal"), lambda m, x: m.diag(x), (real(3, 3),)),
    Case("diagonal", ("diagonal",), lambda m, x: x.diagonal(), (real(2, 3),)),
    Case("diagonal_of_a_batch", ("diagonal",), lambda m, x: x.diagonal(), (real(3, 3, 2),)),
    Case("diagonal_dims", ("diagonal",), lambda m, x: m.diagonal(x, 0, 2, 0), (real(3, 2, 3),)),
    Case(
        "diag_embed",
        ("diag_embed",),
        lambda m, x: ops.diag_embed(x, 3, 3),
        (real(2, 3),),
        lambda m, x: m.diag_embed(x),
    ),
    # shapes
    Case("reshape", ("reshape",), lambda m, x: m.reshape(x, (3, 2)), (real(2, 3),)),
    Case("reshape_method", ("reshape",), lambda m, x: x.reshape(-1), (real(2, 3),)),
    Case("view", ("view", "reshape"), lambda m, x: x.view(3, 2), (real(2, 3),)),
    Case("flatten", ("flatten", "reshape"), lambda m, x: m.flatten(x), (real(2, 3, 2),)),
    Case("flatten_start", ("flatten",), lambda m, x: x.flatten(1), (real(2, 3, 2),)),
    Case("squeeze", ("squeeze",), lambda m, x: m.squeeze(x), (real(2, 1, 3, 1),)),
    Case("squeeze_dim", ("squeeze",), lambda m, x: x.squeeze(1), (real(2, 1, 3),)),
    Case("unsqueeze", ("unsqueeze",), lambda m, x: m.unsqueeze(x, 1), (real(2, 3),)),
    Case("expand", ("expand", "broadcast_to"), lambda m, x: x.expand(2, -1, 3), (real(4, 1),)),
    Case(
        "broadcast_to", ("broadcast_to",), lambda m, x: m.broadcast_to(x, (2, 3, 2)), (real(3, 1),)
    ),
    Case(
        "sum_to",
        ("sum_to",),
        lambda m, x: ops.sum_to(x, (3, 1)),
        (real(2, 3, 4),),
        lambda m, x: x.sum_to_size(3, 1),
    ),
    Case("stack", ("stack",), lambda m, x, y: m.stack([x, y]), (real(2, 3), real(2, 3))),
    Case("stack_dim", ("stack",), lambda m, x, y: m.stack((x, y, x), -1), (real(2, 3), real(2, 3))),
    Case("cat", ("cat",), lambda m, x, y: m.cat([x, y]), (real(2, 3), real(1, 3))),
    Case("cat_dim", ("cat",), lambda m, x, y: m.cat([x, y, x], dim=-1), (real(2, 1), real(2, 3))),
    Case(
        "to",
        ("to", "to_dtype"),
        lambda m, x: (x.to(m.float32) * 1.0).double(),
        (real(2, 3),),
        eps=1e-3,
    ),
    Case("clone", ("clone",), lambda m, x: x.clone(), (real(2, 3),)),
    # indexing
    Case("getitem_int", ("getitem",), lambda m, x: x[1], (real(3, 2),)),
    Case("getitem_negative_int", ("getitem",), lambda m, x: x[-1, 0], (real(3, 2),)),
    Case("getitem_slice", ("getitem",), lambda m, x: x[:, 1:3], (real(2, 4),)),
    Case("getitem_step", ("getitem",), lambda m, x: x[::2], (real(5),)),
    Case("getitem_ellipsis", ("getitem",), lambda m, x: x[..., 0], (real(2, 2, 3),)),
    Case("getitem_none", ("getitem",), lambda m, x: x[None, :, None], (real(3),)),
    Case("getitem_int_array", ("getitem",), lambda m, x: x[m.tensor([0, 2, 0])], (real(3, 2),)),
    Case("getitem_list", ("getitem",), lambda m, x: x[[1, 1, 0]], (real(3),)),
    Case("getitem_mask", ("getitem",), lambda m, x: x[m.tensor(MASK)], (real(2, 3),)),
    Case("getitem_computed_mask", ("getitem",), lambda m, x: x[x > 0], (nonzero(2, 3),)),
    Case("getitem_mixed", ("getitem",), lambda m, x: x[1:, m.tensor([0, 0, 2])], (real(3, 3),)),
    # The derivatives of tanh, sigmoid, relu and softmax as ops (a differentiable reverse
    # pass records them under PyTorch's names), against aten's own kernels.
    Case(
        "tanh_backward",
        ("tanh_backward",),
        lambda m, g, y: ops.tanh_backward(g, y),
        (real(2, 3), real(2, 3)),
        lambda m, g, y: m.ops.aten.tanh_backward(g, y),
    ),
    Case(
        "sigmoid_backward",
        ("sigmoid_backward",),
        lambda m, g, y: ops.sigmoid_backward(g, y),
        (real(2, 3), probability(2, 3)),
        lambda m, g, y: m.ops.aten.sigmoid_backward(g, y),
    ),
    Case(
        "threshold_backward",
        ("threshold_backward",),
        lambda m, g, x: ops.threshold_backward(g, x, 0),
        (real(2, 3), nonzero(2, 3)),
        lambda m, g, x: m.ops.aten.threshold_backward(g, x, 0),
    ),
    Case(
        "leaky_relu_backward",
        ("leaky_relu_backward",),
        lambda m, g, x: ops.leaky_relu_backward(g, x, 0.2),
        (real(2, 3), nonzero(2, 3)),
        lambda m, g, x: m.ops.aten.leaky_relu_backward(g, x, 0.2, False),
    ),
    Case(
        "bce_backward",
        ("bce_backward",),
        lambda m, g, x, t: ops.bce_backward(g, x, t, None, "mean"),
        (real(), probability(2, 3), probability(2, 3)),
        lambda m, g, x, t: m.ops.aten.binary_cross_entropy_backward(g, x, t, None, 1),
    ),
    Case(
        "nll_loss_backward",
        ("nll_loss_backward",),
        lambda m, g, x: ops.nll_loss_backward(g, x, np.array([2, 0, 2]), None, -100, "mean"),
        (real(), real(3, 4)),
        # aten's reduction 1 is the mean, over total_weight (3 targets of weight 1)
        lambda m, g, x: m.ops.aten.nll_loss_backward(
            g, x, m.tensor([2, 0, 2]), None, 1, -100, m.tensor(3.0, dtype=m.float64)
        ),
    ),
    Case(
        "softmax_backward_data",
        ("softmax_backward_data",),
        lambda m, g, y: ops.softmax_backward_data(g, y, 1),
        (real(2, 3), probability(2, 3)),
        lambda m, g, y: m.ops.aten._softmax_backward_data(g, y, 1, m.float64),
    ),
    Case(
        "log_softmax_backward_data",
        ("log_softmax_backward_data",),
        lambda m, g, y: ops.log_softmax_backward_data(g, y, 1),
        (real(2, 3), uniform(-2.0, -0.1, 2, 3)),
        lambda m, g, y: m.ops.aten._log_softmax_backward_data(g, y, 1, m.float64),
    ),
    Case(
        "index_scatter",
        ("index_scatter",),
        lambda m, g: ops.index_scatter(g, (np.array([0, 2, 0]),), (3, 2)),
        (real(3, 2),),
        lambda m, g: m.zeros(3, 2, dtype=m.float64).index_put(
            (m.tensor([0, 2, 0]),), g, accumulate=True
        ),
    ),
    Case(
        "zero_at",
        ("zero_at",),
        lambda m, g: ops.zero_at(g, (slice(1, None),), 0),
        (real(3, 2),),
        lambda m, g: m.cat([g[:1], m.zeros(2, 2, dtype=m.float64)]),
    ),
    Case("setitem_int", ("setitem",), _setitem(lambda m: 1, (3,)), (real(2, 3), real(3))),
    Case(
        "setitem_slice",
        ("setitem",),
        _setitem(lambda m: (slice(None), slice(0, 2)), (2, 2)),
        (real(2, 3), real(2, 2)),
    ),
    Case(
        "setitem_broadcast",
        ("setitem",),
        _setitem(lambda m: slice(0, 2), (1,)),
        (real(3, 2), real(1)),
    ),
    Case(
        "setitem_mask",
        ("setitem",),
        _setitem(lambda m: m.tensor(MASK), (4,)),
        (real(2, 3), real(4)),
    ),
    Case(
        "setitem_int_array",
        ("setitem",),
        _setitem(lambda m: m.tensor([2, 0]), (2, 3)),
        (real(3, 3), real(2, 3)),
    ),
    Case("setitem_into_constant", ("setitem",), _set_into_constant, (real(3),)),
    # rearranging entries
    Case("cumsum", ("cumsum",), lambda m, x: x.cumsum(1), (real(2, 3),)),
    Case("cumsum_function", ("cumsum",), lambda m, x: m.cumsum(x, dim=-2), (real(3, 2),)),
    Case("flip", ("flip",), lambda m, x: x.flip(0), (real(3, 2),)),
    Case("flip_dims", ("flip",), lambda m, x: m.flip(x, [0, -1]), (real(2, 3, 2),)),
    Case("roll", ("roll",), lambda m, x: x.roll(1, 1), (real(2, 3),)),
    Case("roll_dims", ("roll",), lambda m, x: m.roll(x, (1, -1), (0, 1)), (real(3, 2),)),
    Case("roll_flat", ("roll",), lambda m, x: x.roll(2), (real(2, 3),)),
    Case("tril", ("tril",), lambda m, x: x.tril(), (real(3, 3),)),
    Case("triu", ("triu",), lambda m, x: m.triu(x, 1), (real(2, 3, 3),)),
    Case("repeat", ("repeat",), lambda m, x: x.repeat(2, 1, 3), (real(2, 3),)),
    Case("repeat_vector", ("repeat",), lambda m, x: x.repeat(3), (real(2),)),
    Case("masked_fill", ("masked_fill",), lambda m, x: x.masked_fill(x > 0, 0.5), (nonzero(2, 3),)),
    Case(
        "masked_fill_tensor",
        ("where",),
        lambda m, x, v: x.masked_fill(x > 0, v),
        (nonzero(2, 3), real()),
    ),
    Case("sort", ("sort",), lambda m, x: x.sort(1).values, (distinct(2, 3),)),
    Case(
        "sort_descending",
        ("take_along_dim",),
        lambda m, x: m.sort(x, 0, descending=True)[0],
        (distinct(3, 2),),
    ),
    Case("topk", ("topk",), lambda m, x: x.topk(2).values, (distinct(2, 4),)),
    Case(
        "topk_smallest",
        ("take_along_dim",),
        lambda m, x: m.topk(x, 1, 0, largest=False)[0],
        (distinct(3, 2),),
    ),
    Case("unbind", ("unbind",), lambda m, x: x.unbind(1)[2], (real(2, 3),)),
    Case("split", ("split",), lambda m, x: x.split(2, 1)[1], (real(2, 3),)),
    Case("split_sizes", ("getitem",), lambda m, x: m.split(x, [1, 2])[1], (real(3, 2),)),
    Case("chunk", ("getitem",), lambda m, x: x.chunk(2)[0], (real(3, 2),)),
    Case("mv", ("matmul",), lambda m, x, y: x.mv(y), (real(2, 3), real(3))),
    Case("bmm", ("bmm",), lambda m, x, y: m.bmm(x, y), (real(2, 2, 3), real(2, 3, 2))),
    Case("sum_to_size", ("sum",), lambda m, x: x.sum_to_size(1, 3), (real(2, 3),)),
    Case("hstack", ("cat",), lambda m, x, y: m.hstack([x, y]), (real(2, 1), real(2, 3))),
    Case("vstack", ("cat", "unsqueeze"), lambda m, x, y: m.vstack([x, y]), (real(3), real(2, 3))),
    # in-place methods on a tensor in a graph: the tensor takes the result and its grad_fn
    Case("zero_", ("zero",), lambda m, x: (x * 2.0).zero_() + x, (real(2, 3),)),
    Case("fill_number", ("fill",), lambda m, x: (x * 2.0).fill_(1.5) * x, (real(3),)),
    Case("fill_tensor", ("fill",), lambda m, x, v: (x * 2.0).fill_(v), (real(2, 3), real())),
    Case("copy_", ("copy",), lambda m, x, y: (x * 2.0).copy_(y * y), (real(2, 3), real(3))),
    Case("mul_", ("mul",), lambda m, x, y: (x * 2.0).mul_(y), (real(2, 3), real(3))),
    Case("exp_", ("exp",), lambda m, x: (x + 0.0).exp_(), (real(3),)),
    Case("clamp_", ("clamp",), lambda m, x: (x * 1.0).clamp_(min=0.0), (nonzero(4),)),
    Case("pow_", ("pow",), lambda m, x: (x * 1.0).pow_(3), (real(4),)),
    # special functions
    Case("rad2deg", ("rad2deg",), lambda m, x: x.rad2deg(), (real(3),)),
    Case(
        "factorial",
        ("factorial", "gamma"),
        lambda m, x: m.factorial(x),
        (uniform(-0.5, 3, 2, 3),),
        lambda m, x: m.exp(m.lgamma(x + 1)),
        oracle_rtol=1e-8,
    ),
    Case(
        "lgamma_negative",
        ("lgamma",),
        lambda m, x: x.lgamma(),
        (uniform(-1.9, -1.1, 3),),
        oracle_rtol=1e-8,
    ),
    Case(
        "polygamma",
        ("polygamma", "polygamma_op"),
        lambda m, x: m.polygamma(2, x),
        (positive(2, 3),),
        oracle_rtol=1e-8,  # polygamma(0 or 1, x) meets PyTorch's trigamma (5e-10)
    ),
    Case("hypot", ("hypot",), lambda m, x, y: m.hypot(x, y), (nonzero(2, 3), nonzero(3))),
    Case("xlogy", ("xlogy",), lambda m, x, y: m.xlogy(x, y), (real(2, 3), positive(3))),
    Case("xlogy_number_x", ("xlogy",), lambda m, y: m.xlogy(2.0, y), (positive(3),)),
    Case("xlogy_number_y", ("xlogy",), lambda m, x: x.xlogy(2.0), (real(3),)),
    Case(
        "xlog1py", ("xlog1py",), lambda m, x, y: m.special.xlog1py(x, y), (real(2, 3), positive(3))
    ),
    Case("xlog1py_number_x", ("xlog1py",), lambda m, y: m.special.xlog1py(2.0, y), (positive(3),)),
    Case(
        "multigammaln",
        ("multigammaln",),
        lambda m, x: m.special.multigammaln(x + 1, 3),
        (positive(2, 3),),
        oracle_rtol=1e-8,  # its second derivative is trigamma's: mpmath's to 2e-16 here
    ),
    # zeta's derivative for x PyTorch does not implement: for q only.
    Case("zeta_q", ("zeta",), lambda m, q: m.special.zeta(2.5, q), (positive(3),)),
    # ndtr's C++ products and sum with a number (MulBackward1, AddBackward1)
    Case(
        "ndtr_3x2",
        ("ndtr", "mul_scalar", "add_scalar"),
        lambda m, x: m.special.ndtr(x),
        (uniform(-3, 3, 3, 2),),
    ),  # fmt: skip
    Case(
        "ln",
        ("ln",),
        lambda m, x: ops.ln(x),
        (positive(3),),
        lambda m, x: m.log(x),
    ),
    # running products (exact with zero entries), cross products, linear algebra
    Case("cumprod", ("cumprod",), lambda m, x: x.cumprod(1), (real(2, 3),)),
    Case("cumprod_function", ("cumprod",), lambda m, x: m.cumprod(x, dim=0), (real(3, 2),)),
    Case(
        "cumprod_with_zeros",
        ("cumprod",),
        lambda m, x: m.cumprod(x * m.tensor([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]]), 1),
        (real(2, 4),),
    ),
    Case(
        "cross",
        ("cross", "cross_op"),
        lambda m, x, y: m.cross(x, y, dim=1),
        (real(2, 3), real(2, 3)),
    ),
    Case(
        "cross_broadcast",
        ("cross", "cross_op"),
        lambda m, x, y: m.linalg.cross(x, y),
        (real(2, 3), real(1, 3)),
    ),
    Case(
        "cross_first_dim",
        ("cross", "cross_op"),
        lambda m, x, y: x.cross(y, 0),
        (real(3, 2), real(3, 2)),
    ),
    Case(
        "solve",
        ("solve", "solve_op"),
        lambda m, a, b: m.linalg.solve(a, b),
        (well_conditioned(3, 3), real(3, 2)),
    ),
    Case(
        "solve_vector",
        ("solve", "solve_op"),
        lambda m, a, b: m.linalg.solve(a, b),
        (well_conditioned(3, 3), real(3)),
    ),
    Case(
        "solve_batched_vectors",
        ("solve", "solve_op"),
        lambda m, a, b: m.linalg.solve(a, b),
        (well_conditioned(2, 3, 3), real(2, 3)),
    ),
    Case("eigvalsh", ("eigvalsh",), lambda m, x: m.linalg.eigvalsh(x + x.mT), (real(3, 3),)),
    Case(
        "eigvalsh_batched_upper",
        ("eigvalsh",),
        lambda m, x: m.linalg.eigvalsh(x + x.mT, UPLO="U"),
        (real(2, 3, 3),),
    ),
    Case(
        "eigenvectors",
        ("eigenvectors",),
        lambda m, x: ops.eigenvectors(x + x.mT) ** 2,  # squared: signs are arbitrary
        (real(3, 3),),
        lambda m, x: m.linalg.eigh(x + x.mT)[1] ** 2,
    ),
    Case("svdvals", ("svdvals",), lambda m, x: m.linalg.svdvals(x), (real(3, 2),)),
    Case("svdvals_wide_batched", ("svdvals",), lambda m, x: m.linalg.svdvals(x), (real(2, 2, 3),)),
    *(
        Case(
            f"{name}_{shape}",
            (name,),
            lambda m, x, name=name: getattr(ops, name)(x) ** 2,  # squared: signs are arbitrary
            (real(*shape),),
            lambda m, x, part=part: m.linalg.svd(x, full_matrices=False)[part] ** 2,
        )
        for name, part in (("svd_u", 0), ("svd_vh", 2))
        for shape in ((3, 2), (2, 3), (2, 3, 3))
    ),
    Case(
        "matrix_norms",
        ("matrix_norm",),
        lambda m, x: (
            m.linalg.matrix_norm(x, 2)
            + m.linalg.matrix_norm(x, "nuc", dim=(0, 2)).sum()
            + m.linalg.matrix_norm(x, -1, keepdim=True).sum() * m.linalg.matrix_norm(x, -2)
        ),
        (real(2, 3, 4),),
    ),
    Case("logdet", ("logdet", "logabsdet"), lambda m, x: m.logdet(x), (well_conditioned(3, 3),)),
    Case("logdet_batched", ("logdet",), lambda m, x: x.logdet(), (well_conditioned(2, 2, 2),)),
    # activations and losses (torch.nn.functional in PyTorch)
    Case("gelu", ("gelu",), lambda m, x: nn(m).gelu(x), (uniform(-3, 3, 2, 3),)),
    Case(
        "gelu_tanh",
        ("gelu",),
        lambda m, x: nn(m).gelu(x, approximate="tanh"),
        (uniform(-3, 3, 2, 3),),
    ),
    Case("silu", ("silu",), lambda m, x: nn(m).silu(x), (uniform(-3, 3, 2, 3),)),
    Case("leaky_relu", ("leaky_relu",), lambda m, x: nn(m).leaky_relu(x), (nonzero(2, 3),)),
    Case("leaky_relu_slope", ("leaky_relu",), lambda m, x: nn(m).leaky_relu(x, 0.2), (nonzero(4),)),
    Case("elu", ("elu",), lambda m, x: nn(m).elu(x), (nonzero(2, 3),)),
    Case("elu_alpha", ("elu",), lambda m, x: nn(m).elu(x, alpha=2.0), (nonzero(4),)),
    Case("softsign", ("softsign",), lambda m, x: nn(m).softsign(x), (nonzero(2, 3),)),
    Case(
        "mse_loss",
        ("mse_loss", "mse_op"),
        lambda m, x, y: nn(m).mse_loss(x, y),
        (real(2, 3), real(2, 3)),
    ),
    Case(
        "mse_loss_sum",
        ("mse_loss", "mse_op"),
        lambda m, x, y: nn(m).mse_loss(x, y, reduction="sum"),
        (real(2, 3), real(2, 3)),
    ),
    Case(
        "mse_loss_weighted",
        ("mse_loss", "mse_op"),
        lambda m, x, y, w: nn(m).mse_loss(x, y, weight=w),
        (real(2, 3), real(2, 3), positive(2, 3)),
    ),
    Case(
        "mse_loss_weighted_broadcast_sum",
        ("mse_loss", "mse_op"),
        lambda m, x, y, w: nn(m).mse_loss(x, y, weight=w, reduction="sum"),
        (real(2, 3), real(3), positive(2, 3)),
    ),
    Case(
        "mse_loss_none",
        ("mse_loss", "mse_op"),
        lambda m, x, y: nn(m).mse_loss(x, y, reduction="none"),
        (real(2, 3), real(2, 3)),
    ),
    Case(
        "binary_cross_entropy",
        ("binary_cross_entropy", "bce_op"),
        lambda m, x, t: nn(m).binary_cross_entropy(x, t),
        (probability(2, 3), probability(2, 3)),
    ),
    Case(
        "binary_cross_entropy_weighted",
        ("binary_cross_entropy", "bce_op"),
        lambda m, x, t: nn(m).binary_cross_entropy(
            x, t, weight=m.tensor([1.0, 2.0, 0.5], dtype=m.float64), reduction="none"
        ),
        (probability(2, 3), probability(2, 3)),
    ),
    Case(
        "binary_cross_entropy_with_logits",
        ("binary_cross_entropy_with_logits", "bce_logits_op"),
        lambda m, x, t: nn(m).binary_cross_entropy_with_logits(x, t),
        (uniform(-3, 3, 2, 3), probability(2, 3)),
    ),
    Case(
        "binary_cross_entropy_with_logits_weights",
        ("binary_cross_entropy_with_logits", "bce_logits_op"),
        lambda m, x, t: nn(m).binary_cross_entropy_with_logits(
            x,
            t,
            m.tensor([2.0, 1.0, 0.5], dtype=m.float64),
            reduction="sum",
            pos_weight=m.tensor([1.0, 3.0, 0.5], dtype=m.float64),
        ),
        (uniform(-3, 3, 2, 3), probability(2, 3)),
    ),
    Case(
        "cross_entropy",
        ("cross_entropy", "nll_loss", "log_softmax"),
        lambda m, z: nn(m).cross_entropy(z, m.tensor([0, 2, 1])),
        (uniform(-2, 2, 3, 4),),
    ),
    Case(
        "cross_entropy_weight_ignore_index",
        ("cross_entropy", "nll_loss"),
        lambda m, z: nn(m).cross_entropy(
            z,
            m.tensor([0, 2, 1, 2]),
            weight=m.tensor([1.0, 2.0, 0.5], dtype=m.float64),
            ignore_index=1,
        ),
        (uniform(-2, 2, 4, 3),),
    ),
    Case(
        "cross_entropy_sum_label_smoothing",
        ("cross_entropy", "nll_loss"),
        lambda m, z: nn(m).cross_entropy(
            z, m.tensor([0, 2, 1]), reduction="sum", label_smoothing=0.2
        ),
        (uniform(-2, 2, 3, 4),),
    ),
    Case(
        "cross_entropy_mean_label_smoothing_weight",
        ("cross_entropy", "nll_loss"),
        lambda m, z: nn(m).cross_entropy(
            z,
            m.tensor([0, 2, 1]),
            m.tensor([1.0, 2.0, 3.0, 0.5], dtype=m.float64),
            ignore_index=2,
            label_smoothing=0.1,
        ),
        (uniform(-2, 2, 3, 4),),
    ),
    Case(
        "cross_entropy_one_sample",
        ("cross_entropy", "nll_loss"),
        lambda m, z: nn(m).cross_entropy(z, m.tensor(2)),
        (real(4),),
    ),
    Case(
        "cross_entropy_spatial_none",
        ("cross_entropy", "nll_loss", "reshape"),
        lambda m, z: nn(m).cross_entropy(z, m.tensor([[0, 2], [1, 1]]), reduction="none"),
        (real(2, 3, 2),),
    ),
    Case(
        "cross_entropy_2d",
        ("cross_entropy", "nll_loss"),
        lambda m, z: nn(m).cross_entropy(z, m.tensor([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])),
        (real(2, 3, 2, 2),),
    ),
    Case(
        "cross_entropy_probabilities",
        ("cross_entropy", "div"),
        lambda m, z, p: nn(m).cross_entropy(z, m.softmax(p, 1)),
        (real(3, 4), real(3, 4)),
    ),
    Case(
        "cross_entropy_probabilities_none_smoothing",
        ("cross_entropy",),
        lambda m, z, p: nn(m).cross_entropy(
            z, m.softmax(p, 1), reduction="none", label_smoothing=0.1
        ),
        (real(3, 4), real(3, 4)),
    ),
    Case(
        "cross_entropy_probabilities_weight_sum",
        ("cross_entropy",),
        lambda m, z, p: nn(m).cross_entropy(
            z, m.softmax(p, 0), weight=m.tensor([1.0, 2.0, 0.5], dtype=m.float64), reduction="sum"
        ),
        (real(3), real(3)),
    ),
    # The robust losses, the KL divergence and the layer functions: torch.nn.functional's.
    Case(
        "huber_loss",
        ("huber_loss", "huber_op"),
        lambda m, x, y: m.nn.functional.huber_loss(x, y, delta=0.6),
        (uniform(-2, 2, 2, 3), real(2, 3)),
    ),
    Case(
        "huber_loss_weighted_none",
        ("huber_loss", "huber_op"),
        lambda m, x, y, w: m.nn.functional.huber_loss(x, y, reduction="none", weight=w),
        (uniform(-2, 2, 2, 3), real(2, 3), positive(2, 3)),
    ),
    Case(
        "smooth_l1_loss",
        ("smooth_l1_loss",),
        lambda m, x, y: m.nn.functional.smooth_l1_loss(x, y, reduction="sum", beta=0.5),
        (uniform(-2, 2, 2, 3), real(2, 3)),
    ),
    Case(
        "kl_div",
        ("kl_div", "xlogy"),
        lambda m, x, t: m.nn.functional.kl_div(m.log_softmax(x, 1), t, reduction="batchmean"),
        (real(2, 3), probability(2, 3)),
    ),
    Case(
        "kl_div_log_target",
        ("kl_div", "exp"),
        lambda m, x, t: m.nn.functional.kl_div(x, t, reduction="none", log_target=True),
        (real(2, 3), real(2, 3)),
    ),
    Case(
        "addmm", ("addmm",), lambda m, c, a, b: m.addmm(c, a, b), (real(3), real(2, 4), real(4, 3))
    ),  # fmt: skip
    Case(
        "addmm_scaled",
        ("addmm",),
        lambda m, c, a, b: m.addmm(c, a, b, beta=0.5, alpha=2.0),
        (real(2, 3), real(2, 4), real(4, 3)),
    ),
    Case(
        "linear",
        ("linear", "addmm", "t"),
        lambda m, x, w, b: m.nn.functional.linear(x, w, b),
        (real(2, 4), real(3, 4), real(3)),
    ),
    Case(
        "linear_3d_no_bias",
        ("linear", "matmul"),
        lambda m, x, w: m.nn.functional.linear(x, w),
        (real(2, 2, 4), real(3, 4)),
    ),
    Case(
        "linear_1d",
        ("linear", "addmm"),
        lambda m, x, w, b: m.nn.functional.linear(x, w, b),
        (real(4), real(3, 4), real(3)),
    ),
    Case("clamp_min", ("clamp_min",), lambda m, x: m.clamp_min(x, 0.1), (nonzero(2, 3),)),
    Case(
        "normalize",
        ("normalize", "clamp_min", "norm"),
        lambda m, x: m.nn.functional.normalize(x, p=3.0, dim=0),
        (nonzero(2, 3),),
    ),
    Case(
        "constant_pad_nd",
        ("constant_pad_nd",),
        lambda m, x: m.constant_pad_nd(x, [1, -1, 0, 2], 0.5),
        (real(2, 3),),
    ),
    Case(
        "pad_reflect",
        ("pad",),
        lambda m, x: m.nn.functional.pad(x, (2, 1, 1, 1), mode="reflect"),
        (real(1, 3, 4),),
    ),
    Case(
        "pad_replicate",
        ("pad",),
        lambda m, x: m.nn.functional.pad(x, (1, 2), mode="replicate"),
        (real(2, 3),),
    ),
    # The pads' gradients as ops (a differentiable reverse pass records them under
    # PyTorch's ReflectionPad1DBackwardBackward0...), against aten's kernels; the index
    # reads the padded result from x: np.pad(np.arange(n), (before, after), mode).
    Case(
        "reflection_pad_backward",
        ("reflection_pad_backward",),
        lambda m, g, x: ops.reflection_pad_backward(g, x, (slice(None), np.array(REFLECT_2_1))),
        (real(2, 7), real(2, 4)),
        lambda m, g, x: m.ops.aten.reflection_pad1d_backward(g, x, [2, 1]),
    ),
    Case(
        "replication_pad_backward",
        ("replication_pad_backward",),
        lambda m, g, x: ops.replication_pad_backward(g, x, (slice(None), *REPLICATE_1_0_0_1)),
        (real(1, 4, 5), real(1, 3, 4)),
        lambda m, g, x: m.ops.aten.replication_pad2d_backward(g, x, [1, 0, 0, 1]),
    ),
    Case(
        "index_add",
        ("index_add", "index_add_op"),
        lambda m, x, s: m.index_add(x, 0, m.tensor([2, 0, 2]), s, alpha=1.5),
        (real(3, 2), real(3, 2)),
    ),
]

#: How PyTorch computes an elementwise function where it lacks it (cbrt, sec) or is less
#: accurate than gradcli (its trigamma: 5e-10, by mpmath): the oracle's own knowledge.
ORACLE = {
    "cbrt": dict(torch_fn=lambda m, x: m.sign(x) * m.abs(x) ** (1 / 3)),
    "sec": dict(torch_fn=lambda m, x: 1 / m.cos(x)),
    "csc": dict(torch_fn=lambda m, x: 1 / m.sin(x)),
    "cot": dict(torch_fn=lambda m, x: 1 / m.tan(x)),
    "gamma": dict(torch_fn=lambda m, x: m.exp(m.lgamma(x)), oracle_rtol=1e-8),
    "lgamma": dict(oracle_rtol=1e-8),
    "digamma": dict(oracle_rtol=1e-8),
}


def _elementwise_cases(cases):
    """``m.name(x)`` for each elementwise entry of one input on its declared domain
    (``Op.domain``), but those that a case of their own name calls otherwise (``-x``,
    ``nn(m).gelu`` on a wider range)."""
    own = {case.name for case in cases}
    return [
        unary(entry.name, _domain(entry.domain[0]), **ORACLE.get(entry.name, {}))
        for entry in ops.OPS.values()
        if entry.kind == "elementwise" and entry.differentiable and entry.library
        and entry.domain and len(entry.domain) == 1 and entry.name not in own
    ]  # fmt: skip


ELEMENTWISE = _elementwise_cases(CASES)
CASES += ELEMENTWISE

# Ops without a gradient: their results never require grad (checked in
# test_engine_torch.py against PyTorch's values).
NONDIFF_CASES = [
    ("lt", lambda m, x, y: x < y),
    ("le", lambda m, x, y: x <= y),
    ("gt", lambda m, x, y: m.gt(x, y)),
    ("ge", lambda m, x, y: x >= y),
    ("eq", lambda m, x, y: x == y),
    ("ne", lambda m, x, y: x.ne(y)),
    ("logical_and", lambda m, x, y: (x > 0) & (y > 0)),
    ("logical_or", lambda m, x, y: (x > 0) | (y > 0)),
    ("logical_not", lambda m, x, y: ~(x > y)),
    ("isnan", lambda m, x, y: m.isnan(m.log(x))),
    ("isinf", lambda m, x, y: m.isinf(1.0 / m.relu(x))),
    ("isfinite", lambda m, x, y: m.isfinite(m.log(x))),
    ("argmax", lambda m, x, y: m.argmax(x, 1)),
    ("argmin", lambda m, x, y: x.argmin()),
    ("all", lambda m, x, y: (x > -0.5).all(1)),
    ("any", lambda m, x, y: m.any(x > y)),
    ("isclose", lambda m, x, y: m.isclose(x, y)),
    ("nonzero", lambda m, x, y: (x > y).nonzero()),
    ("argsort", lambda m, x, y: x.argsort(1, descending=True)),
    ("detach", lambda m, x, y: m.detach(x * y)),
    ("one_hot", lambda m, x, y: m.nn.functional.one_hot((x > y).long(), 3)),
]

# Ops whose derivative PyTorch does not implement: grad_fn NotImplemented, backward
# raises (checked in test_engine_torch.py).
NO_DERIVATIVE_CASES = [
    ("floor_divide", lambda m, x: x // 0.3),
    ("rfloor_divide", lambda m, x: 2.0 // x),
    ("remainder", lambda m, x: 2.0 % x),
]

CONSTRUCTORS = {
    "zeros",
    "ones",
    "full",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "zeros_like",
    "ones_like",
}


def _inputs(case):
    return tuple(gradcli.tensor(a, requires_grad=True) for a in case.arrays())


def _func(case):
    return lambda *xs: case.fn(gradcli, *xs)


# Functions whose results are Python ints (sizes), never tensors.
SIZES = {"numel", "len"}


def test_sizes_are_torchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the oracle")
    for shape in [(2, 3), (4,), (0, 5), ()]:
        x = np.zeros(shape)
        assert ops.numel(gradcli.tensor(x)) == torch.numel(torch.tensor(x))
        if shape:
            assert ops.FUNCTIONS["len"].call(gradcli.tensor(x)) == len(torch.tensor(x))
        else:
            with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
                len(torch.tensor(x))
            with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
                ops.FUNCTIONS["len"].call(gradcli.tensor(x))


def test_every_op_and_function_has_a_case():
    covered = {name for case in CASES for name in case.covers}
    covered |= {name for name, _ in NONDIFF_CASES + NO_DERIVATIVE_CASES} | CONSTRUCTORS | SIZES
    recorded = {name for name, entry in ops.OPS.items() if entry.differentiable}
    assert recorded - covered == set()
    assert set(ops.INTERNAL) - covered == set()
    assert set(ops.FUNCTIONS) - covered == set()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_gradcheck(case):
    assert gradcheck(
        _func(case),
        _inputs(case),
        eps=case.eps,
        atol=case.atol,
        rtol=case.rtol,
        check_batched_grad=True,
    )


@pytest.mark.parametrize("case", [c for c in CASES if c.gradgrad], ids=lambda c: c.name)
def test_gradgradcheck(case):
    assert gradgradcheck(
        _func(case),
        _inputs(case),
        eps=case.eps,
        atol=case.atol,
        rtol=case.rtol,
        check_batched_grad=True,
    )
