"""``gradcli diff`` at each op's kink: the symbolic derivative evaluated there is the engine's
number, which is PyTorch's (relu'(0) = 0, clamp passes the gradient on its bounds, ties share
it evenly), not SymPy's own convention (Heaviside(0) = 1/2, DiracDelta(0), 0/0).

Every entry with a kink (``Op.kink``) and a symbolic form has a case here, or says why not:
a test fails for a new one that has neither.
"""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.engine import ops

sympy = pytest.importorskip("sympy", reason="gradcli diff needs SymPy")
torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle")

from gradcli.analysis import derivative  # noqa: E402

F = torch.nn.functional

# (op, program, bindings, the same function in PyTorch of the inputs by name).
CASES = [
    ("relu", "relu(x)", {"x": 0.0}, lambda t: torch.relu(t["x"])),
    ("abs", "abs(x)", {"x": 0.0}, lambda t: t["x"].abs()),
    ("sign", "sign(x)", {"x": 0.0}, lambda t: torch.sign(t["x"])),  # was DiracDelta(0)
    ("sgn", "sgn(x)", {"x": 0.0}, lambda t: torch.sgn(t["x"])),
    ("clamp", "clamp(x, 0, 1)", {"x": 0.0}, lambda t: torch.clamp(t["x"], 0, 1)),
    ("clamp", "clamp(x, 0, 1)", {"x": 1.0}, lambda t: torch.clamp(t["x"], 0, 1)),
    (
        "clamp",
        "clamp(x, a, b)",
        {"x": 0.0, "a": 0.0, "b": 1.0},
        lambda t: torch.clamp(t["x"], t["a"], t["b"]),
    ),
    (
        "clamp",
        "clamp(x, a, b)",
        {"x": 1.0, "a": 0.0, "b": 1.0},
        lambda t: torch.clamp(t["x"], t["a"], t["b"]),
    ),
    (
        "clamp",
        "clamp(x, a, b)",
        {"x": 0.5, "a": 1.0, "b": 0.0},
        lambda t: torch.clamp(t["x"], t["a"], t["b"]),
    ),
    ("maximum", "maximum(x, y)", {"x": 1.0, "y": 1.0}, lambda t: torch.maximum(t["x"], t["y"])),
    ("minimum", "minimum(x, y)", {"x": 1.0, "y": 1.0}, lambda t: torch.minimum(t["x"], t["y"])),
    ("max", "max(x)", {"x": [1.0, 1.0, 1.0]}, lambda t: torch.max(t["x"])),
    ("max", "max(x, y)", {"x": 2.0, "y": 2.0}, lambda t: torch.maximum(t["x"], t["y"])),
    ("max", "max(x) * x[0]", {"x": [1.0, 1.0, 1.0]}, lambda t: torch.max(t["x"]) * t["x"][0]),
    ("min", "min(x)", {"x": [2.0, 2.0, 2.0, 3.0]}, lambda t: torch.min(t["x"])),
    ("amax", "amax(A, 1)", {"A": [[1.0, 1.0, 1.0], [0.0, 2.0, 2.0]]}, lambda t: t["A"].amax(1)),
    ("amin", "amin(x)", {"x": [1.0, 1.0, 1.0]}, lambda t: torch.amin(t["x"])),
    ("leaky_relu", "leaky_relu(x)", {"x": 0.0}, lambda t: F.leaky_relu(t["x"])),
    ("elu", "elu(x)", {"x": 0.0}, lambda t: F.elu(t["x"])),
    ("softsign", "softsign(x)", {"x": 0.0}, lambda t: F.softsign(t["x"])),
    ("atan2", "atan2(y, x)", {"y": 0.0, "x": 0.0}, lambda t: torch.atan2(t["y"], t["x"])),
    ("hypot", "hypot(x, y)", {"x": 0.0, "y": 0.0}, lambda t: torch.hypot(t["x"], t["y"])),
    ("norm", "norm(x)", {"x": [0.0, 0.0]}, lambda t: torch.linalg.vector_norm(t["x"])),
    ("norm", "norm(x, 0.5)", {"x": [0.0, 1.0]}, lambda t: torch.linalg.vector_norm(t["x"], 0.5)),
    ("std", "std(x)", {"x": [1.0, 1.0]}, lambda t: torch.std(t["x"])),
    ("var", "var(x)", {"x": [1.0, 1.0]}, lambda t: torch.var(t["x"])),
    ("sinc", "sinc(x)", {"x": 0.0}, lambda t: torch.sinc(t["x"])),
    ("sqrt", "sqrt(x)", {"x": 0.0}, lambda t: torch.sqrt(t["x"])),  # inf: SymPy's zoo had no sign
    ("cbrt", "cbrt(x)", {"x": 0.0}, lambda t: t["x"] ** (1 / 3)),  # PyTorch has no cbrt
    ("reciprocal", "reciprocal(x)", {"x": 0.0}, lambda t: torch.reciprocal(t["x"])),
    ("pow", "x ** 0.5", {"x": 0.0}, lambda t: t["x"] ** 0.5),
    ("pow", "x ** 0", {"x": 0.0}, lambda t: t["x"] ** 0),
    ("floor", "floor(x)", {"x": 1.0}, lambda t: torch.floor(t["x"])),
    ("ceil", "ceil(x)", {"x": 1.0}, lambda t: torch.ceil(t["x"])),
    ("softplus", "softplus(x)", {"x": 20.0}, lambda t: F.softplus(t["x"])),
    ("xlogy", "xlogy(x, y)", {"x": 0.0, "y": 2.0}, lambda t: torch.xlogy(t["x"], t["y"])),
    ("xlogy", "xlogy(x, y)", {"x": 0.0, "y": -1.0}, lambda t: torch.xlogy(t["x"], t["y"])),
    ("prod", "prod(x)", {"x": [0.0, 0.0, 2.0]}, lambda t: torch.prod(t["x"])),
    ("cumprod", "cumprod(x, 0)", {"x": [2.0, 0.0, 3.0]}, lambda t: torch.cumprod(t["x"], 0)),
    ("logdet", "logdet(A)", {"A": [[1.0, 2.0], [3.0, 4.0]]}, lambda t: torch.logdet(t["A"])),
    ("erfinv", "erfinv(x)", {"x": 1.0}, lambda t: torch.erfinv(t["x"])),
    ("ndtri", "ndtri(x)", {"x": 1.0}, lambda t: torch.special.ndtri(t["x"])),
    ("digamma", "digamma(x)", {"x": 0.0}, lambda t: torch.digamma(t["x"])),  # a pole: inf
    ("lgamma", "lgamma(x)", {"x": 0.0}, lambda t: torch.lgamma(t["x"])),
    ("polygamma", "polygamma(1, x)", {"x": 0.0}, lambda t: torch.polygamma(1, t["x"])),
    ("gamma", "gamma(x)", {"x": 0.0}, lambda t: torch.lgamma(t["x"]).exp()),  # gamma(0+) = inf
]

# Kinked entries whose convention no closed form gives, with why.
NO_CASE = {
    "det": "the cofactor matrix on singular matrices, which SymPy's det gives too; PyTorch 2.13's "
    "differs there (see the entry's kink)",
    "binary_cross_entropy": "the engine's gradient at x = 0 or 1 is PyTorch's (x - y) / "
    "max(x(1 - x), 1e-12), of no closed form of the loss",
    "factorial": "PyTorch has no factorial; its pole is gamma's, whose case is here",
}


def _torch_gradients(function, bindings):
    tensors = {
        n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in bindings.items()
    }
    out = function(tensors)
    names = list(tensors)
    rows = []
    for i in range(out.numel()):  # a Jacobian row by row, as gradcli's (output, input) shape
        grads = torch.autograd.grad(
            out.reshape(-1)[i], [tensors[n] for n in names], allow_unused=True, retain_graph=True
        )
        rows.append(
            [torch.zeros_like(tensors[n]) if g is None else g for n, g in zip(names, grads)]
        )
    shape = tuple(out.shape)
    return {
        n: torch.stack([row[k] for row in rows]).reshape(shape + tuple(tensors[n].shape)).numpy()
        for k, n in enumerate(names)
    }


def test_every_kinked_entry_with_a_form_has_a_case():
    kinked = {n for n, e in ops.FUNCTIONS.items() if e.kink and callable(e.symbolic)}
    covered = {case[0] for case in CASES} | set(NO_CASE)
    assert sorted(kinked - covered) == []
    assert sorted(covered - kinked) == []


@pytest.mark.parametrize(
    "source, bindings, function", [c[1:] for c in CASES], ids=[f"{c[0]}:{c[1]}" for c in CASES]
)
def test_the_derivative_at_the_kink_is_pytorchs(source, bindings, function):
    report = derivative(source, {n: str(v) for n, v in bindings.items()})
    expected = _torch_gradients(function, bindings)
    for d in report.derivatives:
        np.testing.assert_allclose(
            d.value, expected[d.name], rtol=1e-12, atol=0, err_msg=f"{d.name}: {d.formula}"
        )
        assert d.agrees, (d.name, d.formula, d.value, d.engine)
