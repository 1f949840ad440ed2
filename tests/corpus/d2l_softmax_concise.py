# follows: Dive into Deep Learning (d2l.ai), section 4.5 "Concise Implementation of
#   Softmax Regression" (Defining the Model, Softmax Revisited, Training),
#   https://d2l.ai/chapter_linear-classification/softmax-regression-concise.html
"""nn.Sequential of Flatten and Linear, weights from init_weights through net.apply,
CrossEntropyLoss on the logits and SGD; 8x8 random images of 10 classes in float64
stand in for Fashion-MNIST."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
templates = torch.randn(10, 8, 8)
train_y = torch.randint(0, 10, (500,))
train_x = templates[train_y] + torch.randn(500, 8, 8)
test_y = torch.randint(0, 10, (100,))
test_x = templates[test_y] + torch.randn(100, 8, 8)

net = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.1)


def accuracy(y_hat, y):
    return float((y_hat.argmax(axis=1).type(y.dtype) == y).sum())


for epoch in range(5):
    net.train()
    total, correct, count = 0.0, 0.0, 0
    for i in range(0, 500, 50):
        X, y = train_x[i : i + 50], train_y[i : i + 50]
        y_hat = net(X)
        l = loss(y_hat, y)
        trainer.zero_grad()
        l.mean().backward()
        trainer.step()
        total += float(l.sum())
        correct += accuracy(y_hat, y)
        count += y.numel()
    net.eval()
    with torch.no_grad():
        test_acc = accuracy(net(test_x), test_y) / len(test_y)
    loss_avg, train_acc = total / count, correct / count
    print(f"epoch {epoch + 1}: loss {loss_avg:.5f}, train acc {train_acc:.3f}, test {test_acc:.3f}")
print(net)
print(net[1].weight.norm().item() > 0, net[1].bias.shape)
