# follows: jcjohnson/pytorch-examples, "PyTorch: Defining new autograd functions"
#   (two_layer_net_custom_function.py), https://github.com/jcjohnson/pytorch-examples#pytorch-defining-new-autograd-functions
"""ReLU as a custom Function that saves its input and zeroes the gradient where the input
was negative, used in the two-layer network in place of clamp."""

import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        grad_input = grad_y.clone()
        grad_input[x < 0] = 0
        return grad_input


dtype = torch.float64
torch.manual_seed(1)
N, D_in, H, D_out = 16, 50, 20, 5
x = torch.randn(N, D_in, dtype=dtype)
y = torch.randn(N, D_out, dtype=dtype)
w1 = torch.randn(D_in, H, dtype=dtype, requires_grad=True)
w2 = torch.randn(H, D_out, dtype=dtype, requires_grad=True)

learning_rate = 1e-5
for t in range(150):
    y_pred = MyReLU.apply(x.mm(w1)).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 50 == 0 or t == 149:
        print(t, f"{loss.item():.8g}")
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

h = x.mm(w1)
h.retain_grad()
MyReLU.apply(h).sum().backward()
print(torch.equal(h.grad, (h > 0).to(dtype)), type(h.grad_fn).__name__)
