# follows: PyTorch tutorials, "Jacobians, Hessians, hvp, vhp, and more: composing function
#   transforms", sections "Computing the Jacobian" and "Hessian computation with
#   functorch.hessian", https://pytorch.org/tutorials/intermediate/jacobians_hessians.html
"""The Jacobian of a small layer with respect to its input: row by row with vjp, in one
call with jacrev and jacfwd, over a batch with vmap, and the Hessian of a scalar."""

import torch
import torch.nn.functional as F
from torch.func import hessian, jacfwd, jacrev, vjp, vmap

torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 8
weight = torch.randn(D, D, dtype=torch.float64)
bias = torch.randn(D, dtype=torch.float64)
x = torch.randn(D, dtype=torch.float64)

xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D, dtype=torch.float64)


def compute_jac(xp):
    jacobian_rows = [
        torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors
    ]
    return torch.stack(jacobian_rows)


jacobian = compute_jac(xp)
print(jacobian.shape)
print(jacobian[0])

_, vjp_fn = vjp(predict, weight, bias, x)
rows = torch.stack([vjp_fn(vec)[2] for vec in unit_vectors])
print(torch.allclose(rows, jacobian))

ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(torch.allclose(ft_jacobian, jacobian))
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(torch.allclose(jacfwd(predict, argnums=2)(weight, bias, x), jacobian))

batch = torch.randn(3, D, dtype=torch.float64)
outputs = vmap(lambda x: torch.tanh(weight @ x + bias))(batch)
print(outputs.shape, torch.allclose(outputs[1], predict(weight, bias, batch[1])))

hess = hessian(lambda x: predict(weight, bias, x).sum())(x)
print(hess.shape, torch.allclose(hess, hess.T))
print(hess[0, :4])
