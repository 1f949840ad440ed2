# follows: PyTorch tutorials, Learn the Basics, "Automatic Differentiation with torch.autograd",
#   sections "Tensors, Functions and Computational graph" and "Computing Gradients",
#   https://pytorch.org/tutorials/beginner/basics/autogradqs_tutorial.html
"""A one-layer network: input ones, target zeros, random weight and bias, the logistic
loss, its graph's nodes and the gradients of the parameters."""

import torch

torch.manual_seed(42)
x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)

print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
print("z =", z)
print("loss =", loss)

loss.backward()
print(w.grad)
print(b.grad)

# Only leaves that require grad keep .grad; a second backward needs retain_graph.
try:
    loss.backward()
except RuntimeError as error:
    print("second backward:", str(error).split(".")[0])
