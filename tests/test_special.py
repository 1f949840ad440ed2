"""``torch.special`` against PyTorch 2.13: ``import torch.special`` and the attribute,
each function's values, gradients and node names, and PyTorch's errors, as programs
run once with each (``test_engine_programs.run``). The entries' samples are swept by
the op matrix (``test_op_matrix.py``); this is the module's surface.
"""

from __future__ import annotations

import re

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

PROGRAMS = {}


def program(source):
    PROGRAMS[re.search(r"#\s*(\w+)", source).group(1)] = source


program(
    """
    # each_function: value, gradient and node, rounded to 12 and 8 places (PyTorch's
    # trigamma, digamma's derivative, is good to 5e-10)
    import torch.special
    from torch.special import erf
    assert erf is torch.special.erf
    x = torch.tensor([0.3, 0.6, 0.85], dtype=torch.float64, requires_grad=True)
    p = torch.tensor([1.5, 2.25, 3.0], dtype=torch.float64, requires_grad=True)
    S = torch.special
    calls = {
        "expit": lambda: S.expit(x), "logit": lambda: S.logit(x), "erf": lambda: S.erf(x),
        "logit eps": lambda: S.logit(x, eps=0.4), "erfc": lambda: S.erfc(x),
        "erfinv": lambda: S.erfinv(x), "gammaln": lambda: S.gammaln(p),
        "digamma": lambda: S.digamma(p), "psi": lambda: S.psi(p),
        "polygamma": lambda: S.polygamma(2, p), "i0": lambda: S.i0(x), "i0e": lambda: S.i0e(-x),
        "i1": lambda: S.i1(x), "i1e": lambda: S.i1e(-x), "ndtri": lambda: S.ndtri(x),
        "ndtr": lambda: S.ndtr(x - 0.5),
        "log_ndtr": lambda: S.log_ndtr(-p), "sinc": lambda: S.sinc(p), "entr": lambda: S.entr(x),
        "multigammaln": lambda: S.multigammaln(p, 2), "xlogy": lambda: S.xlogy(x, p),
        "xlog1py": lambda: S.xlog1py(x, p), "xlog1py number": lambda: S.xlog1py(2.0, p),
        "zeta number": lambda: S.zeta(2.5, p), "expm1": lambda: S.expm1(x),
        "log1p": lambda: S.log1p(x),
        "softmax": lambda: S.softmax(x, 0), "log_softmax": lambda: S.log_softmax(x, -1),
        "softmax dtype": lambda: S.softmax(x.float(), 0, dtype=torch.float64),
        "logsumexp": lambda: S.logsumexp(x, 0),
    }
    for name, call in calls.items():
        y = call()
        g = torch.autograd.grad(y.sum(), (x, p), allow_unused=True)
        print(name, type(y.grad_fn).__name__, [round(v, 12) for v in y.reshape(-1).tolist()],
              [None if t is None else [round(v, 8) for v in t.tolist()] for t in g])
    print(S.round(p * 2.2).tolist())  # its node is RoundBackward0, PyTorch's RoundBackward1
    y = S.ndtr(x)  # PyTorch's composite in C++: the Scalar overloads of mul and add
    print([type(n).__name__ for n, _ in y.grad_fn.next_functions],
          [type(n).__name__ for n, _ in y.grad_fn.next_functions[0][0].next_functions])
    """
)

program(
    """
    # errors: zeta's derivative for x, multigammaln's p, the functions gradcli lacks
    x = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)
    q = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    print(torch.special.zeta(x, q).tolist(), type(torch.special.zeta(x, q).grad_fn).__name__)
    attempt(lambda: torch.special.zeta(x, q).sum().backward())
    attempt(lambda: torch.special.zeta(x, 2.0).sum().backward())
    attempt(lambda: torch.special.multigammaln(x, 0))
    print(torch.special.logit(torch.tensor([-0.5, 0.0, 1.0, 1.5])).tolist())
    print(torch.special.entr(torch.tensor([-1.0, 0.0, float("nan"), float("inf")])).tolist())
    """
)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    assert run(PROGRAMS[name], gradcli) == run(PROGRAMS[name], torch)


def test_a_function_gradcli_lacks_says_so():
    with pytest.raises(NotImplementedError, match="torch.special.bessel_j0 is not implemented"):
        gradcli.special.bessel_j0(gradcli.tensor([1.0]))
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        gradcli.special.nope()
