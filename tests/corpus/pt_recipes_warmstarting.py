# follows: PyTorch recipes, "Warmstarting model using parameters from a different model
#   in PyTorch" (Define and initialize the neural network A and B, Save model A, Load
#   into model B),
#   https://pytorch.org/tutorials/recipes/recipes/warmstarting_model_using_parameters_from_a_different_model.html
"""The recipe's NetA trained a few steps and its state_dict saved (to a temporary folder
in place of model.pt), then loaded into NetB with strict=False; then, as the recipe
suggests for keys that do not match, into a NetC whose last layer is renamed and
resized: its fc1 and fc2 keys renamed, the rest left out, load_state_dict reporting the
missing keys. The warmstarted NetC and a fresh one are trained on the same synthetic
CIFAR-sized batch. In float64, a few steps each."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class NetA(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(start_dim=1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


netA = NetA()


class NetB(NetA):
    pass


netB = NetB()


class NetC(nn.Module):
    """NetB with its fully connected layers under other names and two classes out."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.hidden1 = nn.Linear(16 * 5 * 5, 120)
        self.hidden2 = nn.Linear(120, 84)
        self.head = nn.Linear(84, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(start_dim=1)
        x = F.relu(self.hidden1(x))
        x = F.relu(self.hidden2(x))
        return self.head(x)


inputs = torch.randn(8, 3, 32, 32)
labels = torch.randint(0, 10, (8,))
criterion = nn.CrossEntropyLoss()


def train(model, labels, steps):
    optimizer = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(steps):
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
        print(f"  step {step}: {loss.item():.6f}")


print("NetA")
train(netA, labels, 4)

with tempfile.TemporaryDirectory() as folder:
    # Specify a path to save to
    PATH = os.path.join(folder, "model.pt")
    torch.save(netA.state_dict(), PATH)
    print(netB.load_state_dict(torch.load(PATH), strict=False))
    state = torch.load(PATH)
print(torch.equal(netB.fc3.weight, netA.fc3.weight), list(state)[:4])

renamed = {"fc1": "hidden1", "fc2": "hidden2"}
warm = {}
for key, value in state.items():
    layer, _, name = key.partition(".")
    if layer != "fc3":
        warm[f"{renamed.get(layer, layer)}.{name}"] = value
netC = NetC()
print(netC.load_state_dict(warm, strict=False))

binary = labels % 2
print("NetC warmstarted")
train(netC, binary, 4)
print("NetC from scratch")
train(NetC(), binary, 4)
