# follows: Andrej Karpathy, "Building makemore Part 4: Becoming a Backprop Ninja" (exercise 1:
#   backpropagating through the cross-entropy step by step; exercise 2: dlogits at once),
#   https://github.com/karpathy/nn-zero-to-hero/blob/master/lectures/makemore/makemore_part4_backprop.ipynb
"""The cross-entropy of a batch broken into its steps, each intermediate keeping its
gradient (retain_grad), the gradient of each step derived by hand and compared with
autograd's, and dlogits in one formula."""

import torch
import torch.nn.functional as F


def cmp(s, dt, t):
    app = torch.allclose(dt, t.grad, atol=1e-12, rtol=1e-9)
    print(f"{s:15s} | approximate: {str(app):5s}")


torch.manual_seed(42)
n, vocab = 8, 6
logits = torch.randn(n, vocab, dtype=torch.float64, requires_grad=True)
Yb = torch.randint(0, vocab, (n,))

logit_maxes = logits.max(1, keepdim=True).values
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum**-1
probs = counts * counts_sum_inv
logprobs = probs.log()
loss = -logprobs[range(n), Yb].mean()
for t in [logprobs, probs, counts_sum_inv, counts_sum, counts, norm_logits, logit_maxes]:
    t.retain_grad()
loss.backward()
print(f"{loss.item():.10f}", f"{F.cross_entropy(logits, Yb).item():.10f}")

dlogprobs = torch.zeros_like(logprobs)
dlogprobs[range(n), Yb] = -1.0 / n
dprobs = (1.0 / probs) * dlogprobs
dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
dcounts = counts_sum_inv * dprobs
dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
dcounts += torch.ones_like(counts) * dcounts_sum
dnorm_logits = counts * dcounts
dlogits = dnorm_logits.clone()
dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
dlogits[range(n), logits.max(1).indices] += dlogit_maxes[:, 0]

cmp("logprobs", dlogprobs, logprobs)
cmp("probs", dprobs, probs)
cmp("counts_sum_inv", dcounts_sum_inv, counts_sum_inv)
cmp("counts_sum", dcounts_sum, counts_sum)
cmp("counts", dcounts, counts)
cmp("norm_logits", dnorm_logits, norm_logits)
cmp("logit_maxes", dlogit_maxes, logit_maxes)
cmp("logits", dlogits, logits)
print(f"{dlogit_maxes.abs().max().item() < 1e-12}")

dlogits_fast = F.softmax(logits, 1)
dlogits_fast[range(n), Yb] -= 1
dlogits_fast /= n
cmp("logits (fast)", dlogits_fast, logits)
print(dlogits_fast.sum(1).abs().max().item() < 1e-12)
