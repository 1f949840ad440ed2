# follows: jcjohnson/pytorch-examples, "PyTorch: Tensors" (two_layer_net_tensor.py: the
#   backward pass written by hand), https://github.com/jcjohnson/pytorch-examples#pytorch-tensors
"""The two-layer network's gradients computed by hand with tensor operations, then the
same gradients from autograd: they agree."""

import torch

dtype = torch.float64
torch.manual_seed(2)
N, D_in, H, D_out = 8, 30, 10, 4
x = torch.randn(N, D_in, dtype=dtype)
y = torch.randn(N, D_out, dtype=dtype)
w1 = torch.randn(D_in, H, dtype=dtype)
w2 = torch.randn(H, D_out, dtype=dtype)

learning_rate = 1e-5
for t in range(100):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum().item()
    if t % 25 == 0:
        print(t, f"{loss:.8g}")
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h_relu = grad_y_pred.mm(w2.t())
    grad_h = grad_h_relu.clone()
    grad_h[h < 0] = 0
    grad_w1 = x.t().mm(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2

a1 = w1.clone().requires_grad_()
a2 = w2.clone().requires_grad_()
(x.mm(a1).clamp(min=0).mm(a2) - y).pow(2).sum().backward()
h = x.mm(w1)
grad_y_pred = 2.0 * (h.clamp(min=0).mm(w2) - y)
grad_w2 = h.clamp(min=0).t().mm(grad_y_pred)
grad_h = grad_y_pred.mm(w2.t())
grad_h[h < 0] = 0
print(torch.allclose(a2.grad, grad_w2), torch.allclose(a1.grad, x.t().mm(grad_h)))
