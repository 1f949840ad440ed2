"""``gradcli diff`` of each entry's symbolic form (``Op.symbolic``) checked against the engine's
gradient at random points (that every language function has a form or a reason for having
none is ``test_structure.py``'s).

An elementwise or binary entry is called on inputs drawn from its own domain (``Op.domain``);
the others need arguments of their own (a dim, a shape, a matrix), so ``CALLS`` writes one
program for each, and a test fails when an entry with a form has neither.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from gradcli.engine import ops
from gradcli.engine.opinfo import DOMAINS

sympy = pytest.importorskip("sympy", reason="gradcli diff needs SymPy")

from gradcli.analysis import derivative  # noqa: E402

WITH_FORM = {n: e for n, e in ops.FUNCTIONS.items() if callable(e.symbolic)}
ENTRYWISE = {n: e for n, e in WITH_FORM.items() if e.kind in ("elementwise", "binary") and e.domain}

# The programs of the other entries: (source, each input's domain and shape).
V, M = (2,), (2, 2)
CALLS = {
    "polygamma": ("polygamma(1, x)", {"x": ("positive", V)}),
    "factorial": ("factorial(x)", {"x": ("positive", V)}),
    "ln": ("ln(x)", {"x": ("positive", V)}),
    "softsign": ("softsign(x)", {"x": ("nonzero", V)}),
    "numel": ("numel(x) * sum(x)", {"x": ("real", V)}),
    "len": ("len(x) * x", {"x": ("real", V)}),
    "cumsum": ("cumsum(A, 1)", {"A": ("real", M)}),
    "one_hot": ("sum(one_hot([2, 0], 3) @ x**2)", {"x": ("real", (3,))}),
    "where": ("where(x > y, x**2 * y, sin(x))", {"x": ("real", V), "y": ("real", V)}),
    "cumprod": ("cumprod(x, 0)", {"x": ("positive", (3,))}),
    "zeros": ("zeros(2) + x", {"x": ("real", V)}),
    "ones": ("ones(2, 2) * x", {"x": ("real", V)}),
    "full": ("full([2], 3) * x", {"x": ("real", V)}),
    "eye": ("eye(2) @ x", {"x": ("real", V)}),
    "arange": ("arange(1, 3) * x", {"x": ("real", V)}),
    "linspace": ("linspace(0, 1, 2) * x + x", {"x": ("real", V)}),
    "zeros_like": ("zeros_like(x) + x**2", {"x": ("real", V)}),
    "ones_like": ("ones_like(x) * x**2", {"x": ("real", V)}),
    "reshape": ("reshape(A, 4) * A[0, 1]", {"A": ("real", M)}),
    "view": ("view(A, 4, 1) * A[1, 0]", {"A": ("real", M)}),
    "flatten": ("flatten(A) ** 2", {"A": ("real", M)}),
    "squeeze": ("squeeze(unsqueeze(x, 0)) * x", {"x": ("real", V)}),
    "unsqueeze": ("unsqueeze(x, 1) * x", {"x": ("real", V)}),
    "transpose": ("transpose(A, 0, 1) @ A", {"A": ("real", M)}),
    "permute": ("permute(A, 1, 0) * A", {"A": ("real", M)}),
    "movedim": ("movedim(A, 0, 1) * A", {"A": ("real", M)}),
    "einsum": ('einsum("ij,jk->ik", A, A) + einsum("ii", A)', {"A": ("real", M)}),
    "t": ("t(A) @ A", {"A": ("real", M)}),
    "expand": ("expand(x, 3, 2) * x[0]", {"x": ("real", V)}),
    "flip": ("flip(x, 0) * x", {"x": ("real", V)}),
    "stack": ("stack([x, x**2], 1)", {"x": ("real", V)}),
    "cat": ("cat([x, x**2], 0)", {"x": ("real", V)}),
    "sum": ("sum(A, 0) * sum(A)", {"A": ("real", M)}),
    "mean": ("mean(A, 1, True) * A", {"A": ("real", M)}),
    "prod": ("prod(A, 1) + prod(A)", {"A": ("real", M)}),
    "amax": ("amax(A, 1)", {"A": ("distinct", M)}),
    "amin": ("amin(A, 0)", {"A": ("distinct", M)}),
    "max": ("max(x) + max(x, x**3)", {"x": ("distinct", (3,))}),
    "min": ("min(x) + min(x, x**3)", {"x": ("distinct", (3,))}),
    "logsumexp": ("logsumexp(A, 1)", {"A": ("real", M)}),
    "norm": ("norm(x) + norm(x, 3)", {"x": ("nonzero", (3,))}),
    "var": ("var(A, 1) + var(A)", {"A": ("real", M)}),
    "std": ("std(x)", {"x": ("distinct", (3,))}),
    "softmax": ("softmax(A, 1)", {"A": ("real", M)}),
    "log_softmax": ("log_softmax(A, 0)", {"A": ("real", M)}),
    "matmul": ("matmul(A, x)", {"A": ("real", M), "x": ("real", V)}),
    "mm": ("mm(A, A)", {"A": ("real", M)}),
    "dot": ("dot(x, x**2)", {"x": ("real", V)}),
    "outer": ("outer(x, x**2)", {"x": ("real", V)}),
    "trace": ("trace(A @ A)", {"A": ("real", M)}),
    "det": ("det(A)", {"A": ("well_conditioned", M)}),
    "inverse": ("inverse(A)", {"A": ("well_conditioned", M)}),
    "diag": ("diag(x) @ x", {"x": ("real", V)}),
    "cross": ("cross(u, u**2)", {"u": ("real", (3,))}),
    "solve": ("solve(A, x)", {"A": ("well_conditioned", M), "x": ("real", V)}),
    "logdet": ("logdet(A)", {"A": ("well_conditioned", M)}),
    "mse_loss": ("mse_loss(x, y)", {"x": ("real", V), "y": ("real", V)}),
    "binary_cross_entropy": (
        "binary_cross_entropy(p, y)", {"p": ("unit_open", V), "y": ("unit_open", V)}
    ),
    "binary_cross_entropy_with_logits": (
        "binary_cross_entropy_with_logits(x, y)", {"x": ("real", V), "y": ("unit_open", V)}
    ),
}  # fmt: skip
DRAWS = {**DOMAINS, "unit_open": lambda rng, shape: rng.uniform(0.2, 0.8, shape)}


def _entrywise_call(entry):
    names = "xyz"[: len([d for d in entry.domain if isinstance(d, str)])]
    keywords = next((d for d in entry.domain if isinstance(d, dict)), {})
    args = [*names, *(repr(v) for v in keywords.values())]  # clamp's min and max, in order
    inputs = {n: (d, V) for n, d in zip(names, entry.domain)}
    return f"{entry.name}({', '.join(args)})", inputs


PROGRAMS = {**{n: _entrywise_call(e) for n, e in ENTRYWISE.items()}, **CALLS}


def test_every_form_has_a_program_here():
    assert sorted(set(WITH_FORM) - set(PROGRAMS)) == []
    assert sorted(set(CALLS) - set(WITH_FORM)) == []  # no program for a form that is gone


@pytest.mark.parametrize("name", sorted(WITH_FORM))
def test_diff_agrees_with_the_engine_at_random_points(name):
    source, inputs = PROGRAMS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for _ in range(2):
        bindings = {n: DRAWS[d](rng, shape).tolist() for n, (d, shape) in inputs.items()}
        report = derivative(source, bindings)
        for d in report.derivatives:
            assert d.value is not None and d.engine is not None
            assert np.all(np.isfinite(d.value)), (source, bindings, d.formula)
            assert d.agrees, (source, bindings, d.name, d.value, d.engine)
