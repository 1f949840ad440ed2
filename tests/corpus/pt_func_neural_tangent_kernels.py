# follows: PyTorch tutorials, "Neural Tangent Kernels" (torch.func: the empirical NTK by
#   Jacobian contraction with functional_call, vmap and jacrev, then einsum),
#   https://pytorch.org/tutorials/intermediate/neural_tangent_kernels.html
"""The empirical NTK of a model, computed as the tutorial's Jacobian contraction: the
Jacobians of functional_call over the parameters by vmap(jacrev), contracted by
torch.einsum ("Naf,Mbf->NMab", then the "full", "trace" and "diagonal" compute modes).
The tutorial's CNN (conv layers) is replaced by an MLP of the same role; float64."""

import torch
import torch.nn as nn
from torch.func import functional_call, jacrev, vmap

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


net = MLP()
x_train = torch.randn(4, 6)
x_test = torch.randn(3, 6)
params = {k: v.detach() for k, v in net.named_parameters()}


def fnet_single(params, x):
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


def empirical_ntk_jacobian_contraction(fnet_single, params, x1, x2, compute="full"):
    # Compute J(x1)
    jac1 = vmap(jacrev(fnet_single), (None, 0))(params, x1)
    jac1 = jac1.values()
    jac1 = [j.flatten(2) for j in jac1]
    # Compute J(x2)
    jac2 = vmap(jacrev(fnet_single), (None, 0))(params, x2)
    jac2 = jac2.values()
    jac2 = [j.flatten(2) for j in jac2]
    # Compute J(x1) @ J(x2).T
    einsum_expr = None
    if compute == "full":
        einsum_expr = "Naf,Mbf->NMab"
    elif compute == "trace":
        einsum_expr = "Naf,Maf->NM"
    elif compute == "diagonal":
        einsum_expr = "Naf,Maf->NMa"
    else:
        raise AssertionError(compute)
    result = torch.stack([torch.einsum(einsum_expr, j1, j2) for j1, j2 in zip(jac1, jac2)])
    result = result.sum(0)
    return result


result = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test)
print(result.shape)
print(result[0, 0].round(decimals=6))
trace = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "trace")
diagonal = empirical_ntk_jacobian_contraction(fnet_single, params, x_train, x_test, "diagonal")
print(trace.shape, diagonal.shape)
print(torch.allclose(trace, result.diagonal(dim1=-2, dim2=-1).sum(-1)))
print(torch.allclose(diagonal, result.diagonal(dim1=-2, dim2=-1)))
print(trace.round(decimals=6))

# The same kernel from the Jacobians of each output by autograd.grad, row by row.
rows = []
for x in x_train:
    out = net(x)
    grads = [
        torch.autograd.grad(out[a], list(net.parameters()), retain_graph=True) for a in range(3)
    ]
    rows.append(torch.stack([torch.cat([g.flatten() for g in gs]) for gs in grads]))
J1 = torch.stack(rows)
rows = []
for x in x_test:
    out = net(x)
    grads = [
        torch.autograd.grad(out[a], list(net.parameters()), retain_graph=True) for a in range(3)
    ]
    rows.append(torch.stack([torch.cat([g.flatten() for g in gs]) for gs in grads]))
J2 = torch.stack(rows)
print(torch.allclose(torch.einsum("Naf,Mbf->NMab", J1, J2), result))
