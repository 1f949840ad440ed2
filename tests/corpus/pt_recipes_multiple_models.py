# follows: PyTorch recipes, "Saving and loading multiple models in one file using PyTorch"
#   (Define and initialize the neural network, Initialize the optimizer, Save multiple
#   models, Load multiple models),
#   https://pytorch.org/tutorials/recipes/recipes/saving_multiple_models_in_one_file.html
"""Two of the recipe's Net, each with its SGD with momentum, saved in one dictionary (to a
temporary folder in place of model.pt) and loaded into two new models and optimisers.
As the recipe's GAN-like use suggests, the two models are first trained a few steps,
in turn, on synthetic CIFAR-sized batches (A on the labels, B on the labels shifted by
one), and after the load training resumes on the copies: they take the steps the
originals take. In float64; the new optimisers receive the saved states (the recipe
loads them into the old ones)."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class Net(nn.Module):
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


netA = Net()
netB = Net()

optimizerA = optim.SGD(netA.parameters(), lr=0.001, momentum=0.9)
optimizerB = optim.SGD(netB.parameters(), lr=0.001, momentum=0.9)

inputs = torch.randn(6, 3, 32, 32)
labels = torch.randint(0, 10, (6,))
criterion = nn.CrossEntropyLoss()


def step(model, optimizer, target):
    optimizer.zero_grad()
    loss = criterion(model(inputs), target)
    loss.backward()
    optimizer.step()
    return loss.item()


for i in range(3):
    lossA, lossB = step(netA, optimizerA, labels), step(netB, optimizerB, (labels + 1) % 10)
    print(f"step {i}: A {lossA:.6f} B {lossB:.6f}")

with tempfile.TemporaryDirectory() as folder:
    # Specify a path to save to
    PATH = os.path.join(folder, "model.pt")

    torch.save(
        {
            "modelA_state_dict": netA.state_dict(),
            "modelB_state_dict": netB.state_dict(),
            "optimizerA_state_dict": optimizerA.state_dict(),
            "optimizerB_state_dict": optimizerB.state_dict(),
        },
        PATH,
    )

    modelA = Net()
    modelB = Net()
    optimModelA = optim.SGD(modelA.parameters(), lr=0.001, momentum=0.9)
    optimModelB = optim.SGD(modelB.parameters(), lr=0.001, momentum=0.9)

    checkpoint = torch.load(PATH, weights_only=True)
print(list(checkpoint))
print(modelA.load_state_dict(checkpoint["modelA_state_dict"]))
print(modelB.load_state_dict(checkpoint["modelB_state_dict"]))
optimModelA.load_state_dict(checkpoint["optimizerA_state_dict"])
optimModelB.load_state_dict(checkpoint["optimizerB_state_dict"])

modelA.eval()
modelB.eval()
# - or -
modelA.train()
modelB.train()

for i in range(3, 5):
    lossA, lossB = step(netA, optimizerA, labels), step(netB, optimizerB, (labels + 1) % 10)
    againA = step(modelA, optimModelA, labels)
    againB = step(modelB, optimModelB, (labels + 1) % 10)
    print(f"step {i}: A {lossA:.6f} {againA:.6f} B {lossB:.6f} {againB:.6f}")
print(
    torch.equal(netA.fc3.weight, modelA.fc3.weight), torch.equal(netB.conv1.bias, modelB.conv1.bias)
)
print(optimModelB.state_dict()["state"][9]["momentum_buffer"])
