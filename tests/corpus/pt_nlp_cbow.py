# follows: PyTorch tutorials, "Word Embeddings: Encoding Lexical Semantics", section
#   "Exercise: Computing Word Embeddings: Continuous Bag-of-Words",
#   https://pytorch.org/tutorials/beginner/nlp/word_embeddings_tutorial.html
"""The exercise's data (each word of the tutorial's paragraph on computational processes
with two words of context on each side) and make_context_vector, and the CBOW model the
exercise asks for: the context's embeddings summed, a linear layer and log_softmax,
trained with NLLLoss and SGD. The epoch losses, the predictions for a few contexts and
a word's embedding are printed (rounded). In float64, a few epochs."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.set_default_dtype(torch.float64)
torch.manual_seed(1)

CONTEXT_SIZE = 2  # 2 words to the left, 2 to the right
EMBEDDING_DIM = 10
raw_text = """We are about to study the idea of a computational process.
Computational processes are abstract beings that inhabit computers.
As they evolve, processes manipulate other abstract things called data.
The evolution of a process is directed by a pattern of rules
called a program. People create programs to direct processes. In effect,
we conjure the spirits of the computer with our spells.""".split()

# By deriving a set from `raw_text`, we deduplicate the array
vocab = sorted(set(raw_text))  # sorted: a set's order varies from run to run
vocab_size = len(vocab)

word_to_ix = {word: i for i, word in enumerate(vocab)}
ix_to_word = {i: word for word, i in word_to_ix.items()}
data = []
for i in range(CONTEXT_SIZE, len(raw_text) - CONTEXT_SIZE):
    context = [raw_text[i - j - 1] for j in range(CONTEXT_SIZE)] + [
        raw_text[i + j + 1] for j in range(CONTEXT_SIZE)
    ]
    target = raw_text[i]
    data.append((context, target))
print(data[:5])


class CBOW(nn.Module):
    def __init__(self, vocab_size, embedding_dim):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear = nn.Linear(embedding_dim, vocab_size)

    def forward(self, inputs):
        embeds = self.embeddings(inputs).sum(dim=0).view(1, -1)
        return F.log_softmax(self.linear(embeds), dim=1)


# Create your model and train. Here are some functions to help you make
# the data ready for use by your module.
def make_context_vector(context, word_to_ix):
    idxs = [word_to_ix[w] for w in context]
    return torch.tensor(idxs, dtype=torch.long)


print(make_context_vector(data[0][0], word_to_ix))  # example

loss_function = nn.NLLLoss()
model = CBOW(vocab_size, EMBEDDING_DIM)
optimizer = optim.SGD(model.parameters(), lr=0.01)
losses = []
for _epoch in range(8):
    total_loss = 0
    for context, target in data:
        model.zero_grad()
        log_probs = model(make_context_vector(context, word_to_ix))
        loss = loss_function(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long))
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    losses.append(round(total_loss, 4))
print(losses)

with torch.no_grad():
    for context, target in data[:6]:
        predicted = model(make_context_vector(context, word_to_ix)).argmax(dim=1).item()
        print(context, "->", ix_to_word[predicted], f"({target})")
print(model.embeddings.weight[word_to_ix["processes"]].detach().round(decimals=4))
