# follows: PyTorch recipes, "Zeroing out gradients in PyTorch" (define and initialise the
#   network, the loss function and the optimizer, then zero the gradients while training),
#   https://pytorch.org/tutorials/recipes/recipes/zeroing_out_gradients.html
"""The recipe's training loop: optimizer.zero_grad() before each backward, CrossEntropyLoss,
SGD(lr=0.001, momentum=0.9), the running loss printed every 20 mini-batches over two
epochs; then what happens without zero_grad (gradients accumulate). CIFAR10 (a download)
is replaced by 400 synthetic 3x8x8 images of 10 classes and the recipe's convolutional Net
by an MLP of the same head (Flatten, Linear 120, 84, 10)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
templates = torch.randn(10, 3, 8, 8)
targets = torch.randint(0, 10, (400,))
images = templates[targets] + torch.randn(400, 3, 8, 8)
trainloader = [(images[i : i + 4], targets[i : i + 4]) for i in range(0, 400, 4)]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3 * 8 * 8, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):  # loop over the dataset multiple times
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        # zero the parameter gradients
        optimizer.zero_grad()
        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 20 == 19:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 20:.3f}")
            running_loss = 0.0
print("Finished Training")

with torch.no_grad():
    correct = (net(images).argmax(1) == targets).sum().item()
print(f"accuracy on the training images: {correct / 4}%")

# Without zero_grad the gradients of two backward passes add up.
inputs, labels = trainloader[0]
optimizer.zero_grad()
criterion(net(inputs), labels).backward()
once = net.fc3.bias.grad.clone()
criterion(net(inputs), labels).backward()
print(torch.allclose(net.fc3.bias.grad, 2 * once))
optimizer.zero_grad()
print(net.fc3.bias.grad)
