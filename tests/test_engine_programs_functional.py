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
    # linear: F.linear with and without a bias, on 1-d, 2-d and 3-d inputs, in float64
    import torch.nn.functional as F
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    w = torch.tensor(rng.normal(size=(2, 4)), requires_grad=True)
    b = torch.tensor(rng.normal(size=(2,)), requires_grad=True)
    y = F.linear(x, w, b)
    print(y, y.grad_fn, F.linear(x, w).grad_fn, sep="\\n")
    (y ** 2).sum().backward()
    print(x.grad, w.grad, b.grad, sep="\\n")
    v = F.linear(x[0], w, b)
    print(v, v.grad_fn.name(), F.linear(x[0], w).grad_fn.name())
    batch = torch.tensor(rng.normal(size=(2, 3, 4)), requires_grad=True)
    z = F.linear(batch, w, b)
    print(z.shape, z.grad_fn.name(), z.grad_fn.next_functions[0][0].name())
    print(F.linear(batch, w).grad_fn.name())
    z.sum().backward()
    print(batch.grad, w.grad.sum(), b.grad)
    attempt(lambda: F.linear(x, w.T))
""")

program("""
    # one_hot: class indices as one-hot rows, with and without num_classes, into a loss
    import torch.nn.functional as F
    labels = torch.tensor([0, 2, 1, 2])
    print(F.one_hot(labels), F.one_hot(labels, num_classes=4).dtype, F.one_hot(labels, 5).shape)
    print(F.one_hot(torch.tensor([[1, 0], [2, 2]])))
    onehot = F.one_hot(labels, 3).float()
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [1.2, 0.2, 3.1], [0.3, 0.2, 0.9]],
                          requires_grad=True)
    loss = -(onehot * logits.log_softmax(dim=1)).sum(dim=1).mean()
    loss.backward()
    print(loss, logits.grad, sep="\\n")
    attempt(lambda: F.one_hot(torch.tensor([0.0, 1.0])))
    attempt(lambda: F.one_hot(labels, 2))
""")

program("""
    # normalize: rows and columns scaled to unit p-norm, the eps floor, and their gradients
    import torch.nn.functional as F
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.normal(size=(3, 4)), requires_grad=True)
    y = F.normalize(x)
    print(y, y.norm(dim=1), y.grad_fn, sep="\\n")
    (y * torch.arange(4.0, dtype=torch.float64)).sum().backward()
    print(x.grad)
    print(F.normalize(x, p=1, dim=0), F.normalize(x[0], dim=0), sep="\\n")
    zero = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    z = F.normalize(zero, eps=1e-6)
    z.sum().backward()
    print(z, zero.grad, sep="\\n")
    print(F.normalize(torch.tensor([[3.0, 4.0]])), F.normalize(torch.tensor([3.0, 4.0]), dim=0))
""")

program("""
    # pad: constant padding on the last dims (and cropping with negative pads), reflect and
    # replicate, with the gradients each sends back
    import torch.nn.functional as F
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    p = F.pad(x, (1, 2))
    print(p, p.grad_fn, F.pad(x, (1, 1, 2, 0), value=-1.0), F.pad(x, [0, 1], "constant", 9.0))
    (p * torch.arange(12.0).reshape(2, 6)).sum().backward()
    print(x.grad)
    print(F.pad(x, (-1, 1)), F.pad(x, (0, 0, 1, 1)).shape)
    img = torch.arange(12.0).reshape(1, 3, 4).requires_grad_()
    r = F.pad(img, (2, 1), mode="reflect")
    e = F.pad(img, (1, 2), mode="replicate")
    print(r, r.grad_fn, e, e.grad_fn, sep="\\n")
    (r.sum() + (e * e).sum()).backward()
    print(img.grad)
    img2 = torch.arange(16.0).reshape(1, 1, 4, 4).requires_grad_()
    r2 = F.pad(img2, (1, 1, 2, 0), mode="reflect")
    e2 = F.pad(img2, (1, 0, 0, 1), mode="replicate")
    print(r2, r2.grad_fn.name(), e2, e2.grad_fn.name(), sep="\\n")
    (r2.sum() + e2.sum()).backward()
    print(img2.grad)
    attempt(lambda: F.pad(x, (1,)))
    attempt(lambda: F.pad(img, (4, 0), mode="reflect"))
""")

program("""
    # pad_circular: 1-D, 2-D and 3-D circular pads, negative pads, their gradients of the
    # first and second order and PyTorch's nodes (CopySlices) and errors
    import torch.nn.functional as F
    x = torch.arange(6.0, dtype=torch.float64).reshape(1, 2, 3).requires_grad_()
    y = F.pad(x, (2, 1), mode="circular")
    print(y, y.grad_fn, sep="\\n")
    v = torch.arange(12.0, dtype=torch.float64).reshape(1, 2, 6).requires_grad_()
    (g,) = torch.autograd.grad(y, x, v, create_graph=True)
    # (g's node is the slices' gradient: gradcli's IndexPutBackward, PyTorch's SliceBackward's)
    print(g.detach(), g.requires_grad, torch.autograd.grad(g, v, torch.ones_like(g)), sep="\\n")
    attempt(lambda: torch.autograd.grad((g * g).sum(), x))
    (g0,) = torch.autograd.grad(y, x, v.detach(), create_graph=True)
    print(g0.requires_grad, g0.grad_fn)
    for shape, pad in [((1, 3, 4), (1, 2, -1, 2)), ((2, 3, 4), (0, 0, 3, 0)),
                       ((1, 2, 2, 3), (1, 0, 2, 1, 0, 1)), ((2, 1, 2, 3, 4), (1, 1, 1, 0, 0, 1)),
                       ((3, 4), (-1, -2)), ((1, 3, 4), (-1, -1, -2, 1)), ((2, 0, 3), (1, 1))]:
        a = torch.arange(float(np.prod(shape)), dtype=torch.float64).reshape(shape)
        a = (a * 0.5 - 1.0).requires_grad_()
        out = F.pad(a, pad, mode="circular")
        w = torch.arange(float(out.numel()), dtype=torch.float64).reshape(out.shape)
        ((out * w).sum() + (out * out).sum()).backward()
        print(shape, pad, out, out.grad_fn, a.grad, sep="\\n")
    print(F.pad(torch.arange(12).reshape(3, 4), (1, 1), mode="circular"))
    for call in [
        lambda: F.pad(x, (4, 0), mode="circular"),
        lambda: F.pad(x, (-2, -1), mode="circular").shape,
        lambda: F.pad(x[0, 0], (1, 1), mode="circular"),
        lambda: F.pad(x, (1, 1, 1, 1, 1, 1), mode="circular"),
        lambda: F.pad(x, (1,), mode="circular"),
        lambda: F.pad(x, (1, 1), mode="circular", value=1.0),
        lambda: F.pad(torch.zeros(2, 0), (1, 1), mode="circular"),
        lambda: F.pad(torch.zeros(2, 3, 2, 3, 4, 2), (1, 1), mode="circular"),
    ]:
        attempt(call)
""")

program("""
    # vmap_of_pads: every mode at many points, a point's own batch dim too, and grad inside
    import torch.nn.functional as F
    vmap, grad = torch.func.vmap, torch.func.grad
    X = torch.tensor(np.random.default_rng(0).normal(size=(3, 2, 4)))
    Y = torch.tensor(np.random.default_rng(1).normal(size=(2, 3, 2, 4)))
    for mode in ["constant", "reflect", "replicate", "circular"]:
        print(vmap(lambda a: F.pad(a, (1, 2), mode=mode))(X).detach())
        print(vmap(lambda a: F.pad(a, (2, 1), mode=mode))(Y).detach())
        print(vmap(lambda a: F.pad(a, (1, 1, 1, 0), mode=mode), in_dims=1)(Y).detach())
        print(vmap(grad(lambda a: (F.pad(a, (1, 2), mode=mode) ** 3).sum()))(X).detach())
        if mode != "reflect":  # PyTorch's message names its batch's flattened shape there
            attempt(lambda: vmap(lambda a: F.pad(a, (5, 0), mode=mode))(X))
        attempt(lambda: vmap(lambda a: F.pad(a[0, 0], (1, 0), mode=mode))(X))
""")

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
    # index_add: rows added into chosen rows, alpha, the gradients to self and to source
    base = torch.zeros(4, 3, requires_grad=True)
    source = torch.arange(9.0).reshape(3, 3).requires_grad_()
    index = torch.tensor([0, 2, 0])
    out = base.clone().index_add_(0, index, source)
    print(out, out.grad_fn, sep="\\n")
    (out * torch.arange(12.0).reshape(4, 3)).sum().backward()
    print(base.grad, source.grad, sep="\\n")
    y = torch.index_add(torch.ones(2, 4), 1, torch.tensor([3, 1]), torch.ones(2, 2), alpha=2.5)
    print(y, torch.ones(3).index_add(0, torch.tensor([1, 1]), torch.tensor([5.0, 6.0])))
    counts = torch.zeros(3, dtype=torch.int64).index_add_(0, torch.tensor([2, 2, 0]),
                                                          torch.ones(3, dtype=torch.int64))
    print(counts)
    attempt(lambda: torch.zeros(3, 3).index_add_(0, torch.tensor([0]), torch.ones(2, 3)))
    attempt(lambda: torch.zeros(3, 3).index_add_(0, torch.tensor([0.0]), torch.ones(1, 3)))
""")

program("""
    # inplace_activations: relu_, leaky_relu_, elu_ and inplace=True record PyTorch's nodes
    import torch.nn.functional as F
    x = torch.tensor([-1.5, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
    outs = {
        "relu": F.relu(x.clone(), inplace=True),
        "relu_": F.relu_(x.clone()),
        "torch.relu_": torch.relu_(x * 1),
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


program("""
    # pack_order: what a pack hook sees, in the order PyTorch's nodes save it
    def order(f, *shapes):
        # Each input holds its own number: a saved tensor is known by its first entry.
        xs = [torch.ones(*s, requires_grad=True) * (i + 2) for i, s in enumerate(shapes)]
        seen = []

        def pack(t):
            first = t.detach().reshape(-1)[0].item()
            seen.append(f"in{int(first) - 2}" if first in (2, 3, 4) and t.shape in shapes
                        else "result")
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = f(*xs)
        print(y.grad_fn.name(), seen)

    order(lambda a, b: a * b, (3,), (3,))
    order(lambda a, b: a / b, (3,), (3,))
    order(lambda a, b: a @ b, (2, 3), (3, 2))
    order(lambda a, b: a @ b, (3,), (3,))
    order(lambda a, b: a @ b, (2, 3), (3,))
    order(lambda a, b: a ** b, (3,), (3,))
    order(lambda a, b: torch.atan2(a, b), (3,), (3,))
    order(lambda a, b: torch.maximum(a, b), (3,), (3,))
    order(lambda a, b: torch.minimum(a, b), (3,), (3,))
    order(lambda a, b: torch.xlogy(a, b), (3,), (3,))
    order(lambda a, b, c: torch.addmm(a, b, c), (2,), (2, 3), (3, 2))
    order(lambda a: a.exp(), (3,))
""")


# The one_hot entry is the language's (its own change); F.one_hot is that entry.
NEEDS = {"one_hot": "one_hot"}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_torch_prints(name):
    if name in NEEDS and NEEDS[name] not in gradcli.ops.OPS:
        pytest.skip(f"gradcli has no {NEEDS[name]} entry yet")
    theirs = run(PROGRAMS[name], torch)
    ours = run(PROGRAMS[name], gradcli)
    assert ours == theirs


@pytest.mark.parametrize(
    "call",
    [
        # Elementwise ops, reductions and products take out= (tests/test_out_argument.py).
        lambda m, a: m.cumsum(a, 0, out=m.zeros(2)),
        lambda m, a: m.cat([a, a], out=m.zeros(4)),
        lambda m, a: m.where(a > 0, a, a, out=m.zeros(2)),
    ],  # fmt: skip
)
def test_an_out_argument_is_said_to_be_missing(call):
    a = gradcli.ones(2)
    with pytest.raises(gradcli.errors.NotImplementedByGradcli, match="out= is not supported"):
        call(gradcli, a)
    call(torch, torch.ones(2))  # PyTorch takes it
