# follows: PyTorch tutorials, Learn the Basics, "Tensors", sections "Initializing a Tensor",
#   "Attributes of a Tensor" and "Operations on Tensors",
#   https://pytorch.org/tutorials/beginner/basics/tensorqs_tutorial.html
"""Tensors from data, from NumPy and from other tensors; their attributes; indexing,
joining, arithmetic, single-element tensors, in-place operations and the NumPy bridge."""

import numpy as np
import torch

data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
torch.manual_seed(0)
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(f"Random Tensor: \n {x_rand} \n")

shape = (2, 3)
print(torch.rand(shape), torch.ones(shape), torch.zeros(shape), sep="\n")

tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")

tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:, 1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)

y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.matmul(tensor, tensor.T)
print(y1, torch.equal(y1, y2), torch.equal(y1, y3))
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.mul(tensor, tensor)
print(torch.equal(z1, z2), torch.equal(z1, z3))

agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \n")
tensor.add_(5)
print(tensor)

t = torch.ones(5)
n = t.numpy()
print(f"t: {t}", f"n: {n}")
t.add_(1)
print(f"t: {t}", f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}", f"n: {n}")
print(x_np, x_np.dtype)
