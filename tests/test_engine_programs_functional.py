"""The smaller parts of PyTorch's API that tutorials call, run on PyTorch 2.13 and on gradcli.

As ``test_engine_programs.py`` (whose runner these use): each program says
``torch``, runs once with PyTorch and once with gradcli bound to that name, and
must print the same, character for character: values, gradients and grad_fn
names. These cover ``F.linear``, ``F.one_hot``, ``F.normalize``, ``F.pad``,
``F.dropout``, the Huber, smooth L1 and KL losses, ``index_add_``, the in-place
activations (``F.relu_``, ``inplace=True``: PyTorch's ``...Backward1`` nodes), the
anomaly switches, the grad mode objects' reprs and ``torch.linalg`` as a module.
"""

from __future__ import annotations

import re

import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

PROGRAMS = {}


def program(source):
    PROGRAMS[re.search(r"#\s*(\w+)", source).group(1)] = source


program("""
    # anomaly_switches: is_anomaly_enabled, check_nan, and set_detect_anomaly as a block
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    with torch.autograd.detect_anomaly():
        print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    with torch.autograd.detect_anomaly(check_nan=False):
        print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    print(torch.is_anomaly_enabled())
    switch = torch.autograd.set_detect_anomaly(True)
    print(type(switch).__name__, torch.is_anomaly_enabled())
    torch.autograd.set_detect_anomaly(False)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    print(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
    x = torch.tensor([0.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        attempt(lambda: torch.sqrt(x * 0).sum().backward() or x.grad)
        attempt(lambda: (x / x).sum().backward())
""")

program("""
    # grad_mode_objects: the reprs of the grad mode switches and of AccumulateGrad's class
    print(torch.set_grad_enabled(False), torch.is_grad_enabled())
    print(repr(torch.set_grad_enabled(True)), torch.is_grad_enabled())
    print(str(torch.autograd.set_grad_enabled(mode=False)))
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False) as mode:
        print(mode, torch.is_grad_enabled())
    print(torch.no_grad(), torch.enable_grad(), torch.inference_mode(), sep="\\n")
    x = torch.ones(2, requires_grad=True)
    acc = (x * 2).grad_fn.next_functions[0][0]
    print(type(acc), type(acc).__name__, acc.name(), acc.variable is x)
    print(type(x.sum().grad_fn).__name__, type(x.sum().grad_fn))
""")

program("""
    # linalg_module: import torch.linalg as a module, its functions from it
    import types
    import torch.linalg
    import torch.linalg as LA
    from torch.linalg import solve
    print(isinstance(torch.linalg, types.ModuleType), LA is torch.linalg, solve is LA.solve)
    A = torch.tensor([[3.0, 1.0], [1.0, 2.0]], requires_grad=True)
    b = torch.tensor([9.0, 8.0])
    x = solve(A, b)
    x.sum().backward()
    print(x, A.grad, LA.det(A), LA.inv(A), LA.eigvalsh(A), sep="\\n")
    print(LA.norm(torch.tensor([3.0, 4.0])), LA.vector_norm(torch.tensor([[1.0, -2.0]]), ord=1))
""")


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], gradcli)
    assert ours == theirs
