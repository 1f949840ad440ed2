# follows: PyTorch tutorials, "What is torch.nn really?", sections "Refactor using
#   Dataset", "Refactor using DataLoader" and "Add validation",
#   https://pytorch.org/tutorials/beginner/nn_tutorial.html
"""The tutorial's logistic regression fed by a TensorDataset, then by a DataLoader, then
by a shuffled training loader and a validation loader of twice the batch size, the
validation loss printed after each epoch. Random clustered data in float64 (16
features, 4 classes) stands in for MNIST, and there are fewer epochs."""

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
n, features, classes = 200, 16, 4
centers = 2 * torch.randn(classes, features)
y_train = torch.randint(0, classes, (n,))
x_train = centers[y_train] + torch.randn(n, features)
y_valid = torch.randint(0, classes, (100,))
x_valid = centers[y_valid] + torch.randn(100, features)
loss_func = F.cross_entropy
bs, lr, epochs = 32, 0.5, 3


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(features, classes)

    def forward(self, xb):
        return self.lin(xb)


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


# Refactor using Dataset: x and y sliced together.
train_ds = TensorDataset(x_train, y_train)
print(len(train_ds), train_ds[0][0].shape, train_ds[0][1])
model, opt = get_model()
for _epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = train_ds[i * bs : i * bs + bs]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(xb), yb))

# Refactor using DataLoader: the minibatches come from the loader.
train_dl = DataLoader(train_ds, batch_size=bs)
print(len(train_dl))
model, opt = get_model()
for _epoch in range(epochs):
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
print(loss_func(model(xb), yb))

# Add validation: the training data shuffled, the validation data in larger batches.
train_ds = TensorDataset(x_train, y_train)
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
valid_ds = TensorDataset(x_valid, y_valid)
valid_dl = DataLoader(valid_ds, batch_size=bs * 2)
model, opt = get_model()
for epoch in range(epochs):
    model.train()
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    model.eval()
    with torch.no_grad():
        valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
    print(epoch, valid_loss / len(valid_dl))

preds = torch.argmax(model(x_valid), dim=1)
print((preds == y_valid).float().mean())
