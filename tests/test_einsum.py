"""``einsum`` against PyTorch: the grad_fn PyTorch's decomposition ends in, the list and
sublist forms, implicit outputs, the errors PyTorch raises, and the language's call."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli
from gradcli.errors import GradcliError

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the reference")

RNG = np.random.default_rng(34)
CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,j->i", [(2, 3), (3,)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ba,ab", [(3, 2), (2, 3)]),
    ("...ij,...jk", [(2, 2, 3), (3, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i...->...", [(2, 3, 4)]),
]


@pytest.mark.parametrize("equation, shapes", CASES, ids=[c[0] for c in CASES])
def test_value_gradient_and_grad_fn_are_pytorchs(equation, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    ours = [gradcli.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, t = gradcli.einsum(equation, *ours), torch.einsum(equation, *theirs)
    np.testing.assert_allclose(y.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert y.grad_fn.name() == t.grad_fn.name()
    weights = np.arange(1.0, t.numel() + 1).reshape(t.shape)
    (y * gradcli.tensor(weights)).sum().backward()
    (t * torch.tensor(weights)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_the_list_and_sublist_forms_are_the_equations():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3, 2))
    expected = a @ b
    ga, gb = gradcli.tensor(a), gradcli.tensor(b)
    for y in (
        gradcli.einsum("ij,jk", [ga, gb]),
        gradcli.einsum(ga, [0, 1], gb, [1, 2], [0, 2]),
        gradcli.einsum(ga, [0, 1], gb, [1, 2]),
    ):
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-13)


def test_a_second_derivative_through_einsum_is_pytorchs():
    a = RNG.standard_normal((3, 3))
    found = []
    for m in (gradcli, torch):
        x = m.tensor(a, requires_grad=True)
        (g,) = m.autograd.grad(m.einsum("ij,jk,ki->", x, x, x), x, create_graph=True)
        (h,) = m.autograd.grad((g * g).sum(), x)
        found.append(h.detach().numpy())
    np.testing.assert_allclose(found[0], found[1], rtol=1e-11)


ERRORS = [
    ("ij->k", [(2, 2)]),
    ("ij,jk", [(2, 2)]),
    ("ij->ii", [(2, 2)]),
    ("i.j", [(2, 2)]),
    ("ij->i->j", [(2, 2)]),
    ("ijk", [(2, 2)]),
    ("ij,jk->ik", [(2, 3), (2, 2)]),
    ("ii", [(2, 3)]),
]


@pytest.mark.parametrize("equation, shapes", ERRORS, ids=[e[0] for e in ERRORS])
def test_a_wrong_equation_raises_pytorchs_message(equation, shapes):
    with pytest.raises(RuntimeError) as theirs:
        torch.einsum(equation, *[torch.ones(s) for s in shapes])
    with pytest.raises(GradcliError) as ours:
        gradcli.einsum(equation, *[gradcli.ones(s) for s in shapes])
    assert str(ours.value) == str(theirs.value)


def test_a_program_calls_einsum(gradcli_json):
    out = gradcli_json(
        "grad", 'einsum("ij,j->i", A, v) @ v + einsum("ii", A)',
        "--A", "[[1, 2], [3, 4]]", "--v", "[1, -1]",
    )  # fmt: skip
    # v^T A v + trace(A): d/dA = v v^T + I, d/dv = (A + A^T) v, by hand
    assert out["value"] == 5
    assert out["grad"] == {"A": [[2, -1], [-1, 2]], "v": [-3, -3]}
