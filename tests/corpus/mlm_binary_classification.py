# follows: Adrian Tam, "Building a Binary Classification Model in PyTorch", Machine
#   Learning Mastery (the wide and the deep model, the training loop keeping the best
#   weights, cross-validation, running the model in inference mode),
#   https://machinelearningmastery.com/building-a-binary-classification-model-in-pytorch/
"""The post's two models for a 60-feature, two-class problem, a wide one (60, 180, 1) and a
deep one (60, 60, 60, 60, 1), ReLU hidden layers and a sigmoid output, their parameter
counts compared, then its model_train: BCELoss and Adam on minibatches, the test accuracy
after each epoch, the best weights kept with copy.deepcopy(model.state_dict()) and restored
with load_state_dict. The sonar CSV is replaced by a synthetic set (60 features in [0, 1],
labelled by a random rule); scikit-learn's StratifiedKFold by three folds taken in order;
20 epochs in place of 250 and a learning rate of 0.001; the inference prints rounded."""

import copy

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)

# A synthetic stand-in for the sonar data set: 60 features in [0, 1], a binary label.
X = torch.rand(120, 60)
rule = torch.randn(60)
y = ((X - 0.5) @ rule > 0).float().reshape(-1, 1)
print(X.shape, y.shape, int(y.sum()))


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(60, 180)
        self.relu = nn.ReLU()
        self.output = nn.Linear(180, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        x = self.relu(self.hidden(x))
        x = self.sigmoid(self.output(x))
        return x


class Deep(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(60, 60)
        self.act1 = nn.ReLU()
        self.layer2 = nn.Linear(60, 60)
        self.act2 = nn.ReLU()
        self.layer3 = nn.Linear(60, 60)
        self.act3 = nn.ReLU()
        self.output = nn.Linear(60, 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        x = self.act1(self.layer1(x))
        x = self.act2(self.layer2(x))
        x = self.act3(self.layer3(x))
        x = self.sigmoid(self.output(x))
        return x


# Compare model sizes
model1 = Wide()
model2 = Deep()
print(sum([x.reshape(-1).shape[0] for x in model1.parameters()]))  # 11161
print(sum([x.reshape(-1).shape[0] for x in model2.parameters()]))  # 11041


# Helper function to train one model
def model_train(model, X_train, y_train, X_val, y_val):
    # loss function and optimizer
    loss_fn = nn.BCELoss()  # binary cross entropy
    optimizer = optim.Adam(model.parameters(), lr=0.001)

    n_epochs = 20  # number of epochs to run
    batch_size = 10  # size of each batch
    batch_start = torch.arange(0, len(X_train), batch_size)

    # Hold the best model
    best_acc = -np.inf  # init to negative infinity
    best_weights = None

    for epoch in range(n_epochs):  # noqa: B007  (the post's)
        model.train()
        for start in batch_start:
            # take a batch
            X_batch = X_train[start : start + batch_size]
            y_batch = y_train[start : start + batch_size]
            # forward pass
            y_pred = model(X_batch)
            loss = loss_fn(y_pred, y_batch)
            # backward pass
            optimizer.zero_grad()
            loss.backward()
            # update weights
            optimizer.step()
        # evaluate accuracy at end of each epoch
        model.eval()
        y_pred = model(X_val)
        acc = (y_pred.round() == y_val).float().mean()
        acc = float(acc)
        if acc > best_acc:
            best_acc = acc
            best_weights = copy.deepcopy(model.state_dict())
    # restore model and return best accuracy
    model.load_state_dict(best_weights)
    return best_acc


# train-test split: hold out the last 30 rows for the final model
X_train, X_test, y_train, y_test = X[:90], X[90:], y[:90], y[90:]

# three folds, in order, in place of StratifiedKFold
folds = [torch.arange(i, i + 30) for i in range(0, 90, 30)]
cv_scores_wide = []
for k, test in enumerate(folds):
    train = torch.cat([f for j, f in enumerate(folds) if j != k])
    model = Wide()
    acc = model_train(model, X_train[train], y_train[train], X_train[test], y_train[test])
    print("Accuracy (wide): %.2f" % acc)  # noqa: UP031  (the post's)
    cv_scores_wide.append(acc)
cv_scores_deep = []
for k, test in enumerate(folds):
    train = torch.cat([f for j, f in enumerate(folds) if j != k])
    model = Deep()
    acc = model_train(model, X_train[train], y_train[train], X_train[test], y_train[test])
    print("Accuracy (deep): %.2f" % acc)  # noqa: UP031
    cv_scores_deep.append(acc)

# evaluate the model
wide_acc = np.mean(cv_scores_wide)
wide_std = np.std(cv_scores_wide)
deep_acc = np.mean(cv_scores_deep)
deep_std = np.std(cv_scores_deep)
print("Wide: %.2f%% (+/- %.2f%%)" % (wide_acc * 100, wide_std * 100))  # noqa: UP031
print("Deep: %.2f%% (+/- %.2f%%)" % (deep_acc * 100, deep_std * 100))  # noqa: UP031

# rebuild model with full set of training data
if wide_acc > deep_acc:
    print("Retrain a wide model")
    model = Wide()
else:
    print("Retrain a deep model")
    model = Deep()
acc = model_train(model, X_train, y_train, X_test, y_test)
print(f"Final model accuracy: {acc * 100:.2f}%")

model.eval()
with torch.no_grad():
    # Test out inference with 5 samples
    for i in range(5):
        y_pred = model(X_test[i : i + 1])
        head, pred, expected = X_test[i, :3].numpy(), y_pred[0].round().numpy(), y_test[i].numpy()
        print(f"{head}... -> {pred} (expected {expected})")
