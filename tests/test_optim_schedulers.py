"""``gradcli.optim.lr_scheduler``'s OneCycleLR, CyclicLR, ReduceLROnPlateau, LinearLR,
ConstantLR and SequentialLR against PyTorch 2.13: a float64 training loop sees PyTorch's
learning rates (and cycled momenta) exactly, float for float, and ends on its parameters to
a relative 1e-12."""

from __future__ import annotations

import numpy as np
import pytest

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

SGD = "SGD(p, lr=0.05, momentum=0.9)"
ADAM = "Adam(p, lr=0.01)"
SCHEDULERS = {
    "one_cycle_cos_sgd": (SGD, "OneCycleLR(opt, max_lr=0.1, total_steps=40)"),
    "one_cycle_linear_adam": (
        ADAM,
        "OneCycleLR(opt, max_lr=0.05, epochs=4, steps_per_epoch=10, anneal_strategy='linear')",
    ),
    "one_cycle_three_phase": (
        SGD,
        "OneCycleLR(opt, 0.1, total_steps=40, pct_start=0.25, three_phase=True, div_factor=10)",
    ),
    "one_cycle_no_momentum": (ADAM, "OneCycleLR(opt, 0.02, 40, cycle_momentum=False)"),
    "cyclic_triangular": (SGD, "CyclicLR(opt, 0.01, 0.1, step_size_up=7)"),
    "cyclic_triangular2_adam": (
        ADAM,
        "CyclicLR(opt, 0.001, 0.02, step_size_up=5, step_size_down=3, mode='triangular2')",
    ),
    "cyclic_exp_range": (
        SGD,
        "CyclicLR(opt, 0.01, 0.1, 4, mode='exp_range', gamma=0.97, cycle_momentum=False)",
    ),
    "linear": (SGD, "LinearLR(opt, start_factor=0.25, total_iters=12)"),
    "linear_down": (ADAM, "LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=30)"),
    "constant": (SGD, "ConstantLR(opt, factor=0.5, total_iters=10)"),
    "sequential_warmup_cosine": (
        SGD,
        "SequentialLR(opt, [lr_scheduler.LinearLR(opt, 0.1, total_iters=5), "
        "lr_scheduler.CosineAnnealingLR(opt, T_max=20)], milestones=[5])",
    ),
    "sequential_three": (
        ADAM,
        "SequentialLR(opt, [lr_scheduler.ConstantLR(opt, 0.1, 4), lr_scheduler.ExponentialLR"
        "(opt, 0.9), lr_scheduler.StepLR(opt, 5)], milestones=[6, 20])",
    ),
}


def _momentum(opt):
    group = opt.param_groups[0]
    return group["betas"][0] if "betas" in group else group["momentum"]


def _train(lib, optimiser, scheduler, steps=40, metrics=None):
    lib.manual_seed(0)
    x = lib.randn(32, 5, dtype=lib.float64)
    y = lib.randn(32, 2, dtype=lib.float64)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2)).double()
    opt = eval("optim." + optimiser, {"optim": lib.optim, "p": net.parameters()})
    names = {"lr_scheduler": lib.optim.lr_scheduler, "opt": opt}
    sched = eval("lr_scheduler." + scheduler, names)
    seen = [(sched.get_last_lr(), _momentum(opt))]
    for step in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[step])
        seen.append((sched.get_last_lr(), opt.param_groups[0]["lr"], _momentum(opt)))
    params = np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])
    return params, seen


@pytest.mark.parametrize("pair", list(SCHEDULERS.values()), ids=list(SCHEDULERS))
def test_a_scheduler_gives_pytorchs_rates_momenta_and_parameters(pair):
    ours, our_rates = _train(gradcli, *pair)
    theirs, their_rates = _train(torch, *pair)
    assert our_rates == their_rates  # the same float arithmetic, in the same order
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


# a validation loss that improves, stalls, wobbles and improves again
METRICS = [1.0, 0.8, 0.7, 0.7, 0.69995, 0.71, 0.7, 0.6, 0.6, 0.6, 0.61, 0.6, 0.5, 0.5, 0.5, 0.5,
           0.5, 0.5, 0.49, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]  # fmt: skip
PLATEAU = {
    "defaults_patience_2": "ReduceLROnPlateau(opt, patience=2)",
    "abs_threshold_cooldown": (
        "ReduceLROnPlateau(opt, factor=0.5, patience=1, threshold=0.05, threshold_mode='abs', "
        "cooldown=2)"
    ),
    "max_mode_min_lr": "ReduceLROnPlateau(opt, mode='max', factor=0.3, patience=0, min_lr=1e-3)",
    "eps_stops_tiny_steps": "ReduceLROnPlateau(opt, factor=0.5, patience=0, eps=0.02)",
}


@pytest.mark.parametrize("scheduler", list(PLATEAU.values()), ids=list(PLATEAU))
@pytest.mark.parametrize("optimiser", [SGD, ADAM], ids=["sgd", "adam"])
def test_reduce_on_plateau_gives_pytorchs_rates_and_parameters(scheduler, optimiser):
    ours, our_rates = _train(gradcli, optimiser, scheduler, len(METRICS), METRICS)
    theirs, their_rates = _train(torch, optimiser, scheduler, len(METRICS), METRICS)
    assert our_rates == their_rates
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


def test_a_wrong_schedule_is_pytorchs_error():
    p = [gradcli.zeros(2, requires_grad=True)]
    opt = gradcli.optim.SGD(p, lr=0.1)
    sched = gradcli.optim.lr_scheduler
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        sched.OneCycleLR(opt, 0.1)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        sched.ReduceLROnPlateau(opt, factor=2)
    one_cycle = sched.OneCycleLR(opt, 0.1, total_steps=2)
    one_cycle.step()
    one_cycle.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total"):
        one_cycle.step()
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        sched.CyclicLR(gradcli.optim.Adagrad(p), 0.01, 0.1)
