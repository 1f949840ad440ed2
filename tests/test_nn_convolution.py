"""Convolution and pooling against PyTorch 2.13: ``F.conv1d``/``conv2d``/``max_pool2d``/
``avg_pool2d`` values and gradients (float64 to a relative 1e-12, float32 as close as two
summation orders allow), ``nn.Conv2d``'s initial weights bit for bit from the same seed and
its repr, and a LeNet-like model trained 20 SGD steps ending on PyTorch's parameters."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

CASES = [
    ("conv2d", [(2, 3, 7, 6), (4, 3, 3, 2), (4,)], {}),
    ("conv2d", [(3, 7, 6), (4, 3, 3, 3)], {"padding": 1}),
    ("conv2d", [(2, 2, 9, 8), (4, 2, 3, 2), (4,)],
     {"stride": (2, 1), "padding": (2, 1), "dilation": (1, 2)}),
    ("conv2d", [(1, 4, 6, 6), (6, 2, 3, 3), (6,)], {"groups": 2, "padding": "same"}),
    ("conv2d", [(1, 2, 5, 6), (3, 2, 2, 4)], {"padding": "same", "dilation": 1}),
    ("conv1d", [(2, 3, 10), (5, 3, 4), (5,)], {"stride": 3, "padding": 2, "dilation": 2}),
    ("conv1d", [(3, 9), (2, 3, 2)], {"padding": "same"}),
    ("max_pool2d", [(2, 3, 7, 8)], {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("max_pool2d", [(3, 6, 7)], {"kernel_size": (2, 3), "dilation": (2, 1), "ceil_mode": True}),
    ("avg_pool2d", [(2, 3, 7, 8)], {"kernel_size": 3, "stride": 2, "padding": 1}),
    ("avg_pool2d", [(1, 2, 7, 6)], {"kernel_size": 3, "stride": 2, "padding": 1,
                                    "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d", [(1, 2, 5, 5)], {"kernel_size": 2, "divisor_override": 3}),
]  # fmt: skip


def _run(lib, name, arrays, kwargs, dtype):
    inputs = [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]
    out = getattr(lib.nn.functional, name)(*inputs, **kwargs)
    weights = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)),
                         dtype=getattr(lib, dtype))  # fmt: skip
    (out * weights).sum().backward()
    return [out.detach().numpy()] + [x.grad.numpy() for x in inputs], type(out.grad_fn).__name__


@pytest.mark.parametrize("name, shapes, kwargs", CASES, ids=[c[0] for c in CASES])
def test_values_gradients_and_grad_fn_agree_with_pytorch(name, shapes, kwargs):
    rng = np.random.default_rng(len(str(kwargs)))
    arrays = [rng.standard_normal(s) for s in shapes]
    mine, my_node = _run(gradcli, name, arrays, kwargs, "float64")
    theirs, their_node = _run(torch, name, arrays, kwargs, "float64")
    assert my_node == their_node
    for a, b in zip(mine, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)
    # float32: the poolings add in PyTorch's order, to the bit; PyTorch sums a convolution in
    # its own order (blocked matrix products), so a few float32 roundings bound the difference.
    mine, _ = _run(gradcli, name, arrays, kwargs, "float32")
    theirs, _ = _run(torch, name, arrays, kwargs, "float32")
    for a, b in zip(mine, theirs, strict=True):
        assert a.dtype == b.dtype == np.float32
        if "pool" in name:
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "x",
    [
        [[1.0, 3.0, 3.0], [3.0, 0.0, 2.0], [1.0, 3.0, 3.0]],
        # PyTorch's kernel moves to each nan it meets: a window's last nan wins, even over inf
        [[np.inf, np.nan, 1, np.nan], [2, 3, np.nan, 5], [np.nan, -np.inf, 0, 0],
         [1, np.inf, 0, np.nan]],
    ],
    ids=["ties", "nan"],
)  # fmt: skip
def test_max_pool2d_sends_the_gradient_to_the_first_largest_entry_as_pytorch(x):
    x = np.array([[x]])
    grads = []
    for lib in (gradcli, torch):
        t = lib.tensor(x, requires_grad=True)
        out, index = lib.nn.functional.max_pool2d(t, 2, 1, return_indices=True)
        out.sum().backward()
        grads.append((out.detach().numpy(), t.grad.numpy(), index.numpy()))
    for mine, theirs in zip(*grads, strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_second_derivatives_agree_with_pytorch():
    rng = np.random.default_rng(5)
    x0, w0 = rng.standard_normal((1, 2, 5, 5)), rng.standard_normal((3, 2, 2, 2))
    found = []
    for lib in (gradcli, torch):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(w0, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, stride=1, padding=1)
        z = lib.nn.functional.avg_pool2d(lib.tanh(y), 2) + lib.nn.functional.max_pool2d(y, 2)
        gx, gw = lib.autograd.grad((z**2).sum(), (x, w), create_graph=True)
        hx, hw = lib.autograd.grad((gx**3).sum() + (gw * gw).sum(), (x, w))
        found.append([t.detach().numpy() for t in (gx, gw, hx, hw)])
    for a, b in zip(*found, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv_layers_start_from_pytorchs_weights_bit_for_bit_and_print_as_pytorch(dtype):
    def make(nn, dt):
        return [nn.Conv2d(3, 6, 5, dtype=dt), nn.Conv2d(4, 8, (3, 2), 2, 1, 2, 2, False, dtype=dt),
                nn.Conv1d(2, 5, 3, padding="same", dtype=dt),
                nn.Conv2d(2, 3, 3, padding_mode="reflect", dtype=dt),
                nn.MaxPool2d(2), nn.MaxPool2d((2, 3), 1, 1, 2, ceil_mode=True),
                nn.AvgPool2d(3, 2, 1), nn.BatchNorm2d(6, dtype=dt)]  # fmt: skip

    torch.manual_seed(7)
    theirs = make(torch.nn, getattr(torch, dtype))
    gradcli.manual_seed(7)
    mine = make(gradcli.nn, getattr(gradcli, dtype))
    for ours, their in zip(mine, theirs, strict=True):
        assert repr(ours) == repr(their)
        for (name, a), (_, b) in zip(ours.named_parameters(), their.named_parameters()):
            assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes(), name


def test_padding_mode_and_batch_norm_2d_agree_with_pytorch():
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal((2, 2, 6, 5))
    found = []
    for lib in (gradcli, torch):
        lib.manual_seed(3)
        conv = lib.nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular", dtype=lib.float64)
        bn = lib.nn.BatchNorm2d(3, momentum=0.2, dtype=lib.float64)
        x = lib.tensor(x0, requires_grad=True)
        y = bn(conv(x))
        (y * y.detach().flip(0)).sum().backward()
        found.append([y.detach().numpy(), x.grad.numpy(), conv.weight.grad.numpy(),
                      bn.running_mean.numpy(), bn.running_var.numpy()])  # fmt: skip
    for a, b in zip(*found, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


LENET = """
nn = torch.nn
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(4, 6, 3), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(6, 3),
).double()
x = torch.randn(8, 1, 8, 8, dtype=torch.float64)
labels = torch.tensor([0, 1, 2, 1, 0, 2, 2, 1])
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
for _ in range(20):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
params = [p.detach().numpy().copy() for p in model.parameters()]
"""


def test_a_lenet_like_model_trains_to_pytorchs_parameters():
    found = []
    for lib in (gradcli, torch):
        namespace = {"torch": lib}
        exec(LENET, namespace)
        found.append(namespace)
    mine, theirs = found
    np.testing.assert_allclose(mine["losses"], theirs["losses"], rtol=1e-10)
    assert mine["losses"][-1] < 0.8 * mine["losses"][0]  # it learns
    for a, b in zip(mine["params"], theirs["params"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _per_sample_and_ensembles(lib):
    func, F = lib.func, lib.nn.functional
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 2, 6, 6)))
    y = lib.tensor(rng.standard_normal((4, 3)))
    lib.manual_seed(0)
    model = lib.nn.Sequential(
        lib.nn.Conv2d(2, 3, 3, padding=1), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
        lib.nn.AvgPool2d(3), lib.nn.Flatten(),
    ).double()  # fmt: skip
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        return ((func.functional_call(model, p, (xi.unsqueeze(0),)) - yi) ** 2).sum()

    grads = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    ws = lib.tensor(rng.standard_normal((5, 3, 2, 3, 3)))
    bs = lib.tensor(rng.standard_normal((5, 3)))
    ensemble = func.vmap(lambda w, b: F.conv2d(x, w, b, padding="same"))(ws, bs)
    each = func.vmap(lambda w, xi: F.conv1d(xi, w, stride=2))(ws[:4, :, :, 0], x[:, :, 0])
    return [v.numpy() for v in grads.values()] + [ensemble.numpy(), each.numpy()]


def test_vmap_gives_per_sample_gradients_and_ensembles_as_pytorch():
    for a, b in zip(_per_sample_and_ensembles(gradcli), _per_sample_and_ensembles(torch),
                    strict=True):  # fmt: skip
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


BAD_CALLS = [
    "F.max_pool2d(x, 0)",
    "F.max_pool2d(x, 2, dilation=0)",
    "F.max_pool2d(x, 7)",
    "F.avg_pool2d(x, 2, padding=2)",
    "F.conv2d(x, lib.ones(3, 3, 2, 2))",
    "F.conv2d(x, lib.ones(3, 2, 7, 2))",
    "F.conv2d(x, lib.ones(3, 2, 2, 2), stride=(1, 2, 3))",
    "F.conv2d(x, lib.ones(3, 2, 2, 2), stride=2, padding='same')",
    "F.conv2d(x, lib.ones(3, 2, 2, 2), padding='full')",
    "F.conv2d(x, lib.ones(3, 1, 2, 2), groups=2)",
    "F.conv2d(x, lib.ones(3, 2, 2, 2), lib.ones(2))",
    "F.conv2d(x[0, 0], lib.ones(3, 2, 2, 2))",
    "F.conv1d(x, lib.ones(3, 2, 2))",
]


@pytest.mark.parametrize("call", BAD_CALLS)
def test_bad_arguments_raise_pytorchs_message(call):
    messages = []
    for lib in (gradcli, torch):
        namespace = {"lib": lib, "F": lib.nn.functional, "x": lib.ones(1, 2, 5, 5)}
        with pytest.raises(Exception) as raised:  # noqa: PT011  (each library's own class)
            eval(call, namespace)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
