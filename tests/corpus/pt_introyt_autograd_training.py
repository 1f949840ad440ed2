# follows: PyTorch tutorials, Introduction to PyTorch on YouTube, "The Fundamentals of
#   Autograd", section "Autograd in Training",
#   https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html
"""The tutorial's TinyModel (Linear 1000 -> 100, ReLU, Linear 100 -> 10): a slice of
layer2's weights and their gradient before backward, after backward and after
optimizer.step(), gradients accumulating over five more backward passes, then zeroed
with zero_grad(set_to_none=False); the training loop continued a few steps. In
float64."""

import torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)

BATCH_SIZE = 16
DIM_IN = 1000
HIDDEN_SIZE = 100
DIM_OUT = 10


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()

        self.layer1 = torch.nn.Linear(DIM_IN, HIDDEN_SIZE)
        self.relu = torch.nn.ReLU()
        self.layer2 = torch.nn.Linear(HIDDEN_SIZE, DIM_OUT)

    def forward(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        x = self.layer2(x)
        return x


some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)

model = TinyModel()

print(model.layer2.weight[0][0:10])  # just a small slice
print(model.layer2.weight.grad)

optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

prediction = model(some_input)

loss = (ideal_output - prediction).pow(2).sum()
print(loss)

loss.backward()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])

optimizer.step()
print(model.layer2.weight[0][0:10])
print(model.layer2.weight.grad[0][0:10])

print(model.layer2.weight.grad[0][0:10])

for _i in range(0, 5):
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    loss.backward()

print(model.layer2.weight.grad[0][0:10])

optimizer.zero_grad(set_to_none=False)

print(model.layer2.weight.grad[0][0:10])

for i in range(5):
    optimizer.zero_grad()
    loss = (ideal_output - model(some_input)).pow(2).sum()
    loss.backward()
    optimizer.step()
    print(i, f"{loss.item():.4f}")
