# follows: PyTorch documentation, "torch.einsum" (the examples: trace, diagonal, outer
#   product, batch matrix multiplication, sublist format, broadcasting with an ellipsis,
#   bilinear transformation), https://pytorch.org/docs/stable/generated/torch.einsum.html
"""The examples of torch.einsum's page, then their gradients: einsum differentiated through
PyTorch's decomposition (the grad_fn it prints), and a second derivative, in float64."""

import torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)

# trace
print(torch.einsum("ii", torch.randn(4, 4)))
# diagonal
print(torch.einsum("ii->i", torch.randn(4, 4)))
# outer product
x = torch.randn(5)
y = torch.randn(4)
print(torch.einsum("i,j->ij", x, y))
# batch matrix multiplication
As = torch.randn(3, 2, 5)
Bs = torch.randn(3, 5, 4)
print(torch.einsum("bij,bjk->bik", As, Bs))
# with sublist format and ellipsis
print(torch.einsum(As, [..., 0, 1], Bs, [..., 1, 2], [..., 0, 2]))
# batch permute
A = torch.randn(2, 3, 4, 5)
print(torch.einsum("...ij->...ji", A).shape)
# equivalent to torch.nn.functional.bilinear
A = torch.randn(3, 5, 4)
l = torch.randn(2, 5)
r = torch.randn(2, 4)
print(torch.einsum("bn,anm,bm->ba", l, A, r))

# the same products, differentiated
a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(3, 4, requires_grad=True)
c = torch.einsum("ij,jk->ik", a, b)
print(c.grad_fn, torch.einsum("ij->ji", a).grad_fn, torch.einsum("ij->", a).grad_fn)
print(torch.einsum("i,j->ij", a[0], b[0]).grad_fn)
c.sum().backward()
print(a.grad, b.grad, sep="\n")
print(torch.allclose(a.grad, b.sum(1).expand(2, 3)), torch.allclose(c, a @ b))

v = torch.randn(3, requires_grad=True)
M = torch.randn(3, 3)
quadratic = torch.einsum("i,ij,j", v, M, v)
(g,) = torch.autograd.grad(quadratic, v, create_graph=True)
print(torch.allclose(g, (M + M.T) @ v))
H = torch.stack([torch.autograd.grad(g[i], v, retain_graph=True)[0] for i in range(3)])
print(torch.allclose(H, M + M.T))
