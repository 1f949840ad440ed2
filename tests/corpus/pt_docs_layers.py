# follows: PyTorch documentation, the examples of the layers' pages (Linear, Bilinear,
#   Flatten, Unflatten, Embedding, LayerNorm, BatchNorm1d, Dropout, the activations),
#   https://pytorch.org/docs/stable/nn.html
"""Each page's example on random input of its shapes, printing the output's size and a
few values (the norms and the embedding without their nodes, which gradcli names after
its last op)."""

import torch
from torch import nn

torch.manual_seed(0)
m = nn.Linear(20, 30)
input = torch.randn(128, 20)
output = m(input)
print(output.size(), output[0, :3])

m = nn.Bilinear(20, 30, 40)
input1 = torch.randn(128, 20)
input2 = torch.randn(128, 30)
output = m(input1, input2)
print(output.size())

input = torch.randn(32, 1, 5, 5)
m = nn.Flatten()
print(m(input).size())
m = nn.Flatten(0, 2)
print(m(input).size())
input = torch.randn(2, 50)
m = nn.Sequential(nn.Linear(50, 50), nn.Unflatten(1, (2, 5, 5)))
print(m(input).size())

embedding = nn.Embedding(10, 3)
input = torch.LongTensor([[1, 2, 4, 5], [4, 3, 2, 9]])
print(embedding(input).detach())
embedding = nn.Embedding(10, 3, padding_idx=0)
input = torch.LongTensor([[0, 2, 0, 5]])
print(embedding(input).detach())
padding_idx = 0
embedding = nn.Embedding(3, 3, padding_idx=padding_idx)
print(embedding.weight)
weight = torch.FloatTensor([[1, 2.3, 3], [4, 5.1, 6.3]])
embedding = nn.Embedding.from_pretrained(weight)
print(embedding(torch.LongTensor([1])).detach(), embedding.weight.requires_grad)

batch, sentence_length, embedding_dim = 20, 5, 10
embedding = torch.randn(batch, sentence_length, embedding_dim, dtype=torch.float64)
layer_norm = nn.LayerNorm(embedding_dim, dtype=torch.float64)
out = layer_norm(embedding)
print(
    out.shape, f"{abs(out[0, 0].mean().item()):.6f}", f"{out[0, 0].std(unbiased=False).item():.6f}"
)

m = nn.BatchNorm1d(100, dtype=torch.float64)
m = nn.BatchNorm1d(100, affine=False, dtype=torch.float64)
input = torch.randn(20, 100, dtype=torch.float64)
output = m(input)
print(output.shape, f"{abs(output[:, 0].mean().item()):.6f}", m.running_mean[:3], m.running_var[:3])

m = nn.Dropout(p=0.2)
input = torch.randn(20, 16)
output = m(input)
print((output == 0).sum().item(), output[0, :4])

for m in [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.GELU(), nn.LeakyReLU(0.1), nn.ELU(), nn.SiLU(),
          nn.Softplus(), nn.Softmax(dim=1), nn.LogSoftmax(dim=1)]:  # fmt: skip
    input = torch.randn(2, 3)
    print(m, m(input))
