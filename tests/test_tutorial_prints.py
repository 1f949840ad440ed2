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
