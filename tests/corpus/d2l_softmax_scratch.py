# follows: Dive into Deep Learning (d2l.ai), section 4.4 "Softmax Regression Implementation
#   from Scratch" (The Softmax, The Model, The Cross-Entropy Loss, Training),
#   https://d2l.ai/chapter_linear-classification/softmax-regression-scratch.html
"""softmax written with exp and a sum, the model as a matrix product, cross-entropy by
picking the true class's probability, accuracy, and SGD; clustered random points stand
in for Fashion-MNIST."""

import torch


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition


torch.manual_seed(0)
X = torch.rand((2, 5), dtype=torch.float64)
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))

num_inputs, num_outputs, n = 12, 4, 80
centers = torch.randn(num_outputs, num_inputs, dtype=torch.float64)
labels = torch.randint(0, num_outputs, (n,))
features = centers[labels] + 0.8 * torch.randn(n, num_inputs, dtype=torch.float64)

W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), dtype=torch.float64, requires_grad=True)
b = torch.zeros(num_outputs, dtype=torch.float64, requires_grad=True)


def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)


y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[list(range(len(y_hat))), y])


print(cross_entropy(y_hat, y))


def accuracy(y_hat, y):
    y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


print(accuracy(y_hat, y) / len(y))

lr = 0.1
for epoch in range(5):
    for i in range(0, n, 16):
        Xb, yb = features[i : i + 16], labels[i : i + 16]
        loss = cross_entropy(net(Xb), yb)
        loss.sum().backward()
        with torch.no_grad():
            for param in (W, b):
                param -= lr * param.grad / len(yb)
                param.grad.zero_()
    with torch.no_grad():
        train = cross_entropy(net(features), labels).mean()
        print(f"epoch {epoch + 1}, loss {train:.6f}, acc {accuracy(net(features), labels) / n:.3f}")
