"""``gradcli.optim`` against PyTorch 2.13: the same float64 training loop (an MLP, 50 steps,
each optimiser and scheduler) ends on PyTorch's parameters to a relative 1e-12 (an
absolute 1e-13 for the entries near zero), and what a program prints of an optimiser
(its repr, param_groups, state_dict, the learning rates) is PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
from test_engine_programs import run

import gradcli

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)

OPTIMISERS = {
    "sgd": "SGD(p, lr=0.1)",
    "sgd_momentum_dampening": "SGD(p, lr=0.05, momentum=0.9, dampening=0.1)",
    "sgd_nesterov_weight_decay": "SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)",
    "sgd_maximize": "SGD(p, lr=0.01, maximize=True)",
    "adam": "Adam(p, lr=0.01)",
    "adam_amsgrad_weight_decay": "Adam(p, lr=0.01, amsgrad=True, weight_decay=0.01)",
    "adamw": "AdamW(p, lr=0.01)",
    "rmsprop": "RMSprop(p, lr=0.01)",
    "rmsprop_centered_momentum": (
        "RMSprop(p, lr=0.01, momentum=0.5, centered=True, weight_decay=0.01)"
    ),
    "adagrad": (
        "Adagrad(p, lr=0.1, lr_decay=0.01, weight_decay=0.01, initial_accumulator_value=0.1)"
    ),
    "adadelta": "Adadelta(p)",
    "adadelta_weight_decay_maximize": (
        "Adadelta(p, lr=0.5, rho=0.95, eps=1e-5, weight_decay=0.01, maximize=True)"
    ),
}
SCHEDULERS = {
    "step": "StepLR(opt, 10, 0.5)",
    "exponential": "ExponentialLR(opt, 0.95)",
    "cosine": "CosineAnnealingLR(opt, T_max=20, eta_min=0.001)",
    "lambda": "LambdaLR(opt, lambda epoch: 1 / (1 + epoch))",
    "multistep": "MultiStepLR(opt, [5, 15, 15])",
    "linear_decay": "LinearLR(opt, start_factor=1.0, end_factor=0.5, total_iters=30)",
    "linear_warmup": "LinearLR(opt, start_factor=0.1, total_iters=8)",
    "multiplicative": "MultiplicativeLR(opt, lambda epoch: 0.95 if epoch % 2 else 0.9)",
}


def _train(lib, optimiser, scheduler=None, steps=50):
    lib.manual_seed(0)
    x = lib.randn(32, 5, dtype=lib.float64)
    y = lib.randn(32, 2, dtype=lib.float64)
    nn = lib.nn
    net = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2)).double()
    opt = eval("optim." + optimiser, {"optim": lib.optim, "p": net.parameters()})
    sched = None
    if scheduler:
        sched = eval(
            "lr_scheduler." + scheduler, {"lr_scheduler": lib.optim.lr_scheduler, "opt": opt}
        )
    loss_fn = nn.MSELoss()
    rates = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        if sched:
            sched.step()
            rates.append(sched.get_last_lr()[0])
    params = np.concatenate([p.detach().numpy().ravel() for p in net.parameters()])
    return params, loss.item(), rates


@pytest.mark.parametrize("optimiser", list(OPTIMISERS.values()), ids=list(OPTIMISERS))
def test_a_float64_training_loop_ends_on_pytorchs_parameters(optimiser):
    ours, our_loss, _ = _train(gradcli, optimiser)
    theirs, their_loss, _ = _train(torch, optimiser)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)
    assert our_loss == pytest.approx(their_loss, rel=1e-12)


@pytest.mark.parametrize("scheduler", list(SCHEDULERS.values()), ids=list(SCHEDULERS))
def test_a_scheduler_gives_pytorchs_learning_rates_and_parameters(scheduler):
    optimiser = OPTIMISERS["sgd_nesterov_weight_decay"]
    ours, _, our_rates = _train(gradcli, optimiser, scheduler)
    theirs, _, their_rates = _train(torch, optimiser, scheduler)
    assert our_rates == their_rates  # the same float arithmetic, in the same order
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


PRINTED = """
nn, optim = torch.nn, torch.optim
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).double()
x = torch.randn(8, 3, dtype=torch.float64)
opt = optim.SGD([{"params": net[0].parameters()},
                 {"params": net[2].parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
print(opt)
print([len(g["params"]) for g in opt.param_groups], opt.param_groups[1]["lr"])
print(opt.defaults)
for make in [lambda p: optim.Adam(p, lr=0.01), lambda p: optim.AdamW(p),
             lambda p: optim.RMSprop(p), lambda p: optim.Adagrad(p),
             lambda p: optim.Adadelta(p, rho=0.95)]:
    o = make(net.parameters())
    print(o)
    net(x).sum().backward()
    o.step(); o.step()
    state = o.state_dict()
    print(sorted(state), state["param_groups"])
    print({k: sorted(v) for k, v in state["state"].items()})
    print(state["state"][0]["step"])
    o.zero_grad()
loss = net(x).pow(2).mean()
loss.backward()
opt.step()
print(opt.state_dict()["state"][1]["momentum_buffer"])
opt.zero_grad(set_to_none=False)
print(net[0].bias.grad)
opt.zero_grad()
print(net[0].bias.grad)

def closure():
    opt.zero_grad()
    loss = net(x).pow(2).mean()
    loss.backward()
    return loss
print(opt.step(closure))
saved = opt.state_dict()
twin = optim.SGD([{"params": net[0].parameters()}, {"params": net[2].parameters()}], lr=0.3)
twin.load_state_dict(saved)
print(twin.param_groups[1]["lr"], twin.state[net[2].bias]["momentum_buffer"])
sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for _ in range(5):
    opt.step()
    sched.step()
    print(sched.get_last_lr(), sched.last_epoch)
print(sched.state_dict())
cos = optim.lr_scheduler.CosineAnnealingLR(optim.SGD(net.parameters(), lr=1.0), T_max=3)
print([cos.step() or cos.get_last_lr()[0] for _ in range(8)])
for bad in [lambda: optim.SGD(net.parameters(), lr=-1), lambda: optim.SGD([], lr=0.1),
            lambda: optim.Adam(net.parameters(), betas=(1.0, 0.9)),
            lambda: optim.Adadelta(net.parameters(), rho=1.5),
            lambda: optim.SGD(net.parameters(), lr=0.1, nesterov=True)]:
    try:
        bad()
    except ValueError as error:
        print(error)
"""


def test_what_a_program_prints_of_an_optimiser_is_pytorchs():
    assert run(PRINTED, gradcli) == run(PRINTED, torch)
