# follows: Andrej Karpathy, "Building makemore Part 3: Activations & Gradients, BatchNorm"
#   (the deeper network of Linear, BatchNorm1d and Tanh layers, its training loop, the
#   activation and gradient statistics per layer, eval mode, sampling),
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part3_bn.ipynb
"""The lecture's "PyTorchified" deeper MLP on a made-up list of names, built from torch.nn's
Linear(bias=False), BatchNorm1d and Tanh (the lecture's own classes follow their API; the
lecture's BatchNorm1d uses the unbiased variance where torch.nn's uses the biased one),
the output layer's gamma scaled by 0.1, trained with optim.SGD and the lecture's step
decay. The per-layer statistics are taken from each Tanh's output, kept by a forward hook
(with retain_grad) where the lecture stores layer.out. Shrunk: four hidden layers of 32
units, 400 steps, the histograms' plots and the raw prints of split losses left out."""

import torch
import torch.nn as nn
import torch.nn.functional as F

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia",
         "harper", "evelyn", "abigail", "emily", "elizabeth", "mila", "ella", "avery",
         "sofia", "camila", "aria", "scarlett", "victoria", "madison", "luna", "grace",
         "chloe", "penelope", "layla", "riley", "zoey", "nora", "lily", "eleanor"]  # fmt: skip
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)
print(itos)
print(vocab_size)

block_size = 3  # context length: how many characters do we take to predict the next one?


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]  # crop and append
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


Xtr, Ytr = build_dataset(words)

n_embd = 10  # the dimensionality of the character embedding vectors
n_hidden = 32  # the number of neurons in the hidden layer of the MLP
g = torch.Generator().manual_seed(2147483647)  # for reproducibility
torch.manual_seed(2147483647)

C = nn.Embedding(vocab_size, n_embd)
H = n_hidden
layers = nn.Sequential(
    nn.Linear(n_embd * block_size, H, bias=False), nn.BatchNorm1d(H), nn.Tanh(),
    nn.Linear(H, H, bias=False), nn.BatchNorm1d(H), nn.Tanh(),
    nn.Linear(H, H, bias=False), nn.BatchNorm1d(H), nn.Tanh(),
    nn.Linear(H, H, bias=False), nn.BatchNorm1d(H), nn.Tanh(),
    nn.Linear(H, vocab_size, bias=False), nn.BatchNorm1d(vocab_size),
)  # fmt: skip

with torch.no_grad():
    # last layer: make less confident
    layers[-1].weight *= 0.1
    # all other layers: apply gain
    for layer in layers[:-1]:
        if isinstance(layer, nn.Linear):
            layer.weight *= 5 / 3


def keep_output(module, inputs, output):
    if output.requires_grad:  # not under no_grad
        output.retain_grad()
    module.out = output


for layer in layers:
    if isinstance(layer, nn.Tanh):
        layer.register_forward_hook(keep_output)

parameters = list(C.parameters()) + list(layers.parameters())
print(sum(p.nelement() for p in parameters))  # number of parameters in total
optimizer = torch.optim.SGD(parameters, lr=0.1)

max_steps = 400
batch_size = 32
lossi = []
for i in range(max_steps):
    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

    # forward pass
    emb = C(Xb)  # embed the characters into vectors
    x = emb.view(emb.shape[0], -1)  # concatenate the vectors
    x = layers(x)
    loss = F.cross_entropy(x, Yb)  # loss function

    # backward pass
    optimizer.zero_grad()
    loss.backward()

    # update
    optimizer.param_groups[0]["lr"] = 0.1 if i < 300 else 0.01  # step learning rate decay
    optimizer.step()

    # track stats
    if i % 50 == 0:  # print every once in a while
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
    lossi.append(loss.log10().item())

# activation distribution
for i, layer in enumerate(layers[:-1]):  # note: exclude the output layer
    if isinstance(layer, nn.Tanh):
        t = layer.out
        print(
            "layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%"  # noqa: UP031
            % (
                i,
                layer.__class__.__name__,
                t.mean(),
                t.std(),
                (t.abs() > 0.97).float().mean() * 100,
            )
        )

# gradient distribution
for i, layer in enumerate(layers[:-1]):
    if isinstance(layer, nn.Tanh):
        t = layer.out.grad
        print("layer %d (%10s): std %.2e" % (i, layer.__class__.__name__, t.std()))  # noqa: UP031

# weights gradient distribution
for p in parameters:
    t = p.grad
    if p.ndim == 2:
        print(
            "weight %10s | grad:data ratio %.3e"  # noqa: UP031
            % (tuple(p.shape), t.std() / p.std())
        )

print(layers[1])
print(layers[1].running_mean[:4], layers[1].num_batches_tracked)

# put layers into eval mode
layers.eval()
with torch.no_grad():
    loss = F.cross_entropy(layers(C(Xtr).view(Xtr.shape[0], -1)), Ytr)
print(f"train {loss.item():.4f}")

# sample from the model
g = torch.Generator().manual_seed(2147483647 + 10)
for _ in range(10):
    out = []
    context = [0] * block_size  # initialize with all ...
    while True:
        emb = C(torch.tensor([context]))  # (1,block_size,n_embd)
        x = emb.view(emb.shape[0], -1)  # concatenate the vectors
        logits = layers(x)
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=g).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break
    print("".join(itos[i] for i in out))  # decode and print the generated word
