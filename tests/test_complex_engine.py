"""Complex numbers in the engine, against PyTorch 2.13 in complex128: values, gradients
(PyTorch's conjugate-Wirtinger convention), second derivatives and forward mode of every
entry that takes complex input, dtype promotion, and the entries that refuse it by name."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.engine.ops import OPS

torch = pytest.importorskip("torch", reason="PyTorch is the oracle of complex derivatives")

RTOL = 1e-9
RNG = np.random.default_rng(33)


def _points(shape, rng=RNG, lo=-1.5, hi=1.5):
    return rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)


def _both(values, real=False):
    """The same leaves in gradcli and in PyTorch, requiring grad."""
    dtype = np.float64 if real else np.complex128
    ours = gradcli.tensor(np.asarray(values, dtype=dtype), requires_grad=True)
    theirs = torch.tensor(np.asarray(values, dtype=dtype), requires_grad=True)
    return ours, theirs


def _numpy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().resolve_neg().numpy()
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _close(ours, theirs, rtol=RTOL):
    a, b = _numpy(ours), _numpy(theirs)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)


def _real_loss(m, out, weights):
    # A real function of a complex output: every entry's real and imaginary part weighted.
    if out.is_complex():
        return (out * m.tensor(weights)).real.sum()
    return (out * m.tensor(weights.real)).sum()


# name: (gradcli's call, PyTorch's call, domain): the holomorphic and the non-holomorphic
# functions of one complex tensor. Points stay off branch cuts (they are conventions).
UNARY = {
    "exp": (gradcli.exp, torch.exp),
    "log": (gradcli.log, torch.log),
    "log2": (gradcli.log2, torch.log2),
    "log10": (gradcli.log10, torch.log10),
    "log1p": (gradcli.log1p, torch.log1p),
    "expm1": (gradcli.expm1, torch.expm1),
    "sqrt": (gradcli.sqrt, torch.sqrt),
    "rsqrt": (gradcli.rsqrt, torch.rsqrt),
    "sin": (gradcli.sin, torch.sin),
    "cos": (gradcli.cos, torch.cos),
    "tan": (gradcli.tan, torch.tan),
    "asin": (gradcli.asin, torch.asin),
    "acos": (gradcli.acos, torch.acos),
    "atan": (gradcli.atan, torch.atan),
    "sinh": (gradcli.sinh, torch.sinh),
    "cosh": (gradcli.cosh, torch.cosh),
    "tanh": (gradcli.tanh, torch.tanh),
    "asinh": (gradcli.asinh, torch.asinh),
    "acosh": (gradcli.acosh, torch.acosh),
    "atanh": (gradcli.atanh, torch.atanh),
    "reciprocal": (gradcli.reciprocal, torch.reciprocal),
    "neg": (gradcli.neg, torch.neg),
    "square": (gradcli.square, torch.square),
    "abs": (gradcli.abs, torch.abs),
    "angle": (gradcli.angle, torch.angle),
    "sgn": (gradcli.sgn, torch.sgn),
    "conj": (gradcli.conj, lambda z: torch.conj(z).resolve_conj()),
    "real": (gradcli.real, torch.real),
    "imag": (gradcli.imag, torch.imag),
    "view_as_real": (gradcli.view_as_real, torch.view_as_real),
    "abs squared": (lambda z: gradcli.abs(z) ** 2, lambda z: torch.abs(z) ** 2),
    "z times conj z": (lambda z: (z * z.conj()).real, lambda z: (z * z.conj()).real),
    "pow 3": (lambda z: z**3, lambda z: z**3),
    "pow 2.5": (lambda z: z**2.5, lambda z: z**2.5),
    "pow complex": (lambda z: z ** (0.5 + 1j), lambda z: z ** (0.5 + 1j)),
    "number ** z": (lambda z: 2.0**z, lambda z: 2.0**z),
    "sum": (gradcli.sum, torch.sum),
    "mean": (gradcli.mean, torch.mean),
    "prod": (gradcli.prod, torch.prod),
    "sum dim": (lambda z: z.sum(-1), lambda z: z.sum(-1)),
    "prod dim": (lambda z: z.prod(0), lambda z: z.prod(0)),
    "mean keepdim": (lambda z: z.mean(0, keepdim=True), lambda z: z.mean(0, keepdim=True)),
    "index": (lambda z: z[1] * z[0, 2], lambda z: z[1] * z[0, 2]),
    "transpose": (lambda z: z.T @ z, lambda z: z.T @ z),
    "stack": (lambda z: gradcli.stack([z[0], 2 * z[1]]), lambda z: torch.stack([z[0], 2 * z[1]])),
}


def _grads(m, f, z, weights, second):
    """The value, and the gradient of a real loss of it (of the gradient, for ``second``)."""
    out = f(z)
    loss = _real_loss(m, out, weights)
    (g,) = m.autograd.grad(loss, z, create_graph=second)
    if not second:
        return out, g
    again = _points(tuple(g.shape), np.random.default_rng(3))
    (g2,) = m.autograd.grad((g * m.tensor(again)).real.sum(), z)
    return out, g2


@pytest.mark.parametrize("name", UNARY)
def test_the_value_gradient_and_second_derivative_agree_with_pytorch(name):
    ours_f, theirs_f = UNARY[name]
    rng = np.random.default_rng(len(name))
    values = _points((2, 3), rng, 0.2, 1.2) * rng.choice([-1, 1], (2, 3))
    z, zt = _both(values)
    out_t = theirs_f(zt)
    weights = _points(tuple(out_t.shape), rng)
    for second in (False, True):
        try:
            theirs = _grads(torch, theirs_f, zt, weights, second)
        except RuntimeError:  # a gradient that does not depend on z: no second derivative
            with pytest.raises(gradcli.GradcliError, match="does not require grad"):
                _grads(gradcli, ours_f, z, weights, second)
            continue
        ours = _grads(gradcli, ours_f, z, weights, second)
        _close(ours[0], theirs[0])
        _close(ours[1], theirs[1])


BINARY = {
    "add": (lambda x, y: x + y),
    "sub": (lambda x, y: x - y),
    "mul": (lambda x, y: x * y),
    "div": (lambda x, y: x / y),
    "pow": (lambda x, y: x**y),
    "matmul": (lambda x, y: x @ y.T),
    "broadcast mul": (lambda x, y: x * y[0]),
}


@pytest.mark.parametrize(
    "name, kinds",
    [(name, kinds) for name in BINARY for kinds in ("cc", "rc", "cr") if name != "matmul"]
    + [("matmul", "cc")],  # PyTorch's matmul takes operands of one dtype
)
def test_binary_ops_of_complex_and_real_inputs_agree_with_pytorch(name, kinds):
    # A real input of a complex op gets the real part of its gradient (PyTorch's
    # handle_r_to_c); the complex one the conjugate-Wirtinger gradient.
    f = BINARY[name]
    rng = np.random.default_rng(len(name) + 7 * len(kinds))

    def draw(kind):
        values = _points((2, 3), rng, 0.3, 1.3)
        return values.real + 0.5 if kind == "r" else values

    x, xt = _both(draw(kinds[0]), real=kinds[0] == "r")
    y, yt = _both(draw(kinds[1]), real=kinds[1] == "r")
    out_t = f(xt, yt)
    weights = _points(tuple(out_t.shape), rng)
    loss = _real_loss(gradcli, f(x, y), weights)
    loss_t = _real_loss(torch, out_t, weights)
    _close(f(x, y), out_t)
    for ours, theirs in zip(
        gradcli.autograd.grad(loss, (x, y)), torch.autograd.grad(loss_t, (xt, yt))
    ):
        _close(ours, theirs)


@pytest.mark.parametrize("name", ["complex", "polar"])
def test_complex_numbers_from_real_parts_agree_with_pytorch(name):
    rng = np.random.default_rng(5)
    a, at = _both(rng.uniform(0.2, 1.5, (4,)), real=True)
    b, bt = _both(rng.uniform(-3, 3, (4,)), real=True)
    ours = getattr(gradcli, name)(a, b)
    theirs = getattr(torch, name)(at, bt)
    _close(ours, theirs)
    weights = _points((4,), rng)
    loss = (ours * gradcli.tensor(weights)).real.sum() + gradcli.abs(ours).sum()
    loss_t = (theirs * torch.tensor(weights)).real.sum() + torch.abs(theirs).sum()
    for g, gt in zip(gradcli.autograd.grad(loss, (a, b)), torch.autograd.grad(loss_t, (at, bt))):
        _close(g, gt)


def test_forward_mode_has_no_conjugate():
    # jvp: the tangent of f(z) is f'(z) t, as torch.func.jvp gives it.
    rng = np.random.default_rng(11)
    values, tangent = _points((3,), rng, 0.3, 1.2), _points((3,), rng)

    def f(m):
        return lambda z: m.sin(z) * m.exp(z) / (z + 2) + m.abs(z) ** 2

    ours = gradcli.func.jvp(f(gradcli), (gradcli.tensor(values),), (gradcli.tensor(tangent),))
    theirs = torch.func.jvp(f(torch), (torch.tensor(values),), (torch.tensor(tangent),))
    _close(ours[0], theirs[0])
    _close(ours[1], theirs[1])


def test_the_gradient_of_abs_squared_is_2z():
    # The example: grad of |z|**2 at 1+2j is 2+4j in PyTorch's convention.
    z = gradcli.tensor(1 + 2j, dtype=gradcli.complex128, requires_grad=True)
    (gradcli.abs(z) ** 2).backward()
    assert z.grad.item() == pytest.approx(2 + 4j, rel=1e-12)


def test_dtypes_are_promoted_as_pytorch_does():
    cases = [
        lambda m: m.tensor([1.0], dtype=m.float64) + m.tensor([1j], dtype=m.complex64),
        lambda m: m.tensor([1.0], dtype=m.float32) + m.tensor([1j], dtype=m.complex128),
        lambda m: m.tensor([1.0], dtype=m.float32) * 1j,
        lambda m: m.tensor([1.0], dtype=m.float64) * 1j,
        lambda m: m.tensor([2]) * 1j,
        lambda m: m.tensor([1 + 2j]),
        lambda m: m.tensor([1 + 2j], dtype=m.complex64).abs(),
        lambda m: m.tensor([1 + 2j], dtype=m.complex128).abs(),
        lambda m: m.tensor([1 + 2j], dtype=m.complex128).real,
        lambda m: m.tensor([1 + 2j]).exp(),
        lambda m: m.tensor([1 + 2j], dtype=m.complex64).sum(),
        lambda m: m.complex(m.tensor([1.0]), m.tensor([2.0])),
        lambda m: m.view_as_real(m.tensor([1 + 2j], dtype=m.complex64)),
    ]
    for case in cases:
        ours, theirs = case(gradcli), case(torch)
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    previous = gradcli.get_default_dtype()
    gradcli.set_default_dtype(gradcli.float64)
    try:
        assert gradcli.tensor([1 + 2j]).dtype == gradcli.complex128
    finally:
        gradcli.set_default_dtype(previous)


def test_a_complex_tensor_reads_and_prints_as_pytorchs():
    z = gradcli.tensor([1 + 2j, -0.5j], dtype=gradcli.complex128)
    assert z.is_complex() and not z.dtype.is_floating_point and z.dtype.is_complex
    assert z.conj().tolist() == [1 - 2j, 0.5j]
    assert z.imag.tolist() == [2.0, -0.5]
    assert repr(z) == repr(torch.tensor([1 + 2j, -0.5j], dtype=torch.complex128)).replace(
        "torch.", "torch."
    )


def test_backward_of_a_complex_scalar_needs_a_gradient():
    z = gradcli.tensor(1 + 2j, requires_grad=True)
    with pytest.raises(gradcli.GradcliError, match="only for real scalar outputs"):
        (z * z).backward()


REFUSED = ["floor", "clamp", "maximum", "relu", "softplus", "erf", "atan2", "max", "lt", "argmax"]


@pytest.mark.parametrize("name", REFUSED)
def test_an_entry_without_complex_support_refuses_it_by_name(name):
    z = gradcli.tensor([1 + 2j, 3 - 1j], dtype=gradcli.complex128, requires_grad=True)
    args = {"clamp": (z, 0.0, 1.0), "maximum": (z, z), "atan2": (z, z), "lt": (z, z)}
    with pytest.raises(gradcli.NotImplementedByGradcli if False else gradcli.GradcliError) as err:
        OPS[name].call(*args.get(name, (z,)))
    assert str(err.value) == f"complex input is not supported by gradcli's {name} yet"


def test_every_entry_says_whether_it_takes_complex_numbers():
    taking = sorted(e.name for e in OPS.values() if e.complex)
    assert {"exp", "abs", "angle", "matmul", "sum", "prod", "polar", "view_as_real"} <= set(taking)
    assert not OPS["floor"].complex and not OPS["clamp"].complex


def test_functional_jacobian_and_hessian_of_complex_values_are_pytorchs():
    # Vectorized, PyTorch's rows are vjps of unit vectors, complex outputs included;
    # unvectorized, it creates each row's gradient implicitly, which a complex one refuses.
    rng = np.random.default_rng(17)
    values = _points((3,), rng, 0.3, 1.2)

    def f(m):
        return lambda z: m.exp(z) * z.conj() + z**2

    def loss(m):
        return lambda z: (m.abs(z) ** 2 * z.real + (m.sin(z) * z).imag).sum()

    for fn, call in ((f, "jacobian"), (loss, "hessian")):
        ours = getattr(gradcli.autograd.functional, call)(
            fn(gradcli), gradcli.tensor(values), vectorize=True
        )
        theirs = getattr(torch.autograd.functional, call)(
            fn(torch), torch.tensor(values), vectorize=True
        )
        _close(ours, theirs)
        with pytest.raises(gradcli.GradcliError, match="only for real scalar outputs"):
            getattr(gradcli.autograd.functional, call)(fn(gradcli), gradcli.tensor(values))
        with pytest.raises(RuntimeError, match="only for real scalar outputs"):
            getattr(torch.autograd.functional, call)(fn(torch), torch.tensor(values))
