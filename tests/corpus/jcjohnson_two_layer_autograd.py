# follows: jcjohnson/pytorch-examples, "PyTorch: Autograd" (two_layer_net_autograd.py),
#   https://github.com/jcjohnson/pytorch-examples#pytorch-autograd
"""A two-layer ReLU network fitted to random data: the forward pass with mm and clamp, the
loss's backward, and weight updates under no_grad with the gradients zeroed after. In
float64 and smaller than the original, so that it runs in a moment."""

import torch

dtype = torch.float64
device = torch.device("cpu")
torch.manual_seed(0)
N, D_in, H, D_out = 16, 100, 20, 5

x = torch.randn(N, D_in, device=device, dtype=dtype)
y = torch.randn(N, D_out, device=device, dtype=dtype)
w1 = torch.randn(D_in, H, device=device, dtype=dtype, requires_grad=True)
w2 = torch.randn(H, D_out, device=device, dtype=dtype, requires_grad=True)

learning_rate = 1e-5
for t in range(200):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 40 == 0 or t == 199:
        print(t, f"{loss.item():.8g}")
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
print(y_pred.grad_fn, loss.grad_fn.next_functions[0][0])
