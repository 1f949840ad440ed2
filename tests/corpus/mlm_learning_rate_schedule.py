# follows: Adrian Tam, "Using Learning Rate Schedule in PyTorch Training",
#   Machine Learning Mastery (applying a schedule in the training loop, then a custom
#   schedule with LambdaLR),
#   https://machinelearningmastery.com/using-learning-rate-schedule-in-pytorch-training/
"""The post's binary classifier (Linear(34, 34), ReLU, Linear(34, 1), Sigmoid) trained
with BCELoss and SGD(lr=0.1) on minibatches, first with lr_scheduler.LinearLR decaying the
rate from 1.0 to 0.5 of its value over 30 epochs, then with a custom LambdaLR schedule;
each epoch prints the rate before and after scheduler.step(), and the model's accuracy on
the test split follows. The ionosphere CSV is replaced by a synthetic set of 34 features
labelled by a random rule, and scikit-learn's train_test_split by a seeded permutation."""

import torch
import torch.nn as nn
import torch.optim as optim
import torch.optim.lr_scheduler as lr_scheduler

torch.manual_seed(42)

# A synthetic stand-in for the ionosphere data set: 34 features, a binary label.
X = torch.rand(200, 34) * 2 - 1
rule = torch.randn(34)
y = ((X @ rule) > 0).float().reshape(-1, 1)
order = torch.randperm(len(X))
X_train, y_train = X[order[:140]], y[order[:140]]
X_test, y_test = X[order[140:]], y[order[140:]]


def train(scheduler_name):
    torch.manual_seed(42)
    model = nn.Sequential(nn.Linear(34, 34), nn.ReLU(), nn.Linear(34, 1), nn.Sigmoid())
    loss_fn = nn.BCELoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    if scheduler_name == "linear":
        scheduler = lr_scheduler.LinearLR(
            optimizer, start_factor=1.0, end_factor=0.5, total_iters=30
        )
    else:

        def lr_lambda(epoch):
            # LR to be 0.1 * (1/1+0.01*epoch)
            base_lr = 0.1
            factor = 0.01
            return base_lr / (1 + factor * epoch)

        scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda)

    n_epochs = 40
    batch_size = 24
    batch_start = torch.arange(0, len(X_train), batch_size)
    for epoch in range(n_epochs):
        model.train()
        for start in batch_start:
            X_batch = X_train[start : start + batch_size]
            y_batch = y_train[start : start + batch_size]
            y_pred = model(X_batch)
            loss = loss_fn(y_pred, y_batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        before_lr = optimizer.param_groups[0]["lr"]
        scheduler.step()
        after_lr = optimizer.param_groups[0]["lr"]
        print("Epoch %d: SGD lr %.4f -> %.4f" % (epoch, before_lr, after_lr))  # noqa: UP031

    model.eval()
    y_pred = model(X_test)
    acc = (y_pred.round() == y_test).float().mean()
    acc = float(acc)
    print("Model accuracy: %.2f%%" % (acc * 100))  # noqa: UP031
    return scheduler


scheduler = train("linear")
print(scheduler.get_last_lr(), scheduler.last_epoch)
scheduler = train("custom")
print(scheduler.get_last_lr())
