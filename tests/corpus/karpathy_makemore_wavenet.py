# follows: Andrej Karpathy, "Building makemore Part 5: Building a WaveNet" (Embedding,
#   FlattenConsecutive, the hierarchical network of Linear, BatchNorm1d and Tanh in a
#   Sequential, training, eval mode and sampling),
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part5_cnn1.ipynb
"""The lecture's hierarchical ("WaveNet") model on a made-up list of names, built with
torch.nn as the lecture says its own layers mirror: nn.Embedding, nn.Linear(bias=False),
nn.Tanh and nn.Sequential, with the lecture's FlattenConsecutive and its BatchNorm1d (which
averages over the first two dimensions of a 3-d input, as torch.nn's does not) written as
nn.Module subclasses with registered buffers. The p.data update is optim.SGD with the
lecture's step decay set in param_groups. Shrunk: 12/32 in place of 24/128 units, 300
steps; the raw prints of the split losses are left out (their last float32 bits are those
of BLAS's order of additions), the formatted training prints and the samples kept."""

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
print(vocab_size)

block_size = 8  # context length: how many characters do we take to predict the next one?


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


Xtr, Ytr = build_dataset(words[:28])
Xdev, Ydev = build_dataset(words[28:])
for x, y in zip(Xtr[:10], Ytr[:10]):
    print("".join(itos[ix.item()] for ix in x), "-->", itos[y.item()])


class BatchNorm1d(nn.Module):
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        # parameters (trained with backprop)
        self.gamma = nn.Parameter(torch.ones(dim))
        self.beta = nn.Parameter(torch.zeros(dim))
        # buffers (trained with a running 'momentum update')
        self.register_buffer("running_mean", torch.zeros(dim))
        self.register_buffer("running_var", torch.ones(dim))

    def forward(self, x):
        if self.training:
            dim = 0 if x.ndim == 2 else (0, 1)
            xmean = x.mean(dim, keepdim=True)  # batch mean
            xvar = x.var(dim, keepdim=True)  # batch variance
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)  # normalize to unit variance
        out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return out


class FlattenConsecutive(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        B, T, C = x.shape
        x = x.view(B, T // self.n, C * self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        return x


torch.manual_seed(42)  # seed rng for reproducibility
n_embd = 12  # the dimensionality of the character embedding vectors
n_hidden = 32  # the number of neurons in the hidden layer of the MLP
H = n_hidden
model = nn.Sequential(
    nn.Embedding(vocab_size, n_embd),
    FlattenConsecutive(2), nn.Linear(n_embd * 2, H, bias=False), BatchNorm1d(H), nn.Tanh(),
    FlattenConsecutive(2), nn.Linear(H * 2, H, bias=False), BatchNorm1d(H), nn.Tanh(),
    FlattenConsecutive(2), nn.Linear(H * 2, H, bias=False), BatchNorm1d(H), nn.Tanh(),
    nn.Linear(H, vocab_size),
)  # fmt: skip
with torch.no_grad():
    model[-1].weight *= 0.1  # last layer make less confident
print(model)
print(sum(p.nelement() for p in model.parameters()))  # number of parameters in total
print([name for name, _ in model.named_buffers()][:4])

max_steps = 300
batch_size = 32
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
lossi = []
for i in range(max_steps):
    # minibatch construct
    ix = torch.randint(0, Xtr.shape[0], (batch_size,))
    Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

    logits = model(Xb)
    loss = F.cross_entropy(logits, Yb)  # loss function

    optimizer.zero_grad(set_to_none=True)
    loss.backward()

    lr = 0.1 if i < 200 else 0.01  # step learning rate decay
    for group in optimizer.param_groups:
        group["lr"] = lr
    optimizer.step()

    if i % 50 == 0:  # print every once in a while
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
    lossi.append(loss.log10().item())

print(torch.tensor(lossi).view(-1, 100).mean(1))

# put layers into eval mode (needed for batchnorm especially)
model.eval()
print(model[3].running_mean[:4])
with torch.no_grad():
    print(f"val {F.cross_entropy(model(Xdev), Ydev).item():.4f}")

# sample from the model
for _ in range(10):
    out = []
    context = [0] * block_size  # initialize with all ...
    while True:
        logits = model(torch.tensor([context]))
        probs = F.softmax(logits, dim=1)
        ix = torch.multinomial(probs, num_samples=1).item()
        context = context[1:] + [ix]
        out.append(ix)
        if ix == 0:
            break
    print("".join(itos[i] for i in out))  # decode and print the generated word
