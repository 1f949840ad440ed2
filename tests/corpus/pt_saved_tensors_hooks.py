# follows: PyTorch tutorials, "Hooks for autograd saved tensors", sections "Saved tensors"
#   and "Registering default hooks for saved tensors",
#   https://pytorch.org/tutorials/intermediate/autograd_saved_tensors_hooks_tutorial.html
"""What a node saves for its backward (an input, or its result), and pack and unpack
hooks that see every tensor saved while they are installed."""

import torch

torch.manual_seed(0)
a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)
y = a * b
print(y.grad_fn._saved_self.equal(a), y.grad_fn._saved_other.equal(b))
print(y.grad_fn._saved_self is a)

x = torch.randn(5, requires_grad=True)
y = x.pow(2)
print(y.grad_fn._saved_self.equal(x), y.grad_fn._saved_self is x)
y = x.exp()
print(y.equal(y.grad_fn._saved_result), y is y.grad_fn._saved_result)

packed = []


def pack_hook(tensor):
    packed.append(tuple(tensor.shape))
    print("Packing", tensor)
    return tensor


def unpack_hook(tensor):
    print("Unpacking", tensor)
    return tensor


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(packed, a.grad)


def pack_scaled(tensor):
    return tensor * 2, "doubled"


def unpack_scaled(packed_value):
    tensor, note = packed_value
    return tensor / 2


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_scaled, unpack_scaled):
    y = x.pow(3)
y.sum().backward()
print(x.grad)
