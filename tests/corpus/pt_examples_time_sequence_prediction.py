# follows: pytorch/examples, time_sequence_prediction (train.py, generate_sine_wave.py),
#   https://github.com/pytorch/examples/tree/main/time_sequence_prediction
"""Two LSTMCells and a Linear learning sine waves, trained with LBFGS(lr=0.8) in float64.
Adapted: the sine waves are generated in memory (np.random.seed(2) as generate_sine_wave.py)
with 8 waves of 16 points instead of 100 of 1000, hidden size 51 kept; 2 steps of at most
5 L-BFGS iterations instead of 15 of 20, a 10-point future instead of 1000, on the CPU; no
plots. The losses are printed to 12 significant digits, not all 17: float64 matrix
products sum in another order than PyTorch's MKL, and L-BFGS carries the last-bit
differences of the gradients into the next digits."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

np.random.seed(2)
T, L, N = 20, 16, 8
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
traindata = np.sin(x / 1.0 / T).astype("float64")


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for _ in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


np.random.seed(0)
torch.manual_seed(0)
data = torch.from_numpy(traindata)
input = data[3:, :-1]
target = data[3:, 1:]
test_input = data[:3, :-1]
test_target = data[:3, 1:]
seq = Sequence().double()
print(seq)
criterion = nn.MSELoss()
# use LBFGS as optimizer since we can load the whole data to train
optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=5)
for i in range(2):
    print("STEP: ", i)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print("loss:", f"{loss.item():.12g}")
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        future = 10
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print("test loss:", f"{loss.item():.12g}")
        y = pred.detach().numpy()
print(y.shape, np.round(y[0, -5:], 4))
