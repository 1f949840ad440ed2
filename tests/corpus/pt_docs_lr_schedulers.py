# follows: PyTorch documentation, the examples of the learning-rate schedulers' pages
#   (LambdaLR, StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR),
#   https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
"""Each page's schedule on an SGD optimiser (LambdaLR with a lambda per parameter group),
the learning rates printed at every epoch, then a state_dict of one and its
get_last_lr."""

import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR, ExponentialLR, LambdaLR, MultiStepLR, StepLR

model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))


def rates(make, epochs=8, groups=False):
    params = (
        [{"params": model[0].parameters()}, {"params": model[1].parameters()}]
        if groups
        else model.parameters()
    )
    optimizer = torch.optim.SGD(params, lr=0.05)
    scheduler = make(optimizer)
    seen = []
    for _ in range(epochs):
        optimizer.step()
        seen.append([round(lr, 12) for lr in scheduler.get_last_lr()])
        scheduler.step()
    return scheduler, seen


lambda1 = lambda epoch: epoch // 3  # noqa: E731  (the page's)
lambda2 = lambda epoch: 0.95**epoch  # noqa: E731
print(rates(lambda o: LambdaLR(o, lr_lambda=[lambda1, lambda2]), groups=True)[1])
print(rates(lambda o: StepLR(o, step_size=3, gamma=0.1))[1])
print(rates(lambda o: MultiStepLR(o, milestones=[3, 6], gamma=0.1))[1])
print(rates(lambda o: ExponentialLR(o, gamma=0.9))[1])
scheduler, seen = rates(lambda o: CosineAnnealingLR(o, T_max=4, eta_min=0.001), epochs=10)
print(seen)
print(scheduler.state_dict())
print(scheduler.get_last_lr(), scheduler.last_epoch)
