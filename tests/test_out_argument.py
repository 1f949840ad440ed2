"""``out=`` against PyTorch 2.13 (``engine/out_argument.py``): the result written into
the given tensor and returned, resized with PyTorch's warning, cast where PyTorch
casts, refused where an argument requires grad with grad mode on, as programs run
once with each (``test_engine_programs.run``).
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
    # written: elementwise, binary, reductions and products write out and return it
    y = torch.tensor([1.0, 2.0, 3.0])
    o = torch.zeros(3)
    before = o._version
    r = torch.exp(y, out=o)
    print(r is o, [round(v, 5) for v in o.tolist()], o._version - before)
    print(o.requires_grad, o.grad_fn)
    print(torch.add(y, 1, out=torch.empty(3)).tolist())
    print(torch.mul(y, 2, out=torch.empty(3, dtype=torch.float64)))
    print(torch.add(torch.tensor([1, 2, 3]), 2, out=torch.empty(3, dtype=torch.int64)))
    print(torch.mean(y, 0, out=torch.empty(())), torch.sum(y, 0, keepdim=True, out=torch.empty(1)))
    print(torch.matmul(y, y, out=torch.empty(())), torch.outer(y, y, out=torch.empty(3, 3)).sum())
    print(torch.lt(y, 2, out=torch.empty(3, dtype=torch.bool)), torch.lt(y, 2, out=torch.empty(3)))
    b = torch.zeros(2, 3)
    torch.sin(y, out=b[1])  # into a view: the base sees it
    print(b)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.no_grad():
        print(torch.sin(x, out=o), o.requires_grad)
    """
)

program(
    """
    # resized: silently from no elements, else with PyTorch's warning
    import warnings
    y = torch.tensor([1.0, 2.0, 3.0])
    for out in (torch.empty(0), torch.empty(2), torch.empty(2, 2)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = torch.sin(y, out=out)
        print(r is out, tuple(out.shape), [(w.category.__name__, str(w.message)) for w in caught])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        print(torch.mm(torch.ones(2, 3), torch.ones(3, 2), out=torch.empty(4)), len(caught))
    """
)

program(
    """
    # refused: an argument that requires grad, out included, and a cast PyTorch refuses
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.tensor([1.0, 2.0, 3.0])
    attempt(lambda: torch.sin(x, out=torch.empty(3)))
    attempt(lambda: torch.add(y, x, out=torch.empty(3)))
    attempt(lambda: torch.sum(x, 0, out=torch.empty(())))
    attempt(lambda: torch.matmul(x, x, out=torch.empty(())))
    attempt(lambda: torch.sin(y, out=torch.empty(3, requires_grad=True)))
    attempt(lambda: torch.sin(y, out=torch.empty(3, dtype=torch.long)))
    """
)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    assert run(PROGRAMS[name], gradcli) == run(PROGRAMS[name], torch)


def test_an_op_without_out_says_so():
    with pytest.raises(NotImplementedError, match=r"reshape\(\): out= is not supported"):
        gradcli.reshape(gradcli.ones(4), (2, 2), out=gradcli.empty(2, 2))
