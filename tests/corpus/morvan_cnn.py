# follows: MorvanZhou/PyTorch-Tutorial, "401_CNN.py" (two Conv2d-ReLU-MaxPool2d blocks
#   and a Linear classifier trained with Adam and CrossEntropyLoss),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/401_CNN.py
"""The tutorial's CNN (Conv2d(in_channels=1, out_channels=16, kernel_size=5, stride=1,
padding=2), ReLU, MaxPool2d(kernel_size=2); Conv2d(16, 32, 5, 1, 2), ReLU, MaxPool2d(2);
x.view(x.size(0), -1) into Linear(32 * 3 * 3, 10), returning the flattened features too)
on random 12x12 images of 10 classes made from templates, in place of MNIST's 28x28
digits; minibatches of 50 cut by hand in place of a DataLoader, 6 steps of one epoch,
and the tutorial's test accuracy and 10 printed predictions."""

import torch
import torch.nn as nn

torch.manual_seed(1)

EPOCH = 1
BATCH_SIZE = 50
LR = 0.001

templates = torch.rand(10, 1, 12, 12)
train_y = torch.randint(0, 10, (300,))
train_x = (templates[train_y] + 0.5 * torch.rand(300, 1, 12, 12)) / 1.5
test_y = torch.randint(0, 10, (200,))
test_x = (templates[test_y] + 0.5 * torch.rand(200, 1, 12, 12)) / 1.5
print(train_x.size(), train_y.size())


class CNN(nn.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.conv1 = nn.Sequential(
            nn.Conv2d(
                in_channels=1,
                out_channels=16,
                kernel_size=5,
                stride=1,
                padding=2,
            ),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2),
        )
        self.conv2 = nn.Sequential(
            nn.Conv2d(16, 32, 5, 1, 2),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.out = nn.Linear(32 * 3 * 3, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = self.conv2(x)
        x = x.view(x.size(0), -1)
        output = self.out(x)
        return output, x


cnn = CNN()
print(cnn)

optimizer = torch.optim.Adam(cnn.parameters(), lr=LR)
loss_func = nn.CrossEntropyLoss()

for epoch in range(EPOCH):
    for step in range(len(train_x) // BATCH_SIZE):
        b_x = train_x[step * BATCH_SIZE : (step + 1) * BATCH_SIZE]
        b_y = train_y[step * BATCH_SIZE : (step + 1) * BATCH_SIZE]
        output = cnn(b_x)[0]
        loss = loss_func(output, b_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if step % 2 == 0:
            test_output, last_layer = cnn(test_x)
            pred_y = torch.max(test_output, 1)[1].data.numpy()
            correct = (pred_y == test_y.data.numpy()).astype(int).sum()
            accuracy = float(correct) / float(test_y.size(0))
            print(
                "Epoch: ",
                epoch,
                "| train loss: %.4f" % loss.data.numpy(),
                "| test accuracy: %.2f" % accuracy,
            )
print(last_layer.shape)

test_output, _ = cnn(test_x[:10])
pred_y = torch.max(test_output, 1)[1].data.numpy()
print(pred_y, "prediction number")
print(test_y[:10].numpy(), "real number")
