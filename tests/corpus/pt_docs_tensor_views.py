# follows: PyTorch documentation, "Tensor Views" (a view shares its base's data; which ops
#   return views; contiguous() copies), https://pytorch.org/docs/stable/tensor_view.html,
#   and "torch.Tensor.untyped_storage",
#   https://pytorch.org/docs/stable/generated/torch.Tensor.untyped_storage.html
"""Views share their base's storage: untyped_storage().data_ptr() compared between a tensor,
its views and its copies, a change through a view seen in the base, strides of transposes
and slices, is_contiguous and contiguous(), and the storage's size in bytes."""

import torch

t = torch.rand(4, 4)
b = t.view(2, 8)
print(t.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())
b[0][0] = 3.14
print(t[0][0])

base = torch.tensor([[0, 1], [2, 3]])
print(base.is_contiguous())
t = base.transpose(0, 1)
print(t.is_contiguous(), t.stride(), base.stride())
c = t.contiguous()
print(c.is_contiguous(), c.stride())
print(c.untyped_storage().data_ptr() == base.untyped_storage().data_ptr())
print(t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr())

x = torch.arange(12.0).reshape(3, 4)
row, col = x[1], x[:, 2]
print(row.storage_offset(), col.storage_offset(), col.stride(), x.element_size())
print(row.data_ptr() - x.data_ptr() == row.storage_offset() * x.element_size())
storage = x.untyped_storage()
print(len(storage), storage.nbytes(), x.numel() * x.element_size())
print(x.clone().untyped_storage().data_ptr() == storage.data_ptr())
print(x.detach().untyped_storage().data_ptr() == storage.data_ptr())
print(x.flatten().untyped_storage().data_ptr() == storage.data_ptr())
print(x.t().reshape(-1).untyped_storage().data_ptr() == storage.data_ptr())
col.mul_(10)
print(x)
print(torch.tensor([1.0, 2.0], dtype=torch.float64).untyped_storage())
