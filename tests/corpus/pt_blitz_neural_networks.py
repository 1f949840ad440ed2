# follows: PyTorch tutorials, Deep Learning with PyTorch: A 60 Minute Blitz, "Neural
#   Networks" (Define the network, Loss Function, Backprop, Update the weights),
#   https://pytorch.org/tutorials/beginner/blitz/neural_networks_tutorial.html
"""The tutorial's Net with its fully connected layers (the two convolutions and their
pooling left out: the input is already the flattened 16*5*5 features): parameters
listed, a forward pass, zero_grad and backward with random gradients, MSELoss and
its graph, the update by hand and with optim.SGD."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        f5 = torch.flatten(input, 1)
        f6 = F.relu(self.fc1(f5))
        f7 = F.relu(self.fc2(f6))
        return self.fc3(f7)


torch.manual_seed(0)
net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())

input = torch.randn(1, 16, 5, 5)
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.randn(1, 10))

output = net(input)
target = torch.randn(10)
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])

net.zero_grad()
print("fc1.bias.grad before backward")
print(net.fc1.bias.grad)
loss.backward()
print("fc1.bias.grad after backward")
print(net.fc1.bias.grad[:6])

learning_rate = 0.01
for f in net.parameters():
    f.data.sub_(f.grad.data * learning_rate)
print(net.fc3.bias)

optimizer = optim.SGD(net.parameters(), lr=0.01)
for _ in range(3):
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print(loss)
