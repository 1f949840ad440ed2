# follows: MorvanZhou/PyTorch-Tutorial, "503_dropout.py" (an overfitting net and one with
#   Dropout(0.5), trained together with Adam, compared on test data in eval mode),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/503_dropout.py
"""The tutorial's 20 noisy training and test points (torch.normal(zeros, ones)), its two
Sequential nets (with and without Dropout after each hidden Linear), and its loop that
every 10 steps switches both to eval(), measures the test loss, and back to train();
100 hidden units and 100 steps in place of 300 and 500, the losses it writes on the plot
printed instead."""

import torch

torch.manual_seed(1)

N_SAMPLES = 20
N_HIDDEN = 100

x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
y = x + 0.3 * torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))

test_x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
test_y = test_x + 0.3 * torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))

net_overfitting = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, N_HIDDEN),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)

net_dropped = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN),
    torch.nn.Dropout(0.5),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, N_HIDDEN),
    torch.nn.Dropout(0.5),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)

print(net_overfitting)
print(net_dropped)

optimizer_ofit = torch.optim.Adam(net_overfitting.parameters(), lr=0.01)
optimizer_drop = torch.optim.Adam(net_dropped.parameters(), lr=0.01)
loss_func = torch.nn.MSELoss()

for t in range(100):
    pred_ofit = net_overfitting(x)
    pred_drop = net_dropped(x)
    loss_ofit = loss_func(pred_ofit, y)
    loss_drop = loss_func(pred_drop, y)

    optimizer_ofit.zero_grad()
    optimizer_drop.zero_grad()
    loss_ofit.backward()
    loss_drop.backward()
    optimizer_ofit.step()
    optimizer_drop.step()

    if t % 10 == 0:
        net_overfitting.eval()
        net_dropped.eval()
        test_pred_ofit = net_overfitting(test_x)
        test_pred_drop = net_dropped(test_x)
        print(
            "step %d train %.4f %.4f | overfitting loss=%.4f dropout loss=%.4f"
            % (
                t,
                loss_ofit.item(),
                loss_drop.item(),
                loss_func(test_pred_ofit, test_y).data.numpy(),
                loss_func(test_pred_drop, test_y).data.numpy(),
            )
        )
        net_overfitting.train()
        net_dropped.train()

print(net_dropped.training, net_dropped[1].training, net_dropped[1].p)
net_dropped.eval()
print(torch.equal(net_dropped(test_x), net_dropped(test_x)))
