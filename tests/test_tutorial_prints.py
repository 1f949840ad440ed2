"""What tutorials print, to the last digit: the cases where a public program printed
something else on gradcli than on PyTorch 2.13, each run with both and compared."""

from __future__ import annotations

import random

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _bits(t):
    return t.detach().numpy().view(np.uint8).tobytes()


def _arange_cases():
    rng = random.Random(81)
    cases = [(-8.0, 8.0, 0.1), (0.0, 10.0, 0.3), (-3.0, 3.0, 0.01), (1.0, 2.0, 1 / 3)]
    cases += [(5.0, -5.0, -0.7), (0.0, 1.0, 0.001), (-5.0, 5.0, 0.1), (-6.0, 6.0, 0.05)]
    for _ in range(60):
        start = rng.uniform(-100, 100)
        step = rng.choice([1, -1]) * 10 ** rng.uniform(-4, 1)
        cases.append((start, start + step * rng.randint(0, 2000), step))
    return cases


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arange_is_pytorchs_bit_for_bit(dtype):
    # d2l's activation-function plots: arange(-8.0, 8.0, 0.1) in float32 differed at 34
    # of 160 elements ([38] is -4.200000286 in PyTorch).
    for start, end, step in _arange_cases():
        ours = gradcli.arange(start, end, step, dtype=getattr(gradcli, dtype))
        theirs = torch.arange(start, end, step, dtype=getattr(torch, dtype))
        assert _bits(ours) == _bits(theirs), (start, end, step)
    assert gradcli.arange(-8.0, 8.0, 0.1)[38].item() == torch.arange(-8.0, 8.0, 0.1)[38].item()
    assert torch.arange(-8.0, 8.0, 0.1)[38].item() == np.float32(-4.200000286102295)


def _fills(m):
    """One-element float64 draws (PyTorch's scalar Box-Muller, its second number cached)
    and fills of views that are not contiguous (filled in the order of memory)."""
    out = []
    for seed in range(40):
        m.manual_seed(seed)
        one = m.empty(1, dtype=m.float64)
        out += [one.normal_().item(), one.normal_(2.0, 3.0).item(), one.normal_().item()]
        out.append(m.randn((), dtype=m.float64).item())
    m.manual_seed(7)
    for fill in (
        lambda x: x.normal_(),
        lambda x: x.normal_(1.0, 2.0),
        lambda x: x.uniform_(),
        lambda x: x.exponential_(),
    ):
        for view in (
            lambda: m.empty(3, 4, dtype=m.float64).t(),
            lambda: m.empty(5, 8).t(),
            lambda: m.empty(2, 3, 4).permute(2, 0, 1),
            lambda: m.empty(4, 6)[:, ::2],
        ):
            out += fill(view()).flatten().tolist()
    return out


def test_normal_and_fills_draw_pytorchs_numbers():
    assert _fills(gradcli) == _fills(torch)


def _after_data_write(m):
    # out.data.zero_(): PyTorch does not track a write through .data, so the sigmoid's
    # backward computes with the zeros, silently.
    a = m.tensor([1.0, 2.0], requires_grad=True)
    out = a.sigmoid()
    out.data.zero_()
    out.sum().backward()
    c = m.tensor([1.0, 2.0], requires_grad=True)
    product = c * c
    c.data.add_(1)
    product.sum().backward()
    return a.grad.tolist(), out._version, c.grad.tolist(), c._version


def test_a_write_through_data_is_not_tracked():
    assert _after_data_write(gradcli) == _after_data_write(torch)
    assert _after_data_write(torch) == ([0.0, 0.0], 0, [4.0, 6.0], 0)


def test_a_write_through_detach_still_raises():
    for m in (gradcli, torch):
        c = m.tensor([1.0, 2.0], requires_grad=True)
        out = c.exp()
        out.detach().zero_()
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


_MISTAKES = {
    "matmul of mismatched sizes": lambda m: m.ones(2, 3) @ m.ones(2, 3),
    "an index past the end": lambda m: m.ones(2)[5],
    "float of two numbers": lambda m: float(m.ones(2)),
    "a view of the wrong size": lambda m: m.ones(2).view(3),
    "a leaf written in place": lambda m: m.ones(2, requires_grad=True).sin_(),
    "a second backward": lambda m: [
        y.backward() for y in [m.ones(1, requires_grad=True).exp()] * 2
    ],
    "an unknown keyword": lambda m: m.ones(2).sum(axes=0),
    "a CUDA tensor": lambda m: m.ones(2, device="cuda"),
}


@pytest.mark.parametrize("name", list(_MISTAKES))
def test_errors_are_named_as_pytorchs(name):
    # A tutorial prints type(e).__name__: RuntimeError, not gradcli's EngineError.
    names = []
    for m in (gradcli, torch):
        with pytest.raises(Exception) as caught:
            _MISTAKES[name](m)
        names.append(type(caught.value).__name__)
    assert names[0] == names[1]


def test_a_program_s_traceback_ends_as_pytorch_s(tmp_path, capsys):
    from gradcli.torch import run_program

    program = tmp_path / "twice.py"
    program.write_text(
        "import torch\n"
        "y = torch.tensor(1.0, requires_grad=True).exp()\n"
        "y.backward()\n"
        "y.backward()\n"
    )
    assert run_program(str(program)) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: Trying to backward through the graph a second time")


def _grads_in_a_graph(m):
    x = m.tensor(2.0, requires_grad=True)
    (2 * x * x * x).backward(create_graph=True)
    shown = [repr(x.grad)]
    (x * x).backward(create_graph=True)  # added to the one there: AddBackward0
    shown.append(repr(x.grad))
    y = m.tensor([1.0, 2.0], requires_grad=True)
    (y**3).sum().backward(create_graph=True)
    w = m.tensor(3.0, requires_grad=True)
    (w * 4).backward(create_graph=True)  # a constant gradient: no node
    p = m.tensor(2.0, requires_grad=True)
    q = p * 2
    q.retain_grad()
    (q * q).backward(create_graph=True)
    r = p * 3
    (r * r).backward(create_graph=True, inputs=[r])
    shown += [repr(y.grad), repr(w.grad), repr(q.grad), repr(r.grad)]
    shown.append(type(x.grad.grad_fn.next_functions[1][0]).__name__)
    y.grad.sum().backward()
    return shown + [y.grad.tolist()]


def test_a_gradient_kept_in_a_graph_is_a_copy():
    # (2*x*x*x).backward(create_graph=True); x.grad has grad_fn=<CopyBackwards>.
    ours, theirs = _grads_in_a_graph(gradcli), _grads_in_a_graph(torch)
    assert ours == theirs
    assert theirs[0] == "tensor(24., grad_fn=<CopyBackwards>)"


def _dual_reprs(m):
    fwad = m.autograd.forward_ad
    pairs = [
        (m.tensor([1.0, 2.0, 3.0]), m.ones(3)),
        (m.tensor([1.2413, -0.7137, 0.1698], dtype=m.float64), m.tensor([0.4, 0.3, -0.2])),
        (m.tensor(2.0), m.tensor(1.0)),
        (m.tensor(2.0, dtype=m.float64), m.tensor(0.25, dtype=m.float64)),
        (m.arange(12.0).reshape(3, 4), m.ones(3, 4)),
        (m.tensor([1.5, 2.0, -3.0]), m.tensor([3.0, 4.0, 5.0])),
    ]
    shown = []
    with fwad.dual_level():
        for primal, tangent in pairs:
            dual = fwad.make_dual(primal, tangent.to(primal.dtype))
            shown += [repr(dual), repr(dual * 3), repr(dual * 1e6)]
    return shown


def test_a_dual_tensor_s_tangent_wraps_as_pytorch_s():
    # A long line puts tangent= on a line of its own; a 0-d tangent shows as its number.
    assert _dual_reprs(gradcli) == _dual_reprs(torch)


def _outcome(call):
    try:
        result = call()
    except RuntimeError as error:
        return type(error).__name__, str(error).split(".")[0]
    return "ok", None if result is None else result.tolist()


def _inference(m):
    # PyTorch's docs (torch.inference_mode, and its notes on inference tensors).
    x = m.ones(1, 2, 3, requires_grad=True)
    with m.inference_mode():
        y = x * x
        inside = [y.is_inference(), x.is_inference(), m.is_inference_mode_enabled()]

    @m.inference_mode()
    def func(x):
        return x * x

    out = func(x)
    z = m.ones(2, requires_grad=True)
    with m.inference_mode():
        w = z * 2
        w.add_(1)  # allowed inside
    shown = [inside, y.requires_grad, out.requires_grad, out.is_inference()]
    shown += [
        _outcome(lambda: w.add_(1)),  # written, then refused, as PyTorch does
        _outcome(lambda: w.clone().add_(1)),
        _outcome(lambda: w.detach().add_(1)),
        _outcome(lambda: w.view(2).mul_(2)),
        _outcome(lambda: w.zero_()),
        _outcome(lambda: w.requires_grad_()),
        _outcome(lambda: (w * z).sum()),  # w saved for backward
        _outcome(lambda: (w + z).sum().backward()),  # nothing saved
        _outcome(lambda: z.grad),
        _outcome(lambda: w.exp()),
    ]
    return shown


def test_inference_tensors_raise_where_pytorch_s_do():
    assert _inference(gradcli) == _inference(torch)


def _hooks_and_in_place(m):
    # The autograd notes' tensor hooks on a tensor modified in place, and on a leaf.
    seen = []
    t = m.tensor(1.0, requires_grad=True).sin()
    t.cos_()
    t.register_hook(lambda g: seen.append(g.item()))
    t.backward()
    t = m.tensor(1.0, requires_grad=True).sin()
    t.register_hook(lambda g: seen.append(round(g.item(), 6)))
    t.cos_()
    t.backward()
    a = m.tensor(1.0, requires_grad=True)
    a.register_hook(lambda g: seen.append(g.item()))
    seen.append(_outcome(lambda: a.mul_(2)))
    with m.no_grad():
        a.mul_(2)
    (a * 3).backward()
    b = m.tensor([1.0, 2.0], requires_grad=True)
    b.register_hook(lambda g: g * 2)
    c = b * b
    with m.no_grad():
        b.add_(1)
    seen.append(_outcome(lambda: c.sum().backward()))
    d = m.tensor([1.0, 2.0], requires_grad=True)
    e = d.clone()
    e.register_hook(lambda g: g * 10)
    e.add_(1)
    (e * 2).sum().backward()
    return seen + [a.grad.item(), b.grad, d.grad.tolist()]


def test_hooks_on_tensors_written_in_place_as_pytorch_s():
    assert _hooks_and_in_place(gradcli) == _hooks_and_in_place(torch)


def _dirty(m):
    class TimesTwo(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    p = m.tensor([1.0, 2.0], requires_grad=True)
    out = TimesTwo.apply(p.clone())
    shown = [repr(out), type(out.grad_fn).__name__]
    out.sum().backward()
    leaf = _outcome(lambda: TimesTwo.apply(m.ones(2, requires_grad=True)))
    return shown + [p.grad.tolist(), leaf]


def test_mark_dirty_prints_as_pytorch_s():
    assert _dirty(gradcli) == _dirty(torch)


def _hook_writes_in_place(m):
    # A hook that writes its gradient in place writes the array the node gave every
    # input: (a*3 + d).backward() with d's hook g.mul_(100) gives a.grad 300.
    shown = []
    for expr in (
        lambda a, d, e: a * 3 + d,
        lambda a, d, e: d + a * 3,
        lambda a, d, e: a + d,  # a took its gradient before d's hook: a copy
        lambda a, d, e: d + a,
        lambda a, d, e: d * d + d + a * 3,  # d's gradient a sum: nothing shared
        lambda a, d, e: (a * 3 + d) * 2,
        lambda a, d, e: a.exp() + d,
        lambda a, d, e: (a * 3).expand(2).sum() + d,
        lambda a, d, e: a * 3 + d + e,
        lambda a, d, e: e + a * 3 + d,
        lambda a, d, e: a * 3 - d,
        # sum's gradient is one number spread by a view, then split by stack or cat: the
        # hook writes the number every view reads, leaves' views too.
        lambda a, d, e: m.stack([a * 3, d]).sum(),
        lambda a, d, e: m.stack([d, a]).sum(),
        lambda a, d, e: m.cat([(a * 3).reshape(1), d.reshape(1), e.reshape(1)]).sum(),
        lambda a, d, e: m.stack([a * 3, d]).sum() * 2 + e,
        lambda a, d, e: a.sum() + d.sum(),
        lambda a, d, e: m.stack([a * 3, d]).mean(),  # mean's gradient divides: a new number
        lambda a, d, e: (m.stack([a * 3, d]) * 2).sum(),
    ):
        a, d, e = (m.tensor(v, requires_grad=True) for v in (1.0, 2.0, 2.0))
        d.register_hook(lambda g: g.mul_(100))
        e.register_hook(lambda g: g.add_(1))
        expr(a, d, e).backward()
        shown.append([None if t.grad is None else t.grad.item() for t in (a, d, e)])
    return shown


def test_a_hook_writing_its_gradient_reaches_the_other_operand():
    assert _hook_writes_in_place(gradcli) == _hook_writes_in_place(torch)
    assert _hook_writes_in_place(torch)[0] == [300.0, 100.0, None]


def _per_sample_grads(m):
    # torch.func's per-sample gradients with relu: a sample where it is off gives
    # -0. where its input is negative (the gradient of a dot is a product).
    X = m.tensor([[1.0, -2.0], [-3.0, 0.5], [2.0, 1.0]])
    w = m.tensor([0.5, 1.0])
    shown = []
    for weights in (w, w.clone().requires_grad_()):
        one = m.func.grad(lambda w, x: m.relu(w @ x))
        shown.append(repr(m.func.vmap(one, in_dims=(None, 0))(weights, X)))
    both = m.func.grad(lambda w, x: m.relu(m.dot(w, x)))
    shown.append(repr(m.func.vmap(both)(X.flip(0).requires_grad_(), X)))
    return shown


def test_vmap_of_grad_keeps_pytorch_s_signed_zeros_and_node():
    assert _per_sample_grads(gradcli) == _per_sample_grads(torch)
    assert "grad_fn=<MulBackward0>" in _per_sample_grads(torch)[1]


def _matrix_times_points(m):
    # The same with a matrix times each sample's vector: PyTorch's rule is mv's, whose
    # gradient for the matrix is an outer product (-0. kept), for the vector a product of
    # the points (PermuteBackward0).
    W = m.tensor([[1.0, -2.0], [-3.0, 4.0], [0.5, -1.0]])
    X = m.tensor([[1.0, 1.0], [-1.0, -1.0], [2.0, -3.0], [-5.0, 0.1]])
    shown = []
    for weights in (W, W.clone().requires_grad_()):
        for argnums in (0, 1):
            one = m.func.grad(lambda w, x: m.relu(w @ x).sum(), argnums=argnums)
            shown.append(repr(m.func.vmap(one, in_dims=(None, 0))(weights, X)))
    each = m.func.grad(lambda w, x: (w @ x).pow(2).sum())
    shown.append(repr(m.func.vmap(each)(m.stack([W, -W, W * 0, W]), X)))
    return shown


def test_vmap_of_grad_of_a_matrix_times_each_vector_keeps_pytorch_s_zeros_and_nodes():
    ours, theirs = _matrix_times_points(gradcli), _matrix_times_points(torch)
    assert ours == theirs
    assert "-0." in theirs[0] and "grad_fn=<MulBackward0>" in theirs[2]
