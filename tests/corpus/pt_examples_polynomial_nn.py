# follows: PyTorch tutorials, "Learning PyTorch with Examples", sections "PyTorch: nn",
#   "PyTorch: optim", "PyTorch: Custom nn Modules" and "PyTorch: Control Flow + Weight
#   Sharing", https://pytorch.org/tutorials/beginner/pytorch_with_examples.html
"""y = sin(x) fitted by a third-order polynomial four ways: nn.Sequential with Linear and
Flatten updated by hand, the same with RMSprop, a custom Module with four Parameters
and SGD, and a module whose depth is drawn at each call (weights shared). Fewer
iterations than the tutorial, in float64."""

import math
import random

import torch

dtype = torch.float64
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

# ----- PyTorch: nn -----
torch.manual_seed(0)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1, dtype=dtype), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
learning_rate = 1e-6
for t in range(300):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.6f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(
    f"Result: y = {linear_layer.bias.item():.6f} + {linear_layer.weight[:, 0].item():.6f} x + "
    f"{linear_layer.weight[:, 1].item():.6f} x^2 + {linear_layer.weight[:, 2].item():.6f} x^3"
)

# ----- PyTorch: optim -----
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 1, dtype=dtype), torch.nn.Flatten(0, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(100):  # RMSprop's steps here amplify the last bit of a sum after ~150
    loss = loss_fn(model(xx), y)
    if t % 50 == 49:
        print(t, f"{loss.item():.6f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: y = {model[0].bias.item():.6f} + {model[0].weight[:, 0].item():.6f} x")


# ----- PyTorch: Custom nn Modules -----
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.b = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.c = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.d = torch.nn.Parameter(torch.randn((), dtype=dtype))

    def forward(self, x):
        return self.a + self.b * x + self.c * x**2 + self.d * x**3

    def string(self):
        return (
            f"y = {self.a.item():.6f} + {self.b.item():.6f} x + {self.c.item():.6f} x^2 + "
            f"{self.d.item():.6f} x^3"
        )


torch.manual_seed(0)
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(500):
    loss = criterion(model(x), y)
    if t % 100 == 99:
        print(t, f"{loss.item():.6f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"Result: {model.string()}")


# ----- PyTorch: Control Flow + Weight Sharing -----
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.b = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.c = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.d = torch.nn.Parameter(torch.randn((), dtype=dtype))
        self.e = torch.nn.Parameter(torch.randn((), dtype=dtype))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x**2 + self.d * x**3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x**exp
        return y


random.seed(0)
torch.manual_seed(0)
model = DynamicNet()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(600):
    loss = criterion(model(x), y)
    if t % 200 == 199:
        print(t, f"{loss.item():.4f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(model)
print(f"e = {model.e.item():.6f}")
