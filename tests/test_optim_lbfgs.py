"""``gradcli.optim.LBFGS`` against PyTorch 2.13's ``torch/optim/lbfgs.py``.

On Rosenbrock's function, whose gradient both compute to the bit, the port follows every
iteration (the two-loop recursion, the strong-Wolfe line search's bracketing and zoom, the
stopping tests) to the same parameters bit for bit and the same counts of evaluations. On a
small network the gradients themselves differ from PyTorch's in the last bit (another
order of summation), which L-BFGS's curvature pairs amplify; a few iterations still end on
PyTorch's parameters to a relative 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)


def _rosenbrock(lib, steps, dtype="float64", **options):
    point = lib.tensor([-1.5, 2.0], dtype=getattr(lib, dtype), requires_grad=True)
    opt = lib.optim.LBFGS([point], **options)

    def closure():
        opt.zero_grad()
        loss = (1 - point[0]) ** 2 + 100 * (point[1] - point[0] ** 2) ** 2
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(steps)]
    state = opt.state[point]
    return point.detach().numpy().copy(), losses, state["func_evals"], state["n_iter"]


ROSENBROCK = {
    "plain": dict(lr=1, max_iter=20),
    "short_history": dict(lr=0.5, max_iter=15, history_size=3),
    "strong_wolfe": dict(lr=1, max_iter=20, line_search_fn="strong_wolfe"),
    "strong_wolfe_short_history": dict(max_iter=12, history_size=2, line_search_fn="strong_wolfe"),
    "tolerance_change": dict(max_iter=50, tolerance_change=1e-3),
    "tolerance_grad": dict(max_iter=100, tolerance_grad=1e-2, line_search_fn="strong_wolfe"),
    "max_eval": dict(max_iter=40, max_eval=9, line_search_fn="strong_wolfe"),
}


@pytest.mark.parametrize("options", list(ROSENBROCK.values()), ids=list(ROSENBROCK))
def test_lbfgs_on_rosenbrocks_function_is_pytorchs_bit_for_bit(options):
    ours = _rosenbrock(gradcli, 3, **options)
    theirs = _rosenbrock(torch, 3, **options)
    assert ours[0].tobytes() == theirs[0].tobytes(), (ours[0], theirs[0])
    assert ours[1:] == theirs[1:]


def test_a_float32_run_stays_close_to_pytorchs():
    ours = _rosenbrock(gradcli, 1, "float32", max_iter=6, line_search_fn="strong_wolfe")
    theirs = _rosenbrock(torch, 1, "float32", max_iter=6, line_search_fn="strong_wolfe")
    np.testing.assert_allclose(ours[0], theirs[0], rtol=0, atol=1e-5)
    assert ours[2:] == theirs[2:]


def _train(lib, **options):
    lib.manual_seed(0)
    x = lib.randn(32, 5, dtype=lib.float64)
    y = lib.randn(32, 2, dtype=lib.float64)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2)).double()
    opt = lib.optim.LBFGS(net.parameters(), **options)

    def closure():
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(2)]
    params = np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])
    return params, losses


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_a_float64_training_loop_ends_on_pytorchs_parameters(line_search_fn):
    options = dict(lr=0.8, max_iter=5, history_size=10, line_search_fn=line_search_fn)
    ours, our_losses = _train(gradcli, **options)
    theirs, their_losses = _train(torch, **options)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-12)


def test_lbfgs_refuses_what_pytorchs_refuses():
    a = gradcli.zeros(2, requires_grad=True)
    b = gradcli.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        gradcli.optim.LBFGS([{"params": [a]}, {"params": [b], "lr": 0.1}])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        gradcli.optim.LBFGS([a], lr=-1)
    opt = gradcli.optim.LBFGS([a], line_search_fn="backtracking")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(lambda: ((a - 1) ** 2).sum().backward() or ((a - 1) ** 2).sum())
    assert repr(opt).splitlines()[:3] == ["LBFGS (", "Parameter Group 0", "    history_size: 100"]
