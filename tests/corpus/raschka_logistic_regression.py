# follows: Sebastian Raschka, deeplearning-models, "Logistic Regression" (the autograd
#   version LogisticRegression2 and the nn.Module version LogisticRegression3 with
#   BCELoss(reduction='sum') and SGD),
#   https://github.com/rasbt/deeplearning-models/blob/master/pytorch_ipynb/basic-ml/logistic-regression.ipynb
"""The notebook's second and third logistic regressions on a two-feature, two-class data
set: zero-initialised weights trained by hand through autograd (the detached update and
grad.zero_()), then torch.nn.Linear with its weights zeroed through .detach().zero_(),
sigmoid, BCELoss(reduction='sum') and optim.SGD; each epoch prints the training accuracy
and cost, then the parameters and the test accuracy. The Iris download is replaced by two
Gaussian blobs drawn with a seeded NumPy generator, standardised as the notebook does."""

import numpy as np
import torch

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

# Two Gaussian blobs in place of the first 100 Iris flowers' sepal measures.
rng = np.random.RandomState(1)
x = np.vstack([rng.normal([5.0, 3.4], 0.35, (50, 2)), rng.normal([5.9, 2.8], 0.4, (50, 2))])
y = np.zeros(100)
y[50:] = 1

np.random.seed(1)
idx = np.arange(y.shape[0])
np.random.shuffle(idx)
X_test, y_test = x[idx[:25]], y[idx[:25]]
X_train, y_train = x[idx[25:]], y[idx[25:]]
mu, std = np.mean(X_train, axis=0), np.std(X_train, axis=0)
X_train, X_test = (X_train - mu) / std, (X_test - mu) / std


def custom_where(cond, x_1, x_2):
    return (cond * x_1) + ((1 - cond) * x_2)


class LogisticRegression2:
    def __init__(self, num_features):
        self.num_features = num_features
        self.weights = torch.zeros(
            num_features, 1, dtype=torch.float32, device=device, requires_grad=True
        )  # req. for autograd!
        self.bias = torch.zeros(1, dtype=torch.float32, device=device, requires_grad=True)

    def forward(self, x):
        linear = torch.add(torch.mm(x, self.weights), self.bias)
        probas = self._sigmoid(linear)
        return probas

    def predict_labels(self, x):
        probas = self.forward(x)
        labels = custom_where((probas >= 0.5).float(), 1, 0)
        return labels

    def evaluate(self, x, y):
        labels = self.predict_labels(x)
        accuracy = (torch.sum(labels.view(-1) == y.view(-1))).float() / y.size()[0]
        return accuracy

    def _sigmoid(self, z):
        return 1.0 / (1.0 + torch.exp(-z))

    def _logit_cost(self, y, proba):
        tmp1 = torch.mm(-y.view(1, -1), torch.log(proba))
        tmp2 = torch.mm((1 - y).view(1, -1), torch.log(1 - proba))
        return tmp1 - tmp2

    def train(self, x, y, num_epochs, learning_rate=0.01):
        for e in range(num_epochs):
            #### Compute outputs ####
            proba = self.forward(x)
            cost = self._logit_cost(y, proba)

            #### Compute gradients ####
            cost.backward()

            #### Update weights ####
            tmp = self.weights.detach()
            tmp -= learning_rate * self.weights.grad

            tmp = self.bias.detach()
            tmp -= learning_rate * self.bias.grad

            #### Reset gradients to zero for next iteration ####
            self.weights.grad.zero_()
            self.bias.grad.zero_()

            #### Logging ####
            print("Epoch: %03d" % (e + 1), end="")  # noqa: UP031  (the notebook's)
            print(" | Train ACC: %.3f" % self.evaluate(x, y), end="")  # noqa: UP031
            print(" | Cost: %.3f" % self._logit_cost(y, self.forward(x)))  # noqa: UP031


X_train_tensor = torch.tensor(X_train, dtype=torch.float32, device=device)
y_train_tensor = torch.tensor(y_train, dtype=torch.float32, device=device)

logr = LogisticRegression2(num_features=2)
logr.train(X_train_tensor, y_train_tensor, num_epochs=10, learning_rate=0.1)

print("\nModel parameters:")
print("  Weights: %s" % logr.weights)  # noqa: UP031
print("  Bias: %s" % logr.bias)  # noqa: UP031

X_test_tensor = torch.tensor(X_test, dtype=torch.float32, device=device)
y_test_tensor = torch.tensor(y_test, dtype=torch.float32, device=device)

test_acc = logr.evaluate(X_test_tensor, y_test_tensor)
print("Test set accuracy: %.2f%%" % (test_acc * 100))  # noqa: UP031


class LogisticRegression3(torch.nn.Module):
    def __init__(self, num_features):
        super(LogisticRegression3, self).__init__()  # noqa: UP008  (the notebook's)
        self.linear = torch.nn.Linear(num_features, 1)
        # initialize weights to zeros here,
        # since we used zero weights in the
        # manual approach
        self.linear.weight.detach().zero_()
        self.linear.bias.detach().zero_()

    def forward(self, x):
        logits = self.linear(x)
        probas = torch.sigmoid(logits)
        return probas


model = LogisticRegression3(num_features=2).to(device)

##### Define cost function and set up optimizer #####
cost_fn = torch.nn.BCELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def comp_accuracy(label_var, pred_probas):
    pred_labels = custom_where((pred_probas > 0.5).float(), 1, 0).view(-1)
    acc = torch.sum(pred_labels == label_var.view(-1)).float() / label_var.size(0)
    return acc


num_epochs = 10
y_train_tensor = torch.tensor(y_train, dtype=torch.float32, device=device).view(-1, 1)

for epoch in range(num_epochs):
    #### Compute outputs ####
    out = model(X_train_tensor)

    #### Compute gradients ####
    cost = cost_fn(out, y_train_tensor)
    optimizer.zero_grad()
    cost.backward()

    #### Update weights ####
    optimizer.step()

    #### Logging ####
    pred_probas = model(X_train_tensor)
    acc = comp_accuracy(y_train_tensor, pred_probas)
    print("Epoch: %03d" % (epoch + 1), end="")  # noqa: UP031
    print(" | Train ACC: %.3f" % acc, end="")  # noqa: UP031
    print(" | Cost: %.3f" % cost_fn(pred_probas, y_train_tensor))  # noqa: UP031

print("\nModel parameters:")
print("  Weights: %s" % model.linear.weight)  # noqa: UP031
print("  Bias: %s" % model.linear.bias)  # noqa: UP031

pred_probas = model(X_test_tensor)
test_acc = comp_accuracy(y_test_tensor, pred_probas)
print("Test set accuracy: %.2f%%" % (test_acc * 100))  # noqa: UP031
