# follows: PyTorch documentation, the examples of the loss functions' pages: MSELoss,
#   L1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, HuberLoss,
#   SmoothL1Loss, https://pytorch.org/docs/stable/nn.html#loss-functions
"""Each page's example (a loss module called on random input and target, then backward),
in float64, the loss and the input's gradient printed."""

import torch
from torch import nn

torch.manual_seed(0)
dtype = torch.float64


def show(name, output, input):
    output.backward()
    print(name, f"{output.item():.10f}", f"{input.grad.abs().sum().item():.10f}")


loss = nn.MSELoss()
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
target = torch.randn(3, 5, dtype=dtype)
show("MSELoss", loss(input, target), input)

loss = nn.L1Loss()
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
target = torch.randn(3, 5, dtype=dtype)
show("L1Loss", loss(input, target), input)

loss = nn.CrossEntropyLoss()
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
target = torch.randint(0, 5, (3,))  # the page: torch.empty(3, dtype=torch.long).random_(5)
show("CrossEntropyLoss, indices", loss(input, target), input)
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
target = torch.randn(3, 5, dtype=dtype).softmax(dim=1)
show("CrossEntropyLoss, probabilities", loss(input, target), input)

m = nn.LogSoftmax(dim=1)
loss = nn.NLLLoss()
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
target = torch.tensor([1, 0, 4])
show("NLLLoss", loss(m(input), target), input)

m = nn.Sigmoid()
loss = nn.BCELoss()
input = torch.randn(3, 2, dtype=dtype, requires_grad=True)
target = torch.rand(3, 2, dtype=dtype)
show("BCELoss", loss(m(input), target), input)

target = torch.ones([10, 64], dtype=dtype)
output = torch.full([10, 64], 1.5, dtype=dtype, requires_grad=True)
pos_weight = torch.ones([64], dtype=dtype)
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
show("BCEWithLogitsLoss", criterion(output, target), output)

loss = nn.HuberLoss(delta=0.5)
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
target = torch.randn(3, 5, dtype=dtype)
show("HuberLoss", loss(input, target), input)

loss = nn.SmoothL1Loss(beta=0.5)
input = torch.randn(3, 5, dtype=dtype, requires_grad=True)
show("SmoothL1Loss", loss(input, target), input)
print(nn.CrossEntropyLoss(label_smoothing=0.1), nn.BCEWithLogitsLoss(), nn.NLLLoss(reduction="sum"))
print(nn.MSELoss(reduction="none")(torch.ones(2), torch.zeros(2)))
