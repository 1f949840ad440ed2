# follows: MorvanZhou/PyTorch-Tutorial, 402_RNN_classifier.py,
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/402_RNN_classifier.py
"""An LSTM(batch_first=True) reading an image row by row, its last output through a Linear,
trained with Adam and CrossEntropyLoss. Adapted: 8x8 images of 10 made-up digit patterns
with noise in place of MNIST's 28x28 downloads, hidden size 16, batches of 32 drawn by
randperm in place of a DataLoader, 2 epochs of 30 steps; no plot, no Variable (gone since 0.4), and
``loss.item()`` where 0.1's ``loss.data[0]`` stood."""

import torch
from torch import nn

torch.manual_seed(1)  # reproducible

# Hyper Parameters
EPOCH = 2
BATCH_SIZE = 32
TIME_STEP = 8  # rnn time step / image height
INPUT_SIZE = 8  # rnn input size / image width
LR = 0.01  # learning rate

templates = torch.rand(10, TIME_STEP, INPUT_SIZE)
train_y = torch.randint(0, 10, (960,))
train_x = (templates[train_y] + 0.3 * torch.rand(960, TIME_STEP, INPUT_SIZE)).clamp(0, 1)
print(train_x.size())
print(train_y.size())
test_labels = torch.randint(0, 10, (200,))
test_x = (templates[test_labels] + 0.3 * torch.rand(200, TIME_STEP, INPUT_SIZE)).clamp(0, 1)
test_y = test_labels.numpy().squeeze()  # covert to numpy array


class RNN(nn.Module):
    def __init__(self):
        super().__init__()

        self.rnn = nn.LSTM(  # if use nn.RNN(), it hardly learns
            input_size=INPUT_SIZE,
            hidden_size=16,  # rnn hidden unit
            num_layers=1,  # number of rnn layer
            batch_first=True,  # input & output will has batch size as 1s dimension
        )

        self.out = nn.Linear(16, 10)

    def forward(self, x):
        # x shape (batch, time_step, input_size)
        # r_out shape (batch, time_step, output_size)
        # h_n shape (n_layers, batch, hidden_size)
        # h_c shape (n_layers, batch, hidden_size)
        r_out, (h_n, h_c) = self.rnn(x, None)  # None represents zero initial hidden state

        # choose r_out at the last time step
        out = self.out(r_out[:, -1, :])
        return out


rnn = RNN()
print(rnn)

optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)  # optimize all cnn parameters
loss_func = nn.CrossEntropyLoss()  # the target label is not one-hotted

# training and testing
for epoch in range(EPOCH):
    order = torch.randperm(960)
    for step in range(30):
        batch = order[step * BATCH_SIZE : (step + 1) * BATCH_SIZE]
        # reshape x to (batch, time_step, input_size)
        b_x = train_x[batch].view(-1, TIME_STEP, INPUT_SIZE)
        b_y = train_y[batch]  # batch y

        output = rnn(b_x)  # rnn output
        loss = loss_func(output, b_y)  # cross entropy loss
        optimizer.zero_grad()  # clear gradients for this training step
        loss.backward()  # backpropagation, compute gradients
        optimizer.step()  # apply gradients

        if step % 10 == 0:
            test_output = rnn(test_x)  # (samples, time_step, input_size)
            pred_y = torch.max(test_output, 1)[1].data.numpy().squeeze()
            accuracy = sum(pred_y == test_y) / test_y.size
            print(
                "Epoch: ",
                epoch,
                f"| train loss: {loss.item():.4f}",
                f"| test accuracy: {accuracy:.2f}",
            )

# print 10 predictions from test data
test_output = rnn(test_x[:10].view(-1, TIME_STEP, INPUT_SIZE))
pred_y = torch.max(test_output, 1)[1].data.numpy().squeeze()
print(pred_y, "prediction number")
print(test_y[:10], "real number")
