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
    # dropout: PyTorch's numbers from the same seed, training on and off, in place, gradients
    import torch.nn.functional as F
    torch.manual_seed(0)
    x = torch.ones(4, 5, requires_grad=True)
    y = F.dropout(x, p=0.4)
    print(y, y.grad_fn, sep="\\n")
    y.sum().backward()
    print(x.grad)
    print(F.dropout(x, 0.5, training=False) is x, F.dropout(x, p=0.0).sum())
    h = torch.randn(3, 8)
    print(F.dropout(h, 0.25, True), torch.dropout(h, 0.5, True), sep="\\n")
    print(F.dropout(h.clone(), 0.5, inplace=True), torch.rand(2))
    torch.manual_seed(7)
    w = torch.randn(6, 3, requires_grad=True)
    for step in range(3):
        out = F.dropout(w * w, 0.3, training=True).sum()
        out.backward()
        print(step, out.item(), w.grad.sum().item())
""")

program("""
    # robust_losses: huber_loss with delta, smooth_l1_loss with beta, their reductions and grads
    import torch.nn.functional as F
    rng = np.random.default_rng(2)
    pred = torch.tensor(rng.normal(size=(4, 3)) * 2, requires_grad=True)
    target = torch.tensor(rng.normal(size=(4, 3)))
    for reduction in ("mean", "sum", "none"):
        h = F.huber_loss(pred, target, reduction=reduction)
        s = F.smooth_l1_loss(pred, target, reduction=reduction, beta=0.5)
        print(reduction, h, s, h.grad_fn.name(), s.grad_fn.name(), sep="\\n")
    loss = F.huber_loss(pred, target, delta=0.7) + F.smooth_l1_loss(pred, target)
    loss.backward()
    print(loss, pred.grad, sep="\\n")
    pred.grad = None
    l1 = F.smooth_l1_loss(pred, target, beta=0.0)
    l1.backward()
    print(l1, l1.grad_fn, pred.grad, sep="\\n")
    f32 = torch.tensor(rng.normal(size=(5,)).astype(np.float32), requires_grad=True)
    h32 = F.huber_loss(f32, torch.zeros(5), delta=0.5)
    h32.backward()
    print(h32.item(), f32.grad, h32.dtype)
    attempt(lambda: F.huber_loss(pred, target, delta=-1.0))
""")

program("""
    # kl_div: the KL divergence of log-probabilities, every reduction, log_target, gradients
    import torch.nn.functional as F
    rng = np.random.default_rng(3)
    logits = torch.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    target = torch.softmax(torch.tensor(rng.normal(size=(3, 4))), dim=1)
    log_p = F.log_softmax(logits, dim=1)
    for reduction in ("batchmean", "sum", "mean", "none"):
        loss = F.kl_div(log_p, target, reduction=reduction)
        print(reduction, loss, loss.grad_fn.name(), sep="\\n")
    loss = F.kl_div(log_p, target, reduction="batchmean")
    loss.backward()
    print(logits.grad)
    logits.grad = None
    lt = F.kl_div(F.log_softmax(logits, dim=1), target.log(), reduction="batchmean",
                  log_target=True)
    lt.backward()
    print(lt, lt.grad_fn.next_functions[0][0].name(), logits.grad, sep="\\n")
    zero = torch.tensor([[0.0, 1.0]])
    print(F.kl_div(torch.log(torch.tensor([[0.5, 0.5]])), zero, reduction="sum"))
""")

program("""
    # inplace_activations: relu_, leaky_relu_, elu_ and inplace=True record PyTorch's nodes
    import torch.nn.functional as F
    x = torch.tensor([-1.5, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
    outs = {
        "relu": F.relu(x.clone(), inplace=True),
        "relu_": F.relu_(x.clone()),
        "leaky": F.leaky_relu(x.clone(), 0.2, True),
        "leaky_": F.leaky_relu_(x * 1, negative_slope=0.1),
        "elu": F.elu(x.clone(), alpha=0.5, inplace=True),
        "elu_": F.elu_(x * 1),
        "silu": F.silu(x.clone(), inplace=True),
        "method": (x * 1).relu_(),
    }
    for name, y in outs.items():
        x.grad = None
        (y * torch.arange(5.0)).sum().backward()
        print(name, y.grad_fn, y, x.grad, sep="\\n")
    h = torch.tensor([-1.0, 2.0])
    print(F.relu_(h), h, F.leaky_relu_(torch.tensor([-2.0, 1.0])), F.elu_(torch.tensor([-1.0])))
    attempt(lambda: F.relu(torch.tensor([1.0], requires_grad=True), inplace=True))
""")

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
