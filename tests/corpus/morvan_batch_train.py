# follows: MorvanZhou/PyTorch-Tutorial, "305_batch_train.py" (a TensorDataset and a
#   shuffling DataLoader giving minibatches of 5, epoch after epoch),
#   https://github.com/MorvanZhou/PyTorch-Tutorial/blob/master/tutorial-contents/305_batch_train.py
"""The tutorial's x = linspace(1, 10, 10) and y = linspace(10, 1, 10) in a
Data.TensorDataset, a Data.DataLoader(batch_size=5, shuffle=True) read for 3 epochs with
each batch printed through .numpy(), then BATCH_SIZE = 8 (the tutorial's other setting,
the last batch shorter). Where the tutorial writes "train your data...", a Linear(1, 1)
takes one SGD step on each batch, its loss printed. The loader runs in the main process
(num_workers=0 in place of 2)."""

import torch
import torch.utils.data as Data

torch.manual_seed(1)

BATCH_SIZE = 5

x = torch.linspace(1, 10, 10)
y = torch.linspace(10, 1, 10)

torch_dataset = Data.TensorDataset(x, y)
loader = Data.DataLoader(dataset=torch_dataset, batch_size=BATCH_SIZE, shuffle=True)

net = torch.nn.Linear(1, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
loss_func = torch.nn.MSELoss()


def show_batch():
    for epoch in range(3):
        for step, (batch_x, batch_y) in enumerate(loader):
            print(
                "Epoch: ", epoch, "| Step: ", step, "| batch x: ", batch_x.numpy(),
                "| batch y: ", batch_y.numpy(),
            )  # fmt: skip
            loss = loss_func(net(batch_x.unsqueeze(1)), batch_y.unsqueeze(1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print("  loss %.4f" % loss.item())


if __name__ == "__main__":
    show_batch()
    BATCH_SIZE = 8
    loader = Data.DataLoader(dataset=torch_dataset, batch_size=BATCH_SIZE, shuffle=True)
    show_batch()
    print(net.weight.data, net.bias.data)
