"""The engine's numbers checked against an independent source: PyTorch 2.13 in float64, a
hand derivation, mpmath or central differences (never gradcli itself).

Each test names the case it guards: a 0-d tensor's dim, an infinite operand, a kink's
convention in forward mode, a series near a removable singularity.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gradcli
from gradcli.autograd import functional as gf
from gradcli.engine.ops import OPS

torch = pytest.importorskip("torch", reason="the expected values come from PyTorch 2.13")
tf = torch.autograd.functional

nan, inf = math.nan, math.inf
lib = gradcli  # for the tests that take the command line's fixture, also named gradcli


def same(a, b, rtol=1e-12, atol=0.0):
    """Equal numbers (as float64 arrays), nan where nan; -0 and 0 equal."""
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=rtol, atol=atol)


def both(f, *values, kind="hessian"):
    """``kind`` (jacobian or hessian) of ``f(lib, *inputs)`` by gradcli and by PyTorch."""
    g = [gradcli.tensor(v, dtype=gradcli.float64) for v in values]
    t = [torch.tensor(v, dtype=torch.float64) for v in values]
    mine = getattr(gf, kind)(lambda *xs: f(gradcli, *xs), tuple(g))
    theirs = getattr(tf, kind)(lambda *xs: f(torch, *xs), tuple(t))
    return mine, theirs


def flat(nested):
    """The numbers of a nested tuple of tensors, in order, as one float64 array."""
    if isinstance(nested, (tuple, list)):
        return np.concatenate([flat(n) for n in nested]) if nested else np.zeros(0)
    return np.asarray(nested.detach().numpy() if hasattr(nested, "detach") else nested).ravel()


# ----- a 0-d tensor along its dim: the rules must not sum g's batch dims -----

ZERO_D_PROGRAMS = {
    "softmax of a 0-d entry": (lambda L, x: L.stack([L.softmax(x[0], -1), x[1]]), "jacobian"),
    "log_softmax of a 0-d entry": (
        lambda L, x: L.stack([L.log_softmax(x[0], 0), x[1]]),
        "jacobian",
    ),
    "softmax of a sum": (lambda L, q: L.softmax(L.sum(q), 0), "hessian"),
    "log_softmax of a square": (lambda L, q: L.log_softmax(q[0] * q[0], 0), "hessian"),
    "prod of a 0-d entry": (lambda L, q: L.prod(q[1] * 2), "hessian"),
    "prod of a 0-d sum": (lambda L, q: L.prod(L.sum(q * q)), "hessian"),
    "prod of a 0-d sum along dim 0": (lambda L, q: L.prod(L.sum(q * q), 0), "hessian"),
}


@pytest.mark.parametrize("case", sorted(ZERO_D_PROGRAMS))
def test_a_0d_softmax_or_prod_differentiates_as_pytorch(case):
    f, kind = ZERO_D_PROGRAMS[case]
    mine, theirs = both(f, [1.0, 2.0, 3.0], kind=kind)
    same(flat(mine), flat(theirs))


def test_the_hessian_of_softmax_of_a_sum_is_zero_on_the_command_line(gradcli_json):
    out = gradcli_json("hessian", "softmax(sum(q), 0)", "--q", "1,2")
    assert np.asarray(out["hessian"]["q"]["q"], float).tolist() == [[0, 0], [0, 0]]


# ----- dim 0 and -1 of a 0-d tensor, as PyTorch takes them; 1 and -2 its IndexError -----


def _norm(L, x, p, d):
    return L.norm(x, p, d) if L is gradcli else torch.linalg.vector_norm(x, p, d)


def _flip(L, x, d):
    return L.flip(x, d) if L is gradcli else torch.flip(x, [d])


# One call per op that takes a dim (the test below checks that every such entry has one).
ALONG_A_DIM = {
    "all": lambda L, x, d: L.all(x, d),
    "amax": lambda L, x, d: L.amax(x, dim=d),
    "amin": lambda L, x, d: L.amin(x, [d]),
    "any": lambda L, x, d: L.any(x, d),
    "argmax": lambda L, x, d: L.argmax(x, d),
    "argmin": lambda L, x, d: L.argmin(x, d, keepdim=True),
    "argsort": lambda L, x, d: L.argsort(x, d),
    "cat": lambda L, x, d: L.cat([x.reshape(1), x.reshape(1)], d),
    "chunk": lambda L, x, d: L.chunk(x, 1, d)[0],
    "cumprod": lambda L, x, d: L.cumprod(x, d),
    "cumsum": lambda L, x, d: L.cumsum(x, d),
    "flatten": lambda L, x, d: L.flatten(x, d),
    "flip": _flip,
    "gather": lambda L, x, d: L.gather(x, d, L.tensor(0)),
    "index_select": lambda L, x, d: L.index_select(x, d, L.tensor([0])),
    "index_add": lambda L, x, d: L.index_add(x * 2, d, L.tensor([0]), x),
    "log_softmax": lambda L, x, d: L.log_softmax(x, d),
    "logsumexp": lambda L, x, d: L.logsumexp(x, d),
    "max": lambda L, x, d: L.max(x, dim=d)[0],
    "mean": lambda L, x, d: L.mean(x, d, keepdim=True),
    "min": lambda L, x, d: L.min(x, d)[0],
    "norm": lambda L, x, d: _norm(L, x, 3, d),
    "normalize": lambda L, x, d: L.nn.functional.normalize(x, 3.0, d),
    "prod": lambda L, x, d: L.prod(x, d),
    "roll": lambda L, x, d: L.roll(x, 1, d),
    "softmax": lambda L, x, d: L.softmax(x, d),
    "sort": lambda L, x, d: L.sort(x, d)[0],
    "split": lambda L, x, d: L.split(x, 1, d)[0],
    "squeeze": lambda L, x, d: L.squeeze(x, d),
    "stack": lambda L, x, d: L.stack([x, x], d),
    "std": lambda L, x, d: L.std(x, d, correction=0),
    "sum": lambda L, x, d: L.sum(x, d),
    "take_along_dim": lambda L, x, d: L.take_along_dim(x, L.tensor(0), d),
    "topk": lambda L, x, d: L.topk(x, 1, d)[0],
    "transpose": lambda L, x, d: L.transpose(x, 0, d),
    "unbind": lambda L, x, d: L.unbind(x, d)[0],
    "unsqueeze": lambda L, x, d: L.unsqueeze(x, d),
    "var": lambda L, x, d: L.var(x, d, correction=0),
}
NO_DIM_OF_A_0D = {"cross", "diagonal", "matrix_norm", "permute"}  # need two or more dims, or none


def test_every_op_taking_a_dim_is_tried_on_a_0d_tensor():
    taking = {
        name
        for name, entry in OPS.items()
        if not entry.internal and any("dim" in p.name for p in entry.schema.params)
    }
    assert taking - NO_DIM_OF_A_0D == set(ALONG_A_DIM)


def _along_0d(L, name, d):
    """Value, first and second derivative of op ``name`` along dim ``d`` of the 0-d 0.3, or
    the type of the error raised."""
    x = L.tensor(0.3, dtype=L.float64, requires_grad=True)
    try:
        out = ALONG_A_DIM[name](L, x, d)
    except Exception as err:  # noqa: BLE001 (compared with PyTorch's)
        kinds = (IndexError, RuntimeError, TypeError, ValueError)  # PyTorch's, gradcli's bases
        return next((k.__name__ for k in kinds if isinstance(err, k)), type(err).__name__)
    found = [tuple(out.shape), *out.detach().double().numpy().ravel().tolist()]
    if out.requires_grad:
        (g,) = L.autograd.grad(out.sum(), x, create_graph=True)
        found.append(g.item())
        gg = L.autograd.grad(g, x, allow_unused=True)[0] if g.requires_grad else None
        found.append(0.0 if gg is None else gg.item())  # None: independent of x
    return found


@pytest.mark.parametrize("d", [0, -1, 1, -2])
@pytest.mark.parametrize("name", sorted(ALONG_A_DIM))
def test_an_op_along_dim_0_or_minus_1_of_a_0d_tensor_is_pytorchs(name, d):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's std and var warn of no degrees of freedom
        theirs = _along_0d(torch, name, d)
    mine = _along_0d(gradcli, name, d)
    if isinstance(theirs, str):
        assert mine == theirs
    else:
        assert mine[0] == theirs[0] and len(mine) == len(theirs)
        same(mine[1:], theirs[1:], atol=1e-14)  # a second derivative of 0, rounded


@pytest.mark.parametrize(
    "program",
    ["amax(x, dim=0)", "amin(x, -1)", "max(x, dim=0)", "min(x, dim=-1)", "norm(x, 2, 0)",
     "cumsum(x, 0)", "cumprod(x, -1)", "flip(x, 0)"],
)  # fmt: skip
def test_a_dim_of_a_0d_input_on_the_command_line(gradcli_json, program):
    out = gradcli_json("grad", program, "--x", "0.3")
    assert abs(float(out["value"]) - 0.3) < 1e-15 and float(out["grad"]["x"]) == 1.0


def test_dim_1_of_a_0d_input_is_pytorchs_index_error(gradcli):
    result = gradcli("eval", "cumsum(x, 1)", "--x", "0.3")
    assert result.exit_code == 2
    assert "error: cumsum" in result.output
    assert "Dimension out of range (expected to be in range of [-1, 0], but got 1)" in result.output


# ----- numbers of the language are float64: pow of two numbers -----


@pytest.mark.parametrize("program", ["pow(2, -1)", "pow(2.0, -1)", "(2.0).pow(-1)", "2 ** -1"])
def test_a_number_to_a_negative_integer_power(gradcli_json, program):
    expected = torch.tensor(2.0, dtype=torch.float64).pow(-1).item()
    assert gradcli_json("eval", program)["value"] == expected == 0.5


@pytest.mark.parametrize("bad", [nan, 1.5, -0.5])
def test_binary_cross_entropy_refuses_an_input_outside_0_1_or_nan_as_pytorch(gradcli, bad):
    x = torch.tensor([bad, 0.5], dtype=torch.float64)
    with pytest.raises(RuntimeError, match="between 0 and 1") as theirs:
        torch.nn.functional.binary_cross_entropy(x, torch.tensor([1.0, 0.0], dtype=torch.float64))
    with pytest.raises(RuntimeError, match="between 0 and 1") as mine:
        lib.binary_cross_entropy(lib.tensor([bad, 0.5]), lib.tensor([1.0, 0.0]))
    assert str(mine.value) == str(theirs.value)
    result = gradcli("eval", "binary_cross_entropy(x, [1, 0])", "--x", f"{bad},0.5")
    assert (
        result.exit_code == 2 and "error: all elements of input should be between" in result.output
    )


# ----- a % b: its rule uses the value's a // b, an infinite b included -----


def _grads(L, f, *values):
    xs = [L.tensor(v, dtype=L.float64, requires_grad=True) for v in values]
    out = f(*xs)
    return [out.item(), *[g.item() for g in L.autograd.grad(out, xs)]]


@pytest.mark.parametrize("b", [inf, -inf, 3.0, -3.0, 0.5])
@pytest.mark.parametrize("a", [-0.87, 0.87, -5.0, 5.0, 0.0])
def test_remainder_value_and_gradients_are_pytorchs(a, b):
    same(_grads(gradcli, gradcli.remainder, a, b), _grads(torch, torch.remainder, a, b))


def test_the_gradient_of_a_mod_inf_on_the_command_line(gradcli_json):
    out = gradcli_json("grad", "a % b", "--a", "-0.87", "--b", "inf")
    assert out["grad"] == {"a": 1, "b": 1}  # a mod b = a + b there


# ----- a / b at an infinite b: PyTorch's (a / b) / b, never 0 * inf -----

DIVISIONS = {
    "y / (x - inf)": lambda L, x, y: y / (x - inf),
    "y / (x + inf)": lambda L, x, y: y / (x + inf),
    "x / y at a finite point": lambda L, x, y: x / y,
    "1 / (x * y)": lambda L, x, y: 1 / (x * y),
}


@pytest.mark.parametrize("case", sorted(DIVISIONS))
def test_the_hessian_of_a_division_is_pytorchs(case):
    f = DIVISIONS[case]
    mine, theirs = both(lambda L, x, y: f(L, x, y), 0.5, 2.0)
    same(flat(mine), flat(theirs))


def test_the_hessian_at_an_infinite_divisor_on_the_command_line(gradcli_json):
    out = gradcli_json("hessian", "sum(y / (x - inf))", "--x", "0.5", "--y", "2")
    assert np.asarray(out["assembled"]["matrix"], float).tolist() == [[0, 0], [0, 0]]


# ----- norm: a zero entry's second derivatives are nan in its own column alone -----


@pytest.mark.parametrize("dim", [None, 0])
@pytest.mark.parametrize("point", [[0.0, 1.0, 2.0], [0.0, -1.5, 2.0], [0.0, 0.0, 3.0], [0.0] * 3])
@pytest.mark.parametrize("p", [0.3, 0.5, 0.99, 1.0, 1.5, 2.0, 2.5, 3.0, -0.5])
def test_norm_gradient_and_hessian_at_zero_entries_are_pytorchs(p, point, dim):
    mine, theirs = both(
        lambda L, x: L.norm(x, p, dim) if L is gradcli else L.linalg.vector_norm(x, p, dim), point
    )
    np.testing.assert_allclose(flat(mine), flat(theirs), rtol=1e-10, atol=1e-14)
    if 0 < p < 1 and any(point):  # only the zero entries' columns are nan
        assert np.isnan(flat(mine)).sum() == np.count_nonzero(np.asarray(point) == 0) * len(point)


@pytest.mark.parametrize("p", [1.5, 2.0, 3.0, 4.0, float("inf")])
def test_norm_tangent_at_the_origin_is_pytorchs_forward_modes(p):
    # torch.func.jvp gives 0; torch.autograd.functional.jvp, a double backward, gives nan
    # for finite p > 1 other than 2: the difference norm's entry declares.
    tangent = np.array([0.5, -1.0, 2.0])
    zero = np.zeros(3)
    _, theirs = torch.func.jvp(
        lambda x: torch.linalg.vector_norm(x, p), (torch.tensor(zero),), (torch.tensor(tangent),)
    )
    _, mine = gf.jvp(lambda x: gradcli.norm(x, p), gradcli.tensor(zero), gradcli.tensor(tangent))
    assert theirs.item() == 0.0 and mine.item() == 0.0


# ----- forward mode at a kink follows the reverse mode's convention: tangent = J t -----

L, T = gradcli, lambda v: gradcli.tensor(v, dtype=gradcli.float64)
# For each op with a kink (its name before any "_"): a function and inputs on the kink.
# Elementwise ops at one number, so the reverse Jacobian holds no 0 * inf of other entries.
KINK_POINTS = {
    "abs": (lambda x: L.abs(x), [T(0.0)]),
    "sign": (lambda x: L.sign(x), [T(0.0)]),
    "sqrt": (lambda x: L.sqrt(x), [T(0.0)]),
    "relu": (lambda x: L.relu(x), [T(0.0)]),
    "floor": (lambda x: L.floor(x), [T(1.0)]),
    "trunc": (lambda x: L.trunc(x), [T(1.0)]),
    "ceil": (lambda x: L.ceil(x), [T(1.0)]),
    "round": (lambda x: L.round(x), [T(0.5)]),
    "clamp": (lambda x: L.clamp(x, -1.0, 1.0), [T(1.0)]),
    "clamp_min": (lambda x: L.clamp(x, -1.0, 1.0), [T(-1.0)]),
    "clamp_tensor": (lambda x, lo: L.clamp(x, lo, None), [T(1.0), T(1.0)]),
    "pow": (lambda x: L.pow(x, 0.5), [T(0.0)]),
    "pow_tensor": (lambda x, p: L.pow(x, p), [T(0.0), T(0.5)]),
    "pow_zero": (lambda x: L.pow(x, 0), [T(0.0)]),
    "maximum": (lambda x, y: L.maximum(x, y), [T(1.0), T(1.0)]),
    "minimum": (lambda x, y: L.minimum(x, y), [T(1.0), T(1.0)]),
    "amax": (lambda x: L.amax(x), [T([2.0, 2.0, 1.0])]),
    "amin": (lambda x: L.amin(x, 0), [T([1.0, 1.0, 2.0])]),
    "max": (lambda x: L.max(x), [T([2.0, 2.0, 1.0])]),
    "max_dim": (lambda x: L.max(x, 0)[0], [T([2.0, 2.0, 1.0])]),
    "min": (lambda x: L.min(x), [T([1.0, 1.0, 2.0])]),
    "norm": (lambda x: L.norm(x), [T([0.0, 0.0])]),
    "norm_half": (lambda x: L.norm(x, 0.5), [T([0.0, 1.0])]),
    "norm_1": (lambda x: L.norm(x, 1), [T([0.0, 1.0])]),
    "norm_inf": (lambda x: L.norm(x, float("inf")), [T([2.0, -2.0])]),
    "norm_3_origin": (lambda x: L.norm(x, 3), [T([0.0, 0.0])]),
    "cbrt": (lambda x: L.cbrt(x), [T(0.0)]),
    "hypot": (lambda x, y: L.hypot(x, y), [T(0.0), T(0.0)]),
    "atan2": (lambda y, x: L.atan2(y, x), [T(0.0), T(0.0)]),
    "gamma": (lambda x: L.gamma(x), [T(0.0)]),
    "lgamma": (lambda x: L.lgamma(x), [T(-1.0)]),
    "digamma": (lambda x: L.digamma(x), [T(-1.0)]),
    "polygamma": (lambda x: L.polygamma(1, x), [T(-1.0)]),
    "factorial": (lambda x: L.factorial(x), [T(-1.0)]),
    "leaky_relu": (lambda x: L.leaky_relu(x, 0.1), [T(0.0)]),
    "elu": (lambda x: L.elu(x), [T(0.0)]),
    "softsign": (lambda x: L.softsign(x), [T(0.0)]),
    "sinc": (lambda x: L.sinc(x), [T(0.0)]),
    "xlogy": (lambda x, y: L.xlogy(x, y), [T(0.0), T(0.0)]),
    "std": (lambda x: L.std(x), [T([1.0, 1.0])]),
    "var_no_dof": (lambda x: L.var(x, correction=2), [T([1.0, 2.0])]),
    "prod": (lambda x: L.prod(x), [T([0.0, 2.0, 3.0])]),
    "cumprod": (lambda x: L.cumprod(x, 0), [T([0.0, 2.0, 3.0])]),
    "l1_loss": (lambda x, y: OPS["l1_loss"].call(x, y), [T(1.0), T(1.0)]),
    "binary_cross_entropy": (lambda x, y: L.binary_cross_entropy(x, y), [T(0.0), T(0.5)]),
    "softplus": (lambda x: L.softplus(x, 1.0, 20.0), [T(20.0)]),
    "reciprocal": (lambda x: L.reciprocal(x), [T(1e-160)]),
    "det": (lambda x: L.det(x), [T([[1.0, 2.0], [2.0, 4.0]])]),
    "eigvalsh": (lambda x: L.linalg.eigvalsh(x), [T([[1.0, 0.0], [0.0, 1.0]])]),
    "logdet": (lambda x: L.logdet(x), [T([[-1.0, 0.0], [0.0, 2.0]])]),
    "sort": (lambda x: L.sort(x)[0], [T([1.0, 1.0, 0.0])]),
    "remainder": (lambda x, y: L.remainder(x, y), [T(2.0), T(1.0)]),
    "erfinv": (lambda x: L.erfinv(x), [T(0.5)]),
}


def test_every_entry_with_a_kink_check_has_a_kink_point():
    with_check = {name for name, entry in OPS.items() if entry.kink_at is not None}
    covered = {name for name in with_check for case in KINK_POINTS if case.startswith(name)}
    assert with_check - covered == set()


@pytest.mark.parametrize("case", sorted(KINK_POINTS))
def test_the_tangent_at_a_kink_is_the_reverse_jacobian_times_the_tangent(case):
    f, xs = KINK_POINTS[case]
    rng = np.random.default_rng(0)
    ts = [T(rng.uniform(-1, 1, tuple(x.shape))) for x in xs]
    jac = gf.jacobian(f, tuple(xs))
    jac = jac if isinstance(jac, tuple) else (jac,)
    expected = sum(
        np.tensordot(np.asarray(j.numpy()), np.asarray(t.numpy()), axes=t.ndim)
        for j, t in zip(jac, ts)
    )
    _, tangent = gf.jvp(f, tuple(xs), tuple(ts))
    np.testing.assert_allclose(np.asarray(tangent.numpy()), expected, rtol=1e-12, atol=1e-15)


def test_the_jvp_of_atan2_at_the_origin_on_the_command_line(gradcli_json):
    out = gradcli_json("jvp", "atan2(y, x)", "--x", "0", "--y", "0", "--tangent", "x=1",
                       "--tangent", "y=1")  # fmt: skip
    assert out["jvp"] == 0  # the documented gradient there is 0


# ----- sinc's derivatives near 0: the series, not the cancelling closed form -----

NEAR_ZERO = sorted(
    {s * v for v in [*np.logspace(-12, 0.5, 40), 8.1e-8, 0.2499999, 0.25, 0.2500001, 1.0]
     for s in (1, -1)}
)  # fmt: skip


@pytest.mark.parametrize("x", NEAR_ZERO)
def test_sinc_first_and_second_derivative_match_mpmath(x):
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        f = lambda t: mpmath.sin(mpmath.pi * t) / (mpmath.pi * t)  # noqa: E731
        expected = [float(mpmath.diff(f, mpmath.mpf(x), n)) for n in (1, 2)]
    t = gradcli.tensor(x, dtype=gradcli.float64, requires_grad=True)
    (first,) = gradcli.autograd.grad(gradcli.sinc(t), t, create_graph=True)
    (second,) = gradcli.autograd.grad(first, t)
    same([first.item(), second.item()], expected, rtol=1e-14)


# ----- arange: start + i * step in double, rounded to the dtype, as PyTorch -----

_RANGES = [(-8.0, 8.0, 0.1), (0.0, 1.0, 0.1), (0.0, 10.0, 0.3), (-1.0, 1.0, 0.01),
           (1.0, -1.0, -0.07), (0.5, 100.5, 0.7), (-3.3, 7.7, 0.11), (2.5, 3.5, 1 / 3),
           (1e6, 1e6 + 1, 0.001), (0.1, 0.9, 0.05), (-50.0, 1950.0, 2.9)]  # fmt: skip


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bounds", _RANGES, ids=str)
def test_arange_is_pytorchs_element_for_element(bounds, dtype):
    start, end, step = bounds
    theirs = torch.arange(start, end, step, dtype=getattr(torch, dtype)).numpy()
    mine = gradcli.arange(start, end, step, dtype=getattr(gradcli, dtype)).numpy()
    assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
    # PyTorch's vector lanes may round once more than its scalar loop: one unit in the
    # last place of the terms |start| + i |step|, never more.
    scale = (abs(start) + np.arange(len(theirs)) * abs(step)).astype(dtype)
    assert np.all(np.abs(mine.astype(float) - theirs) <= np.spacing(scale))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arange_does_not_accumulate_its_step(dtype):
    value = gradcli.arange(-8.0, 8.0, 0.1, dtype=getattr(gradcli, dtype))[80].item()
    assert value == torch.arange(-8.0, 8.0, 0.1, dtype=getattr(torch, dtype))[80].item()
    assert value == pytest.approx(-8.0 + 80 * 0.1, abs=1e-15)  # 4.44e-16, not -7.6e-06


def test_arange_in_the_language_is_pytorchs(gradcli_json):
    mine = np.asarray(gradcli_json("eval", "arange(-8, 8, 0.1)")["value"], float)
    theirs = torch.arange(-8, 8, 0.1, dtype=torch.float64).numpy()
    assert mine.shape == theirs.shape
    assert np.all(np.abs(mine - theirs) <= np.spacing(8.0 + np.arange(160) * 0.1))
    assert gradcli_json("eval", "arange(-8, 8, 0.1)[80]")["value"] == theirs[80]


# ----- solve(A, B, left=False): X A = B, with its gradient, batches included -----

SOLVE_SHAPES = [((2, 2), (1, 2)), ((3, 3), (2, 3)), ((3, 2, 2), (3, 4, 2)), ((2, 2), (3, 4, 2)),
                ((3, 2, 2), (4, 2)), ((2, 1, 2, 2), (3, 1, 2))]  # fmt: skip


@pytest.mark.parametrize(("a", "b"), SOLVE_SHAPES, ids=str)
def test_solve_on_the_right_is_pytorchs_to_second_order(a, b):
    rng = np.random.default_rng(5)
    A = 2 * np.eye(a[-1]) + rng.uniform(-0.5, 0.5, a)
    B = rng.uniform(-1, 1, b)

    def f(L, A, B):
        solve = L.solve if L is gradcli else L.linalg.solve
        return (solve(A, B, left=False) ** 2).sum()

    for kind in ("jacobian", "hessian"):
        mine, theirs = both(f, A, B, kind=kind)
        same(flat(mine), flat(theirs), rtol=1e-10)
    assert gradcli.solve(gradcli.tensor(A), gradcli.tensor(B), left=False).shape == tuple(
        torch.linalg.solve(torch.tensor(A), torch.tensor(B), left=False).shape
    )


def test_solve_on_the_right_of_a_vector_is_pytorchs_error():
    with pytest.raises(RuntimeError, match="XA = B") as theirs:
        torch.linalg.solve(torch.eye(2), torch.ones(2), left=False)
    with pytest.raises(RuntimeError, match="XA = B") as mine:
        gradcli.solve(gradcli.eye(2), gradcli.ones(2), left=False)
    assert str(mine.value) == str(theirs.value)


def test_solve_on_the_right_on_the_command_line(gradcli_json):
    out = gradcli_json("grad", "sum(solve(A, B, left=False))", "--A", "[[2,0],[0,1]]",
                       "--B", "[[1,2]]")  # fmt: skip
    A = torch.tensor([[2.0, 0], [0, 1]], dtype=torch.float64, requires_grad=True)
    B = torch.tensor([[1.0, 2]], dtype=torch.float64, requires_grad=True)
    total = torch.linalg.solve(A, B, left=False).sum()
    grads = torch.autograd.grad(total, (A, B))
    assert out["value"] == total.item() == 2.5
    assert out["grad"] == {"A": grads[0].tolist(), "B": grads[1].tolist()}


# ----- kink texts that say what PyTorch 2.13 does, checked against it -----


def test_the_kink_texts_state_pytorchs_behaviour():
    A = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(torch.logdet(A), A)
    assert not torch.isfinite(grad).any()  # inf or nan, not an error
    assert "error (PyTorch 2.13 gives inf or nan)" in OPS["logdet"].kink

    for name in ("var", "std"):
        x = torch.tensor([1.0, 2.0, 4.0], dtype=torch.float64, requires_grad=True)
        (grad,) = torch.autograd.grad(getattr(torch, name)(x, dim=[]), x)
        assert torch.isinf(grad).all() and "dim=[]" in OPS[name].kink

    x = torch.tensor([0.0], dtype=torch.float64, requires_grad=True)
    p = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    (dp,) = torch.autograd.grad(torch.pow(x, p).sum(), p, create_graph=True)
    second = torch.autograd.grad(dp.sum(), (x, p))
    assert dp.item() == 0 and all(torch.isnan(s).all() for s in second)
    assert "d/dp is 0, as PyTorch's" in OPS["pow"].kink
    assert "PyTorch's second derivatives there are nan" in OPS["pow"].kink


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_stable_is_keyword_only_as_in_pytorch(name):
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.tensor([2.0, 1.0]), 0, False, False)
    with pytest.raises(TypeError):
        getattr(gradcli, name)(gradcli.tensor([2.0, 1.0]), 0, False, False)
    by_keyword = getattr(gradcli, name)(gradcli.tensor([2.0, 1.0]), 0, False, stable=True)
    assert np.asarray(by_keyword[0] if name == "sort" else by_keyword).tolist() == (
        [1.0, 2.0] if name == "sort" else [1, 0]
    )
