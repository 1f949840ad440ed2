# follows: PyTorch documentation, the examples of the learning-rate schedulers' pages
#   (OneCycleLR, CyclicLR, ReduceLROnPlateau, LinearLR, ConstantLR, SequentialLR),
#   https://pytorch.org/docs/stable/generated/torch.optim.lr_scheduler.OneCycleLR.html
#   https://pytorch.org/docs/stable/generated/torch.optim.lr_scheduler.ReduceLROnPlateau.html
"""Each page's example around a real train_batch/validate: a small regression net trained
with SGD(momentum=0.9) on made-up data in float64, the scheduler stepped where the page
steps it. Adapted: batches sliced from a tensor in place of the DataLoader, 4 batches per
epoch and fewer epochs; the learning rates, momenta and losses printed."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
X = torch.randn(64, 3)
y = X @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3 + 0.1 * torch.randn(64, 1)
X_val, y_val = X[48:], y[48:]
loss_fn = nn.MSELoss()


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))


def train_batch(model, optimizer, i):
    optimizer.zero_grad()
    loss = loss_fn(model(X[i * 12 : (i + 1) * 12]), y[i * 12 : (i + 1) * 12])
    loss.backward()
    optimizer.step()
    return loss.item()


def validate(model):
    with torch.no_grad():
        return loss_fn(model(X_val), y_val).item()


# OneCycleLR: stepped after every batch
model = make()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, steps_per_epoch=4, epochs=5)
for epoch in range(5):
    for batch in range(4):
        train_batch(model, optimizer, batch)
        scheduler.step()
    group = optimizer.param_groups[0]
    print(
        f"epoch {epoch}: lr {scheduler.get_last_lr()[0]:.6f} momentum {group['momentum']:.4f} "
        f"val {validate(model):.6f}"
    )
print(sorted(k for k in optimizer.param_groups[0] if k != "params"))

# OneCycleLR with Adam: the first beta cycles, linear annealing
model = make()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.05, total_steps=12, anneal_strategy="linear"
)
lrs = []
for step in range(11):  # total_steps - 1 steps after the first: the cycle's end
    train_batch(model, optimizer, step % 4)
    scheduler.step()
    lrs.append(round(scheduler.get_last_lr()[0], 6))
print(lrs, optimizer.param_groups[0]["betas"], f"{validate(model):.6f}")

# CyclicLR: stepped after every batch
model = make()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CyclicLR(optimizer, base_lr=0.01, max_lr=0.1, step_size_up=10)
rates = []
for _epoch in range(5):
    for batch in range(4):
        train_batch(model, optimizer, batch)
        scheduler.step()
        rates.append(f"{scheduler.get_last_lr()[0]:.3f}")
print(" ".join(rates))
print(f"momentum {optimizer.param_groups[0]['momentum']:.3f}, val {validate(model):.6f}")

# ReduceLROnPlateau: stepped with the validation loss
model = make()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=1, factor=0.5)
for epoch in range(12):
    for batch in range(4):
        train_batch(model, optimizer, batch)
    val_loss = validate(model)
    # Note that step should be called after validate()
    scheduler.step(val_loss)
    print(epoch, f"{val_loss:.6f}", scheduler.get_last_lr(), scheduler.num_bad_epochs)
print(scheduler.best == min(scheduler.best, val_loss), scheduler.state_dict()["mode"])

# LinearLR warm-up, ConstantLR, and SequentialLR chaining ConstantLR and ExponentialLR
for name in ["linear", "constant", "sequential"]:
    model = make()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    if name == "linear":
        scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.05, total_iters=4)
    elif name == "constant":
        scheduler = torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.5, total_iters=4)
    else:
        scheduler1 = torch.optim.lr_scheduler.ConstantLR(optimizer, factor=0.1, total_iters=3)
        scheduler2 = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        scheduler = torch.optim.lr_scheduler.SequentialLR(
            optimizer, schedulers=[scheduler1, scheduler2], milestones=[3]
        )
    seen = []
    for _epoch in range(7):
        for batch in range(4):
            train_batch(model, optimizer, batch)
        validate(model)
        scheduler.step()
        seen.append(round(scheduler.get_last_lr()[0], 6))
    print(name, seen, f"{validate(model):.6f}")
