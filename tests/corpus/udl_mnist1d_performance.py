# follows: Simon J.D. Prince, "Understanding Deep Learning", Notebook 8.1
#   "MNIST_1D_Performance" (a two-hidden-layer network with He initialisation, SGD with
#   momentum, StepLR, train and test loss and error each epoch),
#   https://github.com/udlbook/udlbook/blob/main/Notebooks/Chap08/8_1_MNIST_1D_Performance.ipynb
"""The notebook's exercise completed as its comments ask (two hidden layers of 100 units with
ReLU between them; weights_init applying He initialisation, kaiming_uniform_ with zero
biases, through model.apply), CrossEntropyLoss, SGD(lr=0.05, momentum=0.9) and
StepLR(step_size=10, gamma=0.5), then per epoch the loss and the percent error on the
whole training and test sets. The mnist1d package's data are replaced by a synthetic set
of 40-sample signals (each class a noisy template), the shuffling DataLoader by batches of
100 taken through a seeded torch.randperm each epoch; 12 epochs; the plots left out."""

import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)

# Synthetic stand-in for MNIST-1D: 10 classes of 40-sample signals.
templates = torch.randn(10, 40).cumsum(1) / 3
y_all = torch.randint(0, 10, (600,))
x_all = templates[y_all] + 0.8 * torch.randn(600, 40)
data = {"x": x_all[:400].numpy(), "y": y_all[:400].numpy(),
        "x_test": x_all[400:].numpy(), "y_test": y_all[400:].numpy()}  # fmt: skip
print("Examples in training set: {}".format(len(data["y"])))  # noqa: UP032  (the notebook's)
print("Examples in test set: {}".format(len(data["y_test"])))  # noqa: UP032
print("Length of each example: {}".format(data["x"].shape[-1]))  # noqa: UP032

D_i = 40  # Input dimensions
D_k = 100  # Hidden dimensions
D_o = 10  # Output dimensions
model = torch.nn.Sequential(
    torch.nn.Linear(D_i, D_k),
    torch.nn.ReLU(),
    torch.nn.Linear(D_k, D_k),
    torch.nn.ReLU(),
    torch.nn.Linear(D_k, D_o),
)


def weights_init(layer_in):
    # He initialization of the linear layers' weights, zero biases
    if isinstance(layer_in, nn.Linear):
        nn.init.kaiming_uniform_(layer_in.weight)
        layer_in.bias.data.fill_(0.0)


# choose cross entropy loss function (equation 5.24)
loss_function = torch.nn.CrossEntropyLoss()
# construct SGD optimizer and initialize learning rate and momentum
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
# object that decreases learning rate by half every 10 epochs
scheduler = StepLR(optimizer, step_size=10, gamma=0.5)
x_train = torch.tensor(data["x"].astype("float32"))
y_train = torch.tensor(data["y"].transpose().astype("long"))
x_test = torch.tensor(data["x_test"].astype("float32"))
y_test = torch.tensor(data["y_test"].astype("long"))

# Initialize model weights
model.apply(weights_init)
print(model[0].weight[0, :4], model[0].bias[:4])

n_epoch = 12
losses_train = np.zeros(n_epoch)
errors_train = np.zeros(n_epoch)
losses_test = np.zeros(n_epoch)
errors_test = np.zeros(n_epoch)

for epoch in range(n_epoch):
    # loop over batches, in a new order each epoch
    order = torch.randperm(len(y_train))
    for i in range(0, len(y_train), 100):
        x_batch, y_batch = x_train[order[i : i + 100]], y_train[order[i : i + 100]]
        optimizer.zero_grad()
        pred = model(x_batch)
        loss = loss_function(pred, y_batch)
        loss.backward()
        optimizer.step()

    # Run whole dataset to get statistics -- normally wouldn't do this
    pred_train = model(x_train)
    pred_test = model(x_test)
    _, predicted_train_class = torch.max(pred_train.data, 1)
    _, predicted_test_class = torch.max(pred_test.data, 1)
    errors_train[epoch] = 100 - 100 * (predicted_train_class == y_train).float().sum() / len(
        y_train
    )
    errors_test[epoch] = 100 - 100 * (predicted_test_class == y_test).float().sum() / len(y_test)
    losses_train[epoch] = loss_function(pred_train, y_train).item()
    losses_test[epoch] = loss_function(pred_test, y_test).item()
    print(
        f"Epoch {epoch:5d}, train loss {losses_train[epoch]:.6f}, train error "
        f"{errors_train[epoch]:3.2f},  test loss {losses_test[epoch]:.6f}, test error "
        f"{errors_test[epoch]:3.2f}"
    )

    # tell scheduler to consider updating learning rate
    scheduler.step()

print(scheduler.get_last_lr())
print("TrainError %3.2f, Test Error %3.2f" % (errors_train[-1], errors_test[-1]))  # noqa: UP031
