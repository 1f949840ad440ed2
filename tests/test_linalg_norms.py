"""``torch.linalg``'s matrix norms, ``norm``, ``vector_norm`` and ``svdvals`` against
PyTorch 2.13.

Each program runs once with PyTorch and once with gradcli in its place (the
``run`` of ``test_engine_programs.py``) and must print the same: values, first and
second derivatives to 10 decimals (LAPACK's SVD drivers round the last bits
differently), each result's grad_fn name, and errors as the builtin type PyTorch
raises and the first line of its message.
"""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

SHOW = """
L = torch.linalg
inf = float("inf")
ORDS = ["fro", "nuc", 2, -2, 1, -1, inf, -inf]


def show(t):
    fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    values = np.round(np.array((t.detach() + 0).tolist(), dtype=float), 10).tolist()
    return f"T{tuple(t.shape)} {t.dtype} {fn} {values}"


def derivatives(f, x):
    # The gradient of sum(f(x) * w) and the gradient of sum(that gradient * u): two orders.
    x = x.detach().clone().requires_grad_()
    out = f(x)
    w = torch.arange(1.0, out.numel() + 1, dtype=x.dtype).reshape(out.shape)
    (g,) = torch.autograd.grad((out * w).sum(), x, create_graph=True)
    u = torch.linspace(-1.0, 1.0, x.numel(), dtype=x.dtype).reshape(x.shape)
    (h,) = torch.autograd.grad((g * u).sum(), x)
    return show(out), show(g.detach()), show(h)


A = torch.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=torch.float64)
B = torch.tensor(np.random.default_rng(0).normal(size=(2, 3, 4)))
"""

PROGRAMS = {}


def program(source):
    name = re.search(r"#\s*(\w+)", source).group(1)
    PROGRAMS[name] = source


program("""
    # matrix_norm_orders: every ord, over every pair of dims, keepdim or not, two orders
    for ord in ORDS:
        print(ord, *derivatives(lambda a: L.matrix_norm(a, ord), A))
        print(ord, *derivatives(lambda a: L.matrix_norm(a, ord), A.T))
        for dim in [(-2, -1), (-1, -2), (0, 2), (2, 0), (1, 0), (0, -1)]:
            for keepdim in [False, True]:
                f = lambda b: L.matrix_norm(b, ord, dim=dim, keepdim=keepdim)
                print(ord, dim, keepdim, *derivatives(f, B))
""")

program("""
    # norm_forms: torch.linalg.norm's choice of a vector or a matrix norm, and vector_norm
    for ord in ORDS:
        print(ord, *derivatives(lambda a: L.norm(a, ord), A))
        print(ord, *derivatives(lambda b: L.norm(b, ord, dim=(0, 2), keepdim=True), B))
    for ord in [None, 2, 1, 3, 0.5, inf, -inf, -1]:
        print(ord, *derivatives(lambda b: L.norm(b, ord, dim=1), B))
        print(ord, *derivatives(lambda a: L.norm(a[0], ord), A))
    print(*derivatives(lambda b: L.norm(b), B))
    print(*derivatives(lambda b: L.norm(b, dim=(1, 2)), B))
    for ord in [2, 1, 3, inf, -inf, 0.5]:
        print(ord, *derivatives(lambda b: L.vector_norm(b, ord), B))
        print(ord, *derivatives(lambda b: L.vector_norm(b, ord, dim=(0, 2), keepdim=True), B))
    print(show(L.vector_norm(B, 0)), show(L.vector_norm(B, 2, dtype=torch.float64)))
""")

program("""
    # svdvals: the singular values of tall, wide and batched matrices, two orders
    print(*derivatives(L.svdvals, A))
    print(*derivatives(L.svdvals, A.T))
    print(*derivatives(L.svdvals, B))
    print(*derivatives(lambda b: L.svdvals(b).sum(), B.transpose(-1, -2)))
    print(*derivatives(lambda a: L.svdvals(a)[0], torch.eye(3, dtype=torch.float64) + A.T @ A))
""")

program("""
    # matrix_norms_in_vmap: each point's norm, over each point's dims
    F = torch.func
    C = torch.tensor(np.random.default_rng(1).normal(size=(3, 2, 3, 2)))
    for ord in ORDS:
        print(ord, show(F.vmap(lambda b: L.matrix_norm(b, ord))(B)))
        f = lambda c: L.matrix_norm(c, ord, dim=(2, 0), keepdim=True)
        print(ord, show(F.vmap(f, in_dims=1)(C)), show(F.vmap(lambda b: L.norm(b, ord))(B)))
        print(ord, show(F.vmap(F.grad(lambda b: L.matrix_norm(b, ord)))(B)))
    print(show(F.vmap(L.svdvals)(B)), show(F.vmap(F.vmap(L.svdvals))(C)))
    attempt(lambda: F.vmap(lambda b: L.matrix_norm(b, 2, dim=(0, 2)))(B))
    attempt(lambda: F.vmap(lambda b: L.matrix_norm(b[0], 2))(B))
""")

program("""
    # matrix_norm_dtypes_and_errors: dtype=, and PyTorch's messages
    print(show(L.matrix_norm(A.float(), 2)), show(L.matrix_norm(A.float(), 2, dtype=torch.float64)))
    print(show(L.matrix_norm(A, "nuc", dtype=torch.float64)), show(L.norm(A.float(), 1)))
    for shape in [(0, 3), (3, 0), (2, 0, 3), (0, 2, 3)]:
        for ord in ORDS:
            empty = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
            attempt(lambda: (shape, ord, show(L.matrix_norm(empty, ord))))
    for call in [
        lambda: L.matrix_norm(A, 3),
        lambda: L.matrix_norm(A, "bad"),
        lambda: L.matrix_norm(A, 0),
        lambda: L.matrix_norm(A[0]),
        lambda: L.matrix_norm(A, dim=(0,)),
        lambda: L.matrix_norm(A, dim=(0, 0)),
        lambda: L.matrix_norm(A, dim=(0, -2)),
        lambda: L.matrix_norm(A, dim=(0, 2)),
        lambda: L.matrix_norm(A, 2, dim=(1, -3)),
        lambda: L.matrix_norm(torch.tensor([[1, 2], [3, 4]])),
        lambda: L.matrix_norm(torch.tensor([[1, 2], [3, 4]]), 2),
        lambda: L.matrix_norm(A, 2, dtype=torch.float32),
        lambda: L.matrix_norm(A, 2, dtype=torch.int64),
        lambda: L.norm(B, 2),
        lambda: L.norm(B, "fro"),
        lambda: L.norm(B, dim=(0, 1, 2)),
        lambda: L.norm(B, "nuc", dim=(0, 1, 2)),
        lambda: L.norm(B, "fro", dim=1),
        lambda: L.norm(A[0], "fro"),
        lambda: L.norm(B, inf, dim=(0, 0)),
    ]:
        attempt(call)
""")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    source = SHOW + textwrap.dedent(PROGRAMS[name])
    assert run(source, gradcli) == run(source, torch)


def test_the_spectral_and_nuclear_norms_and_their_gradients_are_mpmaths():
    # Independent of both libraries: mpmath's SVD at 30 digits, and the gradients
    # U[:, 0] V[:, 0]^T (spectral) and U V^T (nuclear) of distinct singular values.
    import mpmath

    mpmath.mp.dps = 30
    rows = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
    u, s, v = mpmath.svd_r(mpmath.matrix(rows))
    A = gradcli.tensor(rows, dtype=gradcli.float64, requires_grad=True)  # noqa: N806
    for ord, value, grad in [
        (2, s[0], [[u[i, 0] * v[0, j] for j in range(3)] for i in range(2)]),
        ("nuc", s[0] + s[1], [[sum(u[i, k] * v[k, j] for k in range(2)) for j in range(3)]
                              for i in range(2)]),
    ]:  # fmt: skip
        out = gradcli.linalg.matrix_norm(A, ord)
        (g,) = gradcli.autograd.grad(out, A)
        assert abs(out.item() - float(value)) < 1e-13
        np.testing.assert_allclose(g.numpy(), np.array(grad, dtype=float), atol=1e-13)
