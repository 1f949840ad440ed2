# follows: pytorch-handbook (zergtant), chapter 2 "2.2 深度学习基础及数学原理"
#   (线性回归: a Linear(1, 1) fitted with MSELoss and SGD; 损失函数; 优化器: SGD with
#   momentum, RMSprop, Adam),
#   https://github.com/zergtant/pytorch-handbook/blob/master/chapter2/2.2-deep-learning-basic-mathematics.ipynb
"""The chapter's linear regression: 256 noisy points of y = 5x + 7 from np.random (seeded),
a Linear(1, 1), MSELoss and SGD(lr=0.01) imported by name, the inputs through
torch.from_numpy of float32 arrays, the loss printed every 100 epochs for 1000 epochs in
place of 3000, the learned parameters and their errors; then the optimisers the chapter
shows (SGD with momentum, RMSprop, Adam) each made on the model and taking 100 more
steps in place of only being made, with the seaborn and matplotlib plots left out."""

import numpy as np
import torch
from torch.nn import Linear, MSELoss
from torch.optim import SGD

torch.manual_seed(0)
np.random.seed(0)

x = np.random.rand(256)
noise = np.random.randn(256) / 4
y = x * 5 + 7 + noise

model = Linear(1, 1)
criterion = MSELoss()
optim = SGD(model.parameters(), lr=0.01)
epochs = 1000
x_train = x.reshape(-1, 1).astype("float32")
y_train = y.reshape(-1, 1).astype("float32")

for i in range(epochs):
    inputs = torch.from_numpy(x_train)
    labels = torch.from_numpy(y_train)
    outputs = model(inputs)
    optim.zero_grad()
    loss = criterion(outputs, labels)
    loss.backward()
    optim.step()
    if i % 100 == 0:
        print("epoch {}, loss {:1.4f}".format(i, loss.data.item()))

[w, b] = model.parameters()
print(w.item(), b.item())
predicted = model.forward(torch.from_numpy(x_train)).data.numpy()
print(predicted[:3], predicted.dtype)

for optimizer in [
    torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
    torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.99),
    torch.optim.Adam(model.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-08),
]:
    for _ in range(100):
        optimizer.zero_grad()
        loss = criterion(model(torch.from_numpy(x_train)), torch.from_numpy(y_train))
        loss.backward()
        optimizer.step()
    print(type(optimizer).__name__, "loss {:1.4f}".format(loss.item()))

print(5 - w.data.item(), 7 - b.data.item())
