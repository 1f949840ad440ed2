# follows: Andrej Karpathy, "Building makemore Part 2: MLP" (the embedding table C, indexing
#   C[X], the hidden tanh layer, F.cross_entropy, minibatches and the update loop),
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part2_mlp.ipynb
"""A character-level MLP on a handful of names: context windows of three characters,
embeddings looked up by indexing, a tanh layer, the cross-entropy of PyTorch's functional
API, and gradient steps on minibatches drawn from a seeded Generator."""

import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
V = len(stoi)
block_size = 3
X, Y = [], []
for w in words:
    context = [0] * block_size
    for ch in w + ".":
        ix = stoi[ch]
        X.append(context)
        Y.append(ix)
        context = context[1:] + [ix]
X = torch.tensor(X)
Y = torch.tensor(Y)
print(X.shape, X.dtype, Y.shape, Y.dtype)

g = torch.Generator().manual_seed(2147483647)
C = torch.randn((V, 2), generator=g, dtype=torch.float64)
W1 = torch.randn((6, 50), generator=g, dtype=torch.float64)
b1 = torch.randn(50, generator=g, dtype=torch.float64)
W2 = torch.randn((50, V), generator=g, dtype=torch.float64)
b2 = torch.randn(V, generator=g, dtype=torch.float64)
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

emb = C[X]
print(emb.shape)
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
logits = h @ W2 + b2
counts = logits.exp()
prob = counts / counts.sum(1, keepdims=True)
manual = -prob[torch.arange(len(Y)), Y].log().mean()
print(f"{manual.item():.6f}", f"{F.cross_entropy(logits, Y).item():.6f}")

for i in range(60):
    ix = torch.randint(0, X.shape[0], (16,), generator=g)
    emb = C[X[ix]]
    h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Y[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1
    for p in parameters:
        p.data += -lr * p.grad
    if i % 20 == 0:
        print(i, f"{loss.item():.6f}")

emb = C[X]
h = torch.tanh(emb.view(-1, 6) @ W1 + b1)
print(f"{F.cross_entropy(h @ W2 + b2, Y).item():.6f}", C.grad.shape)
