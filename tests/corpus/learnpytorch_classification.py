# follows: Zero to Mastery Learn PyTorch for Deep Learning, "02. PyTorch Neural Network
#   Classification" (binary classification of two circles: a linear model, then one with
#   ReLU non-linearities), https://www.learnpytorch.io/02_pytorch_classification/
"""Two circles told apart: nn.Sequential of Linear layers with BCEWithLogitsLoss and
SGD(lr=0.1), an accuracy function, a linear model that cannot separate them and CircleModelV2
with ReLU that can; losses and accuracies every 100 epochs. sklearn's make_circles is
replaced by 400 points drawn with torch on two noisy circles; train/test split by hand."""

import math

import torch
from torch import nn

torch.manual_seed(42)
n_samples = 400
angles = torch.rand(n_samples) * 2 * math.pi
labels = (torch.arange(n_samples) % 2).type(torch.float)
radius = torch.where(labels == 1, torch.tensor(0.8), torch.tensor(1.0))
X = torch.stack([radius * angles.cos(), radius * angles.sin()], dim=1)
X = X + 0.03 * torch.randn(n_samples, 2)
y = labels
print(X[:5], y[:5])
print(X.shape, y.shape)
X_train, X_test = X[:320], X[320:]
y_train, y_test = y[:320], y[320:]


def accuracy_fn(y_true, y_pred):
    correct = torch.eq(y_true, y_pred).sum().item()
    return (correct / len(y_pred)) * 100


def fit(model, epochs, lr=0.1):
    loss_fn = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.SGD(params=model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.train()
        y_logits = model(X_train).squeeze()
        y_pred = torch.round(torch.sigmoid(y_logits))
        loss = loss_fn(y_logits, y_train)
        acc = accuracy_fn(y_true=y_train, y_pred=y_pred)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.eval()
        with torch.inference_mode():
            test_logits = model(X_test).squeeze()
            test_pred = torch.round(torch.sigmoid(test_logits))
            test_loss = loss_fn(test_logits, y_test)
            test_acc = accuracy_fn(y_true=y_test, y_pred=test_pred)
        if epoch % 100 == 0:
            print(
                f"Epoch: {epoch} | Loss: {loss:.5f}, Accuracy: {acc:.2f}% | "
                f"Test loss: {test_loss:.5f}, Test acc: {test_acc:.2f}%"
            )


torch.manual_seed(42)
model_0 = nn.Sequential(nn.Linear(in_features=2, out_features=5), nn.Linear(5, 1))
print(model_0)
with torch.inference_mode():
    untrained_preds = model_0(X_test)
print(f"Length of predictions: {len(untrained_preds)}, Shape: {untrained_preds.shape}")
print(f"First 10 predictions:\n{untrained_preds[:10]}")
y_logits = model_0(X_test)[:5]
print(y_logits)
y_pred_probs = torch.sigmoid(y_logits)
print(y_pred_probs, torch.round(y_pred_probs))
fit(model_0, 300)


class CircleModelV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = nn.Linear(in_features=2, out_features=10)
        self.layer_2 = nn.Linear(in_features=10, out_features=10)
        self.layer_3 = nn.Linear(in_features=10, out_features=1)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.layer_3(self.relu(self.layer_2(self.relu(self.layer_1(x)))))


torch.manual_seed(42)
model_3 = CircleModelV2()
print(model_3)
fit(model_3, 1000)
model_3.eval()
with torch.inference_mode():
    y_preds = torch.round(torch.sigmoid(model_3(X_test))).squeeze()
print(y_preds[:10], y_test[:10])
