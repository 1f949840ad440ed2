# follows: Dive into Deep Learning (zh.d2l.ai), section 8.6 "循环神经网络的简洁实现"
#   (Concise Implementation of Recurrent Neural Networks),
#   https://zh.d2l.ai/chapter_recurrent-neural-networks/rnn-concise.html
"""nn.RNN(len(vocab), num_hiddens) inside d2l's RNNModel (one-hot inputs, a Linear on every
step's hidden state), trained as train_ch8 does: sequential minibatches, the state detached
between them, CrossEntropyLoss, gradient clipping to norm 1 and SGD, then predict_ch8's
greedy continuation of a prefix. Adapted: a tiny made-up text in place of The Time
Machine's download, 32 hidden units, batches of 4 sequences of 10 characters, 20 epochs;
the perplexity printed without the tokens per second."""

import math
import random

import torch
from torch import nn
from torch.nn import functional as F

random.seed(0)
torch.manual_seed(0)
text = (
    "the time traveller for so it will be convenient to speak of him was expounding a "
    "recondite matter to us his grey eyes shone and twinkled and his usually pale face "
    "was flushed and animated the fire burned brightly and the soft radiance of the "
    "incandescent lights in the lilies of silver caught the bubbles that flashed and "
    "passed in our glasses "
)
counts = {}
for ch in text:
    counts[ch] = counts.get(ch, 0) + 1
idx_to_token = ["<unk>"] + [
    ch for ch, _ in sorted(counts.items(), key=lambda x: x[1], reverse=True)
]
token_to_idx = {token: idx for idx, token in enumerate(idx_to_token)}
corpus = [token_to_idx[ch] for ch in text]
print(len(idx_to_token), len(corpus), idx_to_token[:8])


def seq_data_iter_sequential(corpus, batch_size, num_steps):
    """使用顺序分区生成一个小批量子序列"""
    offset = random.randint(0, num_steps)
    num_tokens = ((len(corpus) - offset - 1) // batch_size) * batch_size
    Xs = torch.tensor(corpus[offset : offset + num_tokens])
    Ys = torch.tensor(corpus[offset + 1 : offset + 1 + num_tokens])
    Xs, Ys = Xs.reshape(batch_size, -1), Ys.reshape(batch_size, -1)
    num_batches = Xs.shape[1] // num_steps
    for i in range(0, num_steps * num_batches, num_steps):
        yield Xs[:, i : i + num_steps], Ys[:, i : i + num_steps]


batch_size, num_steps = 4, 10
num_hiddens = 32
rnn_layer = nn.RNN(len(idx_to_token), num_hiddens)
state = torch.zeros((1, batch_size, num_hiddens))
print(state.shape)
X = torch.rand(size=(num_steps, batch_size, len(idx_to_token)))
Y, state_new = rnn_layer(X, state)
print(Y.shape, state_new.shape)


class RNNModel(nn.Module):
    """循环神经网络模型"""

    def __init__(self, rnn_layer, vocab_size, **kwargs):
        super().__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        if not self.rnn.bidirectional:
            self.num_directions = 1
            self.linear = nn.Linear(self.num_hiddens, self.vocab_size)
        else:
            self.num_directions = 2
            self.linear = nn.Linear(self.num_hiddens * 2, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        # 全连接层首先将Y的形状改为(时间步数*批量大小,隐藏单元数)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, device, batch_size=1):
        if not isinstance(self.rnn, nn.LSTM):
            return torch.zeros(
                (self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens),
                device=device,
            )
        return (
            torch.zeros(
                (self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens),
                device=device,
            ),
            torch.zeros(
                (self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens),
                device=device,
            ),
        )


def predict_ch8(prefix, num_preds, net, device):
    """在prefix后面生成新字符"""
    state = net.begin_state(batch_size=1, device=device)
    outputs = [token_to_idx[prefix[0]]]
    get_input = lambda: torch.tensor([outputs[-1]], device=device).reshape((1, 1))
    for y in prefix[1:]:  # 预热期
        _, state = net(get_input(), state)
        outputs.append(token_to_idx[y])
    for _ in range(num_preds):  # 预测num_preds步
        y, state = net(get_input(), state)
        outputs.append(int(y.argmax(dim=1).reshape(1)))
    return "".join([idx_to_token[i] for i in outputs])


def grad_clipping(net, theta):
    """裁剪梯度"""
    params = [p for p in net.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum(p.grad**2) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


def train_epoch_ch8(net, loss, updater, device):
    state = None
    total, count = 0.0, 0
    for X, Y in seq_data_iter_sequential(corpus, batch_size, num_steps):
        if state is None:
            state = net.begin_state(batch_size=X.shape[0], device=device)
        elif isinstance(state, torch.Tensor):
            state.detach_()
        else:
            for s in state:
                s.detach_()
        y = Y.T.reshape(-1)
        y_hat, state = net(X, state)
        l = loss(y_hat, y.long()).mean()
        updater.zero_grad()
        l.backward()
        grad_clipping(net, 1)
        updater.step()
        total += l.item() * y.numel()
        count += y.numel()
    return math.exp(total / count)


device = torch.device("cpu")
net = RNNModel(rnn_layer, vocab_size=len(idx_to_token))
net = net.to(device)
print(net)
print(predict_ch8("time traveller", 10, net, device))
num_epochs, lr = 20, 1
loss = nn.CrossEntropyLoss()
updater = torch.optim.SGD(net.parameters(), lr)
for epoch in range(num_epochs):
    ppl = train_epoch_ch8(net, loss, updater, device)
    if (epoch + 1) % 5 == 0:
        print(epoch + 1, f"{ppl:.1f}", predict_ch8("time traveller", 20, net, device))
print(f"困惑度 {ppl:.1f}, {str(device)}")
print(predict_ch8("time traveller", 30, net, device))
print(predict_ch8("traveller", 30, net, device))
