"""The layers of torch.nn.functional called from the language (linear, conv1d, conv2d, the
pools, layer_norm): value and gradient of every input against PyTorch's,
and a bad shape or argument as one line at the call."""

from __future__ import annotations

import re

import numpy as np
import pytest

RNG = np.random.default_rng(11)
IMAGE = RNG.uniform(-1, 1, (1, 2, 5, 5)).round(3)
KERNEL = RNG.uniform(-1, 1, (3, 2, 2, 3)).round(3)
SIGNAL = RNG.uniform(-1, 1, (2, 6)).round(3)

# (program, its inputs, the same in PyTorch: f(F, **inputs))
CALLS = [
    ("linear(x, W, b)", {"x": RNG.uniform(-1, 1, (2, 4)), "W": RNG.uniform(-1, 1, (3, 4)),
                         "b": [0.5, -1, 2]}, lambda F, x, W, b: F.linear(x, W, b)),
    ("linear(x, W)", {"x": [1, 2, 4], "W": [[1, 2, 3], [4, 5, 6]]},
     lambda F, x, W: F.linear(x, W)),
    ("conv2d(x, w, c, stride=[2, 1], padding=1)", {"x": IMAGE, "w": KERNEL, "c": [1, 0, -1]},
     lambda F, x, w, c: F.conv2d(x, w, c, stride=(2, 1), padding=1)),
    ('conv2d(x, w, padding="same", dilation=2)', {"x": IMAGE, "w": KERNEL},
     lambda F, x, w: F.conv2d(x, w, padding="same", dilation=2)),
    ("conv1d(x, w, stride=2)", {"x": SIGNAL, "w": KERNEL[:, :, 0]},
     lambda F, x, w: F.conv1d(x, w, stride=2)),
    ("max_pool2d(x, [2, 3], stride=1, padding=1)", {"x": IMAGE},
     lambda F, x: F.max_pool2d(x, (2, 3), stride=1, padding=1)),
    ("avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False)", {"x": IMAGE},
     lambda F, x: F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False)),
    # A 1-d input with weight and bias: the weight's gradient sums over no leading dims.
    ("layer_norm(x, [3], w, b) * [1, 2, 3]", {"x": [1, 2, 4], "w": [1, 2, 3], "b": [0, 1, 0]},
     lambda F, x, w, b: F.layer_norm(x, [3], w, b) * x.new_tensor([1, 2, 3])),
    ("adaptive_avg_pool2d(x, [2, 3]) ** 2", {"x": IMAGE},
     lambda F, x: F.adaptive_avg_pool2d(x, [2, 3]) ** 2),
    ("adaptive_max_pool2d(x, 3)", {"x": IMAGE}, lambda F, x: F.adaptive_max_pool2d(x, 3)),
    ("layer_norm(x, [2, 5], eps=0.1) ** 3", {"x": IMAGE[0, 0, :2]},
     lambda F, x: F.layer_norm(x, [2, 5], eps=0.1) ** 3),
]  # fmt: skip


@pytest.mark.parametrize(("program", "inputs", "reference"), CALLS, ids=[c[0] for c in CALLS])
def test_a_layer_call_matches_pytorch(gradcli_json, program, inputs, reference):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference of the layers")
    leaves = {
        n: torch.tensor(np.asarray(v, float), dtype=torch.float64, requires_grad=True)
        for n, v in inputs.items()
    }
    out = reference(torch.nn.functional, **leaves).sum()
    out.backward()
    options = [a for n, v in inputs.items() for a in (f"--{n}", str(np.asarray(v).tolist()))]
    r = gradcli_json("grad", f"sum({program})", *options)
    np.testing.assert_allclose(r["value"], out.item(), rtol=1e-12)
    for name, leaf in leaves.items():
        np.testing.assert_allclose(r["grad"][name], leaf.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("program", "message", "column"),
    [
        ("linear(x, [[1, 2]])", "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x1)", 1),
        ("conv2d(x, [[[[1]]]])", "Expected 3D (unbatched) or 4D (batched) input to conv2d", 1),
        ('conv2d([[[1, 2]]], [[[[1]]]], padding="full")', "Invalid padding string: 'full'", 1),
        ("conv2d([[[1, 2]]], [[[[1]]]], stride=1.5)", "stride must be an integer, not 1.5", 38),
        ("max_pool2d([[[1, 2]]], 3)", "Output size is too small", 1),
        ("layer_norm(x, [4])", "Given normalized_shape=[4], expected input with shape [*, 4]", 1),
        ("layer_norm(x, 'last')", "normalized_shape takes a value, not text in quotes", 15),
        # PyTorch does not promote a real weight to a complex input's dtype: neither does gradcli.
        (
            "real(conv1d(reshape(x, [1, 3]) * 1j, [[[1, 2]]]))",
            "Input type (c10::complex<double>) and weight type (double) should be the same",
            6,
        ),
    ],
)
def test_a_bad_layer_call_is_one_line_at_the_call(gradcli, program, message, column):
    bindings = ["--x", "[1, 2, 4]"] if re.search(r"\bx\b", program) else []
    result = gradcli("grad", f"sum({program})", *bindings)
    assert result.exit_code == 2
    first, source, caret = result.stderr.splitlines()[:3]
    assert first.startswith("error: ") and message in first and "Traceback" not in result.stderr
    assert caret.index("^") == 2 + 4 + column - 1  # "  " and "sum(" before the program
