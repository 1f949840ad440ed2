# follows: d2l, Multilayer Perceptrons, 5.1.2 Activation Functions (ReLU, sigmoid, tanh and
#   their derivatives), https://d2l.ai/chapter_multilayer-perceptrons/mlp.html
"""The activation functions and their gradients on arange(-8, 8, 0.1), printed where d2l
plots them; x.grad.data.zero_() between the gradients, as the chapter does."""

import torch

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
print(x.shape, x[36:44])
y = torch.relu(x)
print(y[76:84])
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad[76:84])

y = torch.sigmoid(x)
print(y[36:44])
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad[36:44])
print(x.grad.max(), x.grad.argmax())

y = torch.tanh(x)
print(y[::20])
x.grad.data.zero_()
y.backward(torch.ones_like(x), retain_graph=True)
print(x.grad[::20])
print(x.detach()[38].item(), x.detach().sum().item())
