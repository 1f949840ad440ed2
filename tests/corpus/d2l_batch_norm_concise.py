# follows: Dive into Deep Learning (d2l.ai), section 8.5 "Batch Normalization" (Concise
#   Implementation, and the running statistics it keeps),
#   https://d2l.ai/chapter_convolutional-modern/batch-norm.html
"""nn.BatchNorm1d between fully connected layers (the chapter's LeNet keeps only its
dense half here), trained with SGD on random data in float64: the batch statistics in
training, the running ones in evaluation, and the scale and shift it learns."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
net = nn.Sequential(
    nn.Flatten(),
    nn.Linear(64, 120),
    nn.BatchNorm1d(120),
    nn.Sigmoid(),
    nn.Linear(120, 84),
    nn.BatchNorm1d(84),
    nn.Sigmoid(),
    nn.Linear(84, 10),
)
print(net)
templates = torch.randn(10, 8, 8)
labels = torch.randint(0, 10, (256,))
images = templates[labels] + torch.randn(256, 8, 8)
loss = nn.CrossEntropyLoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(4):
    net.train()
    for i in range(0, 256, 64):
        l = loss(net(images[i : i + 64]), labels[i : i + 64])
        trainer.zero_grad()
        l.backward()
        trainer.step()
    net.eval()
    with torch.no_grad():
        out = net(images)
    print(epoch + 1, f"{loss(out, labels).item():.6f}", (out.argmax(1) == labels).sum().item())
print(net[2].running_mean[:4], net[2].num_batches_tracked)
print(net[2].weight[:4], net[2].bias[:4])
print(net[5].running_var.reshape((-1,))[:4])
