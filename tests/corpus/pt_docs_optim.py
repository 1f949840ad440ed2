# follows: PyTorch documentation, "torch.optim" (How to use an optimizer: Constructing
#   it, Per-parameter options, Taking an optimization step, optimizer.step(closure);
#   How to adjust learning rate), https://pytorch.org/docs/stable/optim.html
"""Optimisers built from a model's parameters and from parameter groups with their own
options, a step after backward and a step with a closure, and learning-rate schedulers
chained (ExponentialLR then MultiStepLR) as the page shows, in float64."""

import torch
from torch import nn, optim
from torch.optim.lr_scheduler import ExponentialLR, MultiStepLR, StepLR

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 1))
inputs = torch.randn(16, 3)
targets = inputs.sum(1, keepdim=True).sin()
loss_fn = nn.MSELoss()

optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
print(optimizer)
optimizer = optim.Adam([var for var in model.parameters()], lr=0.0001)
print(len(optimizer.param_groups[0]["params"]))

base, classifier = model[0], model[2]
optimizer = optim.SGD(
    [{"params": base.parameters(), "lr": 1e-2}, {"params": classifier.parameters()}],
    lr=1e-3,
    momentum=0.9,
)
print([group["lr"] for group in optimizer.param_groups])
for input, target in zip(inputs[:4], targets[:4]):
    optimizer.zero_grad()
    output = model(input)
    loss = loss_fn(output, target)
    loss.backward()
    optimizer.step()
    print(f"{loss.item():.10f}")

optimizer = optim.SGD(model.parameters(), lr=0.05)
for input, target in zip(inputs[4:8], targets[4:8]):

    def closure(input=input, target=target):
        optimizer.zero_grad()
        output = model(input)
        loss = loss_fn(output, target)
        loss.backward()
        return loss

    print(f"{optimizer.step(closure).item():.10f}")

optimizer = optim.SGD(model.parameters(), lr=0.01)
scheduler = ExponentialLR(optimizer, gamma=0.9)
for epoch in range(5):
    for input, target in zip(inputs, targets):
        optimizer.zero_grad()
        output = model(input)
        loss = loss_fn(output, target)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(epoch, scheduler.get_last_lr(), f"{loss.item():.10f}")

optimizer = optim.SGD(model.parameters(), lr=0.01)
scheduler1 = ExponentialLR(optimizer, gamma=0.9)
scheduler2 = MultiStepLR(optimizer, milestones=[3, 6], gamma=0.1)
for epoch in range(8):
    for input, target in zip(inputs, targets):
        optimizer.zero_grad()
        output = model(input)
        loss = loss_fn(output, target)
        loss.backward()
        optimizer.step()
    scheduler1.step()
    scheduler2.step()
    print(epoch, optimizer.param_groups[0]["lr"])

scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
print(scheduler.state_dict()["base_lrs"], scheduler.last_epoch)
print(optimizer.state_dict()["param_groups"][0]["initial_lr"])
