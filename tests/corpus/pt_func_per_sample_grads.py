# follows: PyTorch tutorials, "Per-sample-gradients", sections "Per-sample-grads, the
#   efficient way, using function transforms",
#   https://pytorch.org/tutorials/intermediate/per_sample_grads.html
"""The gradient of the loss for each sample of a batch: one backward per sample, then
vmap over grad, with the parameters as plain tensors instead of a module."""

import torch
import torch.nn.functional as F
from torch.func import grad, vmap

torch.manual_seed(0)
dtype = torch.float64
params = {
    "w1": torch.randn(4, 6, dtype=dtype) * 0.5,
    "b1": torch.zeros(4, dtype=dtype),
    "w2": torch.randn(3, 4, dtype=dtype) * 0.5,
    "b2": torch.zeros(3, dtype=dtype),
}
data = torch.randn(5, 6, dtype=dtype)
targets = torch.tensor([0, 2, 1, 1, 0])


def model(p, x):
    hidden = torch.relu(x @ p["w1"].T + p["b1"])
    return hidden @ p["w2"].T + p["b2"]


def compute_loss(p, sample, target):
    # The cross-entropy of one sample, written with tensor operations.
    log_probs = torch.log_softmax(model(p, sample), dim=-1)
    picked = torch.arange(3) == target
    return -(picked * log_probs).sum()


def compute_grad(sample, target):
    p = {k: v.detach().requires_grad_() for k, v in params.items()}
    loss = compute_loss(p, sample, target)
    assert torch.allclose(loss, F.cross_entropy(model(p, sample[None]), target[None]))
    return torch.autograd.grad(loss, list(p.values()))


def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(len(data))]
    return [torch.stack(shards) for shards in zip(*sample_grads)]


per_sample_grads = compute_sample_grads(data, targets)
print([g.shape for g in per_sample_grads])


def loss_of(w1, b1, w2, b2, sample, target):
    return compute_loss({"w1": w1, "b1": b1, "w2": w2, "b2": b2}, sample, target)


# The parameters one by one (argnums), each held fixed across the batch (in_dims None).
ft_compute_grad = grad(loss_of, argnums=(0, 1, 2, 3))
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(*params.values(), data, targets)
for per_sample_grad, ft_per_sample_grad in zip(per_sample_grads, ft_per_sample_grads):
    print(torch.allclose(per_sample_grad, ft_per_sample_grad, atol=1e-12, rtol=1e-10))
print(ft_per_sample_grads[3])
