# follows: Dive into Deep Learning (d2l.ai), section 5.2 "Implementation of Multilayer
#   Perceptrons", Concise Implementation,
#   https://d2l.ai/chapter_multilayer-perceptrons/mlp-implementation.html
"""nn.Sequential(Flatten, Linear, ReLU, Linear) with normal_(std=0.01) initialisation,
trained with CrossEntropyLoss and SGD on random 6x6 images of 5 classes, in float64."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(1)
num_inputs, num_outputs, num_hiddens = 36, 5, 64
templates = torch.randn(num_outputs, 6, 6)
labels = torch.randint(0, num_outputs, (300,))
images = templates[labels] + 1.5 * torch.randn(300, 6, 6)

net = nn.Sequential(
    nn.Flatten(), nn.Linear(num_inputs, num_hiddens), nn.ReLU(), nn.Linear(num_hiddens, num_outputs)
)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, std=0.01)


net.apply(init_weights)
batch_size, lr, num_epochs = 30, 0.1, 6
loss = nn.CrossEntropyLoss()
trainer = torch.optim.SGD(net.parameters(), lr=lr)
for epoch in range(num_epochs):
    for i in range(0, len(images), batch_size):
        l = loss(net(images[i : i + batch_size]), labels[i : i + batch_size])
        trainer.zero_grad()
        l.backward()
        trainer.step()
    with torch.no_grad():
        full = loss(net(images), labels)
        acc = (net(images).argmax(1) == labels).double().mean()
    print(f"epoch {epoch + 1}, loss {full:.5f}, accuracy {acc:.3f}")
print(net)
