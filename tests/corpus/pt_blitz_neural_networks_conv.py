# follows: PyTorch tutorials, Deep Learning with PyTorch: A 60 Minute Blitz, "Neural
#   Networks" (Define the network, with its two convolutions and max pooling; Loss
#   Function; Backprop; Update the weights),
#   https://pytorch.org/tutorials/beginner/blitz/neural_networks_tutorial.html
"""The tutorial's whole Net, LeNet-like: two 5x5 convolutions each followed by relu and
2x2 max pooling, then three fully connected layers, on a 32x32 input. Its parameters
listed, a forward pass, backward with random gradients, MSELoss and the graph behind it,
conv1's bias gradient before and after backward, and the update with optim.SGD."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        # 1 input image channel, 6 output channels, 5x5 square convolution kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 5 * 5, 120)  # 5*5 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        # Convolution layer C1: 1 input image channel, 6 output channels, 5x5 kernel
        c1 = F.relu(self.conv1(input))
        # Subsampling layer S2: 2x2 grid, purely functional
        s2 = F.max_pool2d(c1, (2, 2))
        # Convolution layer C3: 6 input channels, 16 output channels, 5x5 kernel
        c3 = F.relu(self.conv2(s2))
        # Subsampling layer S4: 2x2 grid, purely functional
        s4 = F.max_pool2d(c3, 2)
        f5 = torch.flatten(s4, 1)
        f6 = F.relu(self.fc1(f5))
        f7 = F.relu(self.fc2(f6))
        return self.fc3(f7)


torch.manual_seed(0)
net = Net()
print(net)

params = list(net.parameters())
print(len(params))
print(params[0].size())  # conv1's .weight

input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)

net.zero_grad()
out.backward(torch.randn(1, 10))

output = net(input)
target = torch.randn(10)  # a dummy target, for example
target = target.view(1, -1)  # make it the same shape as output
criterion = nn.MSELoss()

loss = criterion(output, target)
print(loss)
print(loss.grad_fn)  # MSELoss
print(loss.grad_fn.next_functions[0][0])  # Linear
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])  # ReLU

net.zero_grad()  # zeroes the gradient buffers of all parameters
print("conv1.bias.grad before backward")
print(net.conv1.bias.grad)
loss.backward()
print("conv1.bias.grad after backward")
print(net.conv1.bias.grad)

optimizer = optim.SGD(net.parameters(), lr=0.01)
for _ in range(3):
    optimizer.zero_grad()  # zero the gradient buffers
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()  # Does the update
    print(loss)
