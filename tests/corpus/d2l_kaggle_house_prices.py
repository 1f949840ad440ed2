# follows: Dive into Deep Learning (d2l.ai), section 5.7 "Predicting House Prices on
#   Kaggle" (standardised features, a linear model, log RMSE, Adam, K-fold validation),
#   https://d2l.ai/chapter_multilayer-perceptrons/kaggle-house-price.html
"""The chapter's pipeline: features standardised, nn.Linear(in, 1) trained with MSELoss
and Adam (lr=5, weight_decay=0) on minibatches of 64, measured by the log RMSE (prices
clamped at 1), and 5-fold cross-validation. The Kaggle data (a download) is replaced by
400 synthetic houses of 8 numeric features, priced in thousands; fewer epochs, float64."""

import torch
from torch import nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
n, d = 400, 8
raw = torch.rand(n, d) * torch.tensor([3000, 10, 5, 100, 4, 2, 50, 1])
true_w = torch.tensor([60.0, 8e3, 1.2e4, 300.0, 5e3, 9e3, 100.0, 2e4])
prices = 5e4 + raw @ true_w + 1e4 * torch.randn(n)
features = (raw - raw.mean(dim=0)) / raw.std(dim=0)
labels = (prices / 1000).reshape(-1, 1)  # in thousands
print(features.shape, features[:2].round(decimals=4), labels[:2].round(decimals=3), sep="\n")

loss = nn.MSELoss()


def get_net():
    return nn.Sequential(nn.Linear(features.shape[1], 1))


def log_rmse(net, features, labels):
    # To further stabilize the value when the logarithm is taken, set the value less than
    # 1 as 1
    clipped_preds = torch.clamp(net(features), 1, float("inf"))
    rmse = torch.sqrt(loss(torch.log(clipped_preds), torch.log(labels)))
    return rmse.item()


def train(net, train_features, train_labels, test_features, test_labels, num_epochs,
          learning_rate, weight_decay, batch_size):  # fmt: skip
    train_ls, test_ls = [], []
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, weight_decay=weight_decay)
    for _ in range(num_epochs):
        for i in range(0, len(train_features), batch_size):
            X, y = train_features[i : i + batch_size], train_labels[i : i + batch_size]
            optimizer.zero_grad()
            l = loss(net(X), y)
            l.backward()
            optimizer.step()
        with torch.no_grad():
            train_ls.append(log_rmse(net, train_features, train_labels))
            if test_labels is not None:
                test_ls.append(log_rmse(net, test_features, test_labels))
    return train_ls, test_ls


def get_k_fold_data(k, i, X, y):
    assert k > 1
    fold_size = X.shape[0] // k
    X_train, y_train = None, None
    for j in range(k):
        idx = slice(j * fold_size, (j + 1) * fold_size)
        X_part, y_part = X[idx, :], y[idx]
        if j == i:
            X_valid, y_valid = X_part, y_part
        elif X_train is None:
            X_train, y_train = X_part, y_part
        else:
            X_train = torch.cat([X_train, X_part], 0)
            y_train = torch.cat([y_train, y_part], 0)
    return X_train, y_train, X_valid, y_valid


def k_fold(k, X_train, y_train, num_epochs, learning_rate, weight_decay, batch_size):
    train_l_sum, valid_l_sum = 0, 0
    for i in range(k):
        data = get_k_fold_data(k, i, X_train, y_train)
        torch.manual_seed(i)
        net = get_net()
        train_ls, valid_ls = train(net, *data, num_epochs, learning_rate, weight_decay,
                                   batch_size)  # fmt: skip
        train_l_sum += train_ls[-1]
        valid_l_sum += valid_ls[-1]
        print(f"fold {i + 1}, train log rmse {float(train_ls[-1]):f}, "
              f"valid log rmse {float(valid_ls[-1]):f}")  # fmt: skip
    return train_l_sum / k, valid_l_sum / k


k, num_epochs, lr, weight_decay, batch_size = 5, 60, 5, 0, 64
train_l, valid_l = k_fold(k, features[:320], labels[:320], num_epochs, lr, weight_decay,
                          batch_size)  # fmt: skip
print(f"{k}-fold validation: avg train log rmse: {float(train_l):f}, "
      f"avg valid log rmse: {float(valid_l):f}")  # fmt: skip

torch.manual_seed(0)
net = get_net()
train_ls, _ = train(net, features[:320], labels[:320], None, None, num_epochs, lr,
                    weight_decay, batch_size)  # fmt: skip
print(f"train log rmse {float(train_ls[-1]):f}")
preds = net(features[320:]).detach().numpy()
print(preds[:5].reshape(-1).round(1))
