# follows: Dive into Deep Learning (d2l.ai), section 15.4 "Pretraining word2vec" (The
#   Skip-Gram Model: Embedding Layer, Defining the Forward Propagation; Training: Binary
#   Cross-Entropy Loss), https://d2l.ai/chapter_natural-language-processing-pretraining/word2vec-pretraining.html
"""An nn.Embedding looked up by index, the skip-gram forward pass with bmm, the masked
binary cross-entropy with logits, and a few Adam steps on random centre and context
words in float64."""

import torch
from torch import nn

torch.manual_seed(0)
embed = nn.Embedding(num_embeddings=20, embedding_dim=4)
print(f"Parameter embedding_weight ({embed.weight.shape}, dtype={embed.weight.dtype})")
x = torch.tensor([[1, 2, 3], [4, 5, 6]])
print(embed(x).detach())


def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
    v = embed_v(center)
    u = embed_u(contexts_and_negatives)
    pred = torch.bmm(v, u.permute(0, 2, 1))
    return pred


print(
    skip_gram(
        torch.ones((2, 1), dtype=torch.long), torch.ones((2, 4), dtype=torch.long), embed, embed
    ).shape
)


class SigmoidBCELoss(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, inputs, target, mask=None):
        out = nn.functional.binary_cross_entropy_with_logits(
            inputs, target, weight=mask, reduction="none"
        )
        return out.mean(dim=1)


loss = SigmoidBCELoss()
pred = torch.tensor([[1.1, -2.2, 3.3, -4.4]] * 2)
label = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
print(loss(pred, label, mask) * mask.shape[1] / mask.sum(axis=1))

vocab, embed_size = 30, 8
net = nn.Sequential(
    nn.Embedding(num_embeddings=vocab, embedding_dim=embed_size, dtype=torch.float64),
    nn.Embedding(num_embeddings=vocab, embedding_dim=embed_size, dtype=torch.float64),
)
optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
center = torch.randint(0, vocab, (16, 1))
context_negative = torch.randint(0, vocab, (16, 5))
labels = torch.zeros(16, 5, dtype=torch.float64)
labels[:, :2] = 1
masks = torch.ones(16, 5, dtype=torch.float64)
for step in range(20):
    optimizer.zero_grad()
    pred = skip_gram(center, context_negative, net[0], net[1])
    l = loss(pred.reshape(labels.shape), labels, masks) * masks.shape[1] / masks.sum(axis=1)
    l.sum().backward()
    optimizer.step()
    if step % 5 == 4:
        print(step + 1, f"{l.sum().item():.8f}")
print(net[0].weight.grad.abs().sum(1)[:6])
