# follows: PyTorch recipes, "Saving and loading a general checkpoint in PyTorch" (Define
#   and initialize the neural network, Initialize the optimizer, Save the general
#   checkpoint, Load the general checkpoint),
#   https://pytorch.org/tutorials/recipes/recipes/saving_and_loading_a_general_checkpoint.html
"""The recipe's Net and SGD with momentum; a checkpoint of the epoch, both state_dicts
and the loss saved to a temporary folder (the recipe's model.pt) and loaded into a new
model and optimiser. The recipe stops there; here a few training steps on a synthetic
CIFAR-sized batch come before the save, and training resumes after the load: the
resumed copy takes the steps the original takes (the same losses, the same weights).
In float64; the new optimiser is built on the new model's parameters."""

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


net = Net()
print(net)

optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
criterion = nn.CrossEntropyLoss()
inputs = torch.randn(8, 3, 32, 32)
labels = torch.randint(0, 10, (8,))


def train_step(model, optimizer):
    optimizer.zero_grad()
    loss = criterion(model(inputs), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


for epoch in range(5):
    LOSS = train_step(net, optimizer)
    print(f"epoch {epoch}: loss {LOSS:.6f}")

# Additional information
EPOCH = 5
with tempfile.TemporaryDirectory() as folder:
    PATH = os.path.join(folder, "model.pt")
    torch.save(
        {
            "epoch": EPOCH,
            "model_state_dict": net.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "loss": LOSS,
        },
        PATH,
    )

    model = Net()
    resumed = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)

    checkpoint = torch.load(PATH, weights_only=True)
print(model.load_state_dict(checkpoint["model_state_dict"]))
resumed.load_state_dict(checkpoint["optimizer_state_dict"])
epoch = checkpoint["epoch"]
loss = checkpoint["loss"]
print(epoch, f"{loss:.6f}", sorted(checkpoint))
print(resumed.state_dict()["param_groups"])

model.eval()
# - or -
model.train()
print(model.training, len(resumed.state_dict()["state"]))

for epoch in range(EPOCH, EPOCH + 3):
    original, again = train_step(net, optimizer), train_step(model, resumed)
    print(f"epoch {epoch}: loss {original:.6f} resumed {again:.6f}")
print(all(torch.equal(a, b) for a, b in zip(net.parameters(), model.parameters())))
print(model.fc3.bias)
