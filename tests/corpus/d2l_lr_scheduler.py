# follows: Dive into Deep Learning (d2l.ai), section 12.11 "Learning Rate Scheduling"
#   (Schedulers: SquareRootScheduler, FactorScheduler, MultiFactorScheduler with
#   lr_scheduler.MultiStepLR, CosineScheduler with warmup),
#   https://d2l.ai/chapter_optimization/lr-scheduler.html
"""The chapter's schedulers written by hand and set into trainer.param_groups, and
PyTorch's MultiStepLR and CosineAnnealingLR stepping an SGD trainer on a small MLP in
float64, the learning rates and losses printed along the way."""

import math

import torch
from torch import nn
from torch.optim import lr_scheduler

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
X = torch.randn(96, 6)
y = (X[:, :2].sum(1) > 0).long()
loss = nn.CrossEntropyLoss()


def net_fn():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))


def train(net, trainer, num_epochs, scheduler=None):
    for epoch in range(num_epochs):
        for i in range(0, 96, 32):
            trainer.zero_grad()
            l = loss(net(X[i : i + 32]), y[i : i + 32])
            l.backward()
            trainer.step()
        if scheduler:
            if scheduler.__module__ == lr_scheduler.__name__:
                scheduler.step()
            else:
                for param_group in trainer.param_groups:
                    param_group["lr"] = scheduler(epoch)
        with torch.no_grad():
            print(f"  epoch {epoch + 1}: lr {trainer.param_groups[0]['lr']:.5f}, "
                  f"loss {loss(net(X), y).item():.6f}")  # fmt: skip


class SquareRootScheduler:
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


class CosineScheduler:
    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0):
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.warmup_steps = warmup_steps
        self.warmup_begin_lr = warmup_begin_lr
        self.max_steps = self.max_update - self.warmup_steps

    def get_warmup_lr(self, epoch):
        increase = (
            (self.base_lr_orig - self.warmup_begin_lr) * float(epoch) / float(self.warmup_steps)
        )
        return self.warmup_begin_lr + increase

    def __call__(self, epoch):
        if epoch < self.warmup_steps:
            return self.get_warmup_lr(epoch)
        if epoch <= self.max_update:
            self.base_lr = (
                self.final_lr
                + (self.base_lr_orig - self.final_lr)
                * (1 + math.cos(math.pi * (epoch - self.warmup_steps) / self.max_steps))
                / 2
            )
        return self.base_lr


print("square root")
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.1)
train(net, trainer, 4, SquareRootScheduler(lr=0.1))

print("multi-step")
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
scheduler = lr_scheduler.MultiStepLR(trainer, milestones=[2, 4], gamma=0.5)
train(net, trainer, 5, scheduler)
print([scheduler.get_last_lr()[0], scheduler.last_epoch])

print("cosine with warmup")
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.3)
train(net, trainer, 6, CosineScheduler(6, warmup_steps=2, base_lr=0.3, final_lr=0.01))

print("CosineAnnealingLR")
net = net_fn()
trainer = torch.optim.SGD(net.parameters(), lr=0.3, momentum=0.9)
scheduler = lr_scheduler.CosineAnnealingLR(trainer, T_max=5, eta_min=0.01)
train(net, trainer, 5, scheduler)
