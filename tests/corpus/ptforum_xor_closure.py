# follows: PyTorch Forums, "Simple Linear/Sigmoid Network not learning" (an XOR-like gate
#   trained sample by sample with optimizer.step(closure), and the answer's advice: no final
#   Sigmoid, BCEWithLogitsLoss, a wider network, Adam),
#   https://discuss.pytorch.org/t/simple-linear-sigmoid-network-not-learning/98714
"""The question's Network (Linear(2, 4), Sigmoid, Linear(4, 1), Sigmoid) with weights drawn
by nn.init.uniform_, its train method building MSELoss and SGD(lr=0.01) and calling
optimizer.step(closure), the outputs printed before and after 1000 rounds over the four
inputs (it does not learn, as the question says); then the answer's suggestion: a wider
network returning logits, BCEWithLogitsLoss and Adam on the four samples at once, which
learns the gate. Seeded; the answer's network trained for 300 steps."""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Network(nn.Module):
    def __init__(self):
        super(Network, self).__init__()  # noqa: UP008  (the question's)
        self.x1 = nn.Linear(2, 4)
        self.s1 = nn.Sigmoid()
        self.x2 = nn.Linear(4, 1)
        self.s2 = nn.Sigmoid()

    def init(self):
        nn.init.uniform_(self.x1.weight)
        nn.init.uniform_(self.x2.weight)

    def forward(self, feats):
        f1 = torch.tensor(feats).float()
        xr1 = self.x1(f1)
        xs1 = self.s1(xr1)
        xr2 = self.x2(xs1)
        out = self.s2(xr2)
        return out

    def train(self, val_expected, feats_next):
        val_expected_tensor = torch.tensor(val_expected)
        criterion = nn.MSELoss()
        optimizer = torch.optim.SGD(self.parameters(), lr=0.01)

        def closure():
            optimizer.zero_grad()
            resp = self.forward(feats_next)
            error = criterion(resp, val_expected_tensor)
            error.backward()
            return error

        return optimizer.step(closure)


net = Network()
net.init()

for input in ([0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]):
    response = net.forward(input)
    print(response)

print("--TRAIN START-")
for i in range(1000):
    net.train([1.0], [0.0, 0.0])
    net.train([0.0], [1.0, 0.0])
    net.train([0.0], [0.0, 1.0])
    error = net.train([1.0], [1.0, 1.0])
    if i % 250 == 0:
        print(i, f"{error.item():.4f}")
print("--TRAIN END-")

for input in ([0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]):
    response = net.forward(input)
    print(response)

# The answer: no final Sigmoid, BCEWithLogitsLoss, a wider network, Adam.
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[1.0], [0.0], [0.0], [1.0]])
wide = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(wide.parameters(), lr=0.01)
for step in range(300):
    optimizer.zero_grad()
    loss = criterion(wide(X), Y)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step}: loss {loss.item():.4f}")
with torch.no_grad():
    logits = wide(X)
print(logits)
print((logits > 0).float().flatten(), torch.sigmoid(logits).flatten())
