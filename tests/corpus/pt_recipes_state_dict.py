# follows: PyTorch recipes, "What is a state_dict in PyTorch" (Define and initialize the
#   neural network, Initialize the optimizer, Access the model and optimizer state_dict),
#   https://pytorch.org/tutorials/recipes/recipes/what_is_state_dict.html
"""A model's state_dict, tensor by tensor with its size, and its optimiser's state_dict
before and after a step; the convolutions of the recipe's Net are left out (its fully
connected part is kept), and a model loads a copied state_dict."""

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

    def forward(self, x):
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


torch.manual_seed(0)
net = Net()
print(net)
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
print()
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])

loss = net(torch.randn(2, 16, 5, 5)).pow(2).mean()
loss.backward()
optimizer.step()
state = optimizer.state_dict()["state"]
print(sorted(state), list(state[5]), state[5]["momentum_buffer"])

copy = Net()
print(copy.load_state_dict({k: v.clone() for k, v in net.state_dict().items()}))
print(all(torch.equal(a, b) for a, b in zip(copy.parameters(), net.parameters())))
twin = optim.SGD(copy.parameters(), lr=0.5)
twin.load_state_dict(optimizer.state_dict())
print(twin.param_groups[0]["lr"], twin.param_groups[0]["momentum"])
