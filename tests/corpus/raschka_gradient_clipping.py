# follows: Sebastian Raschka, deeplearning-models, "Gradient Clipping" (1. basic clipping
#   with clip_grad_value_, 2. custom bounds by a clamp in each parameter's hook, 3. norm
#   clipping with clip_grad_norm_), on a four-hidden-layer MLP trained with Adam,
#   https://github.com/rasbt/deeplearning-models/blob/master/pytorch_ipynb/tricks/gradclipping_mlp.ipynb
"""The notebook's MultilayerPerceptron (four ReLU hidden layers, forward returning logits
and log-probabilities), F.cross_entropy and Adam(lr=0.01), trained three times from the
same seed: torch.nn.utils.clip_grad_value_(model.parameters(), 1.) before each step;
p.register_hook(lambda grad: torch.clamp(grad, -0.1, 1.0)) on every parameter; and
torch.nn.utils.clip_grad_norm_(model.parameters(), 1., norm_type=2). MNIST is replaced by
synthetic 8x8 "images" (each class a noisy template), the DataLoader by batches taken in
order; hidden layers of 64, 32, 32 and 16 units, two epochs each; the timing prints are
left out."""

import torch
import torch.nn.functional as F

# Hyperparameters
random_seed = 1
learning_rate = 0.01
num_epochs = 2
batch_size = 64

# Architecture
num_features = 64
num_hidden_1 = 64
num_hidden_2 = 32
num_hidden_3 = 32
num_hidden_4 = 16
num_classes = 10

# Synthetic data set in place of MNIST: ten templates plus noise.
torch.manual_seed(0)
templates = torch.rand(num_classes, 1, 8, 8)
train_targets = torch.randint(0, num_classes, (640,))
train_images = (templates[train_targets] + 0.6 * torch.randn(640, 1, 8, 8)).clamp(0, 1)
test_targets = torch.randint(0, num_classes, (256,))
test_images = (templates[test_targets] + 0.6 * torch.randn(256, 1, 8, 8)).clamp(0, 1)
train_loader = list(zip(train_images.split(batch_size), train_targets.split(batch_size)))
test_loader = list(zip(test_images.split(batch_size), test_targets.split(batch_size)))


def compute_accuracy(net, data_loader):
    net.eval()
    correct_pred, num_examples = 0, 0
    with torch.no_grad():
        for features, targets in data_loader:
            features = features.view(-1, 8 * 8)
            logits, probas = net(features)
            _, predicted_labels = torch.max(probas, 1)
            num_examples += targets.size(0)
            correct_pred += (predicted_labels == targets).sum()
        return correct_pred.float() / num_examples * 100


class MultilayerPerceptron(torch.nn.Module):
    def __init__(self, num_features, num_classes):
        super(MultilayerPerceptron, self).__init__()  # noqa: UP008  (the notebook's)
        self.linear_1 = torch.nn.Linear(num_features, num_hidden_1)
        self.linear_2 = torch.nn.Linear(num_hidden_1, num_hidden_2)
        self.linear_3 = torch.nn.Linear(num_hidden_2, num_hidden_3)
        self.linear_4 = torch.nn.Linear(num_hidden_3, num_hidden_4)
        self.linear_out = torch.nn.Linear(num_hidden_4, num_classes)

    def forward(self, x):
        out = self.linear_1(x)
        out = F.relu(out)
        out = self.linear_2(out)
        out = F.relu(out)
        out = self.linear_3(out)
        out = F.relu(out)
        out = self.linear_4(out)
        out = F.relu(out)
        logits = self.linear_out(out)
        probas = F.log_softmax(logits, dim=1)
        return logits, probas


def train(model, clip=None):
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    for epoch in range(num_epochs):
        model.train()
        for batch_idx, (features, targets) in enumerate(train_loader):
            features = features.view(-1, 8 * 8)

            ### FORWARD AND BACK PROP
            logits, probas = model(features)
            cost = F.cross_entropy(logits, targets)
            optimizer.zero_grad()

            cost.backward()

            ### GRADIENT CLIPPING
            if clip == "value":
                torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)
            elif clip == "norm":
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type=2)

            optimizer.step()

            ### LOGGING
            if not batch_idx % 5:
                print(
                    "Epoch: %03d/%03d | Batch %03d/%03d | Cost: %.4f"  # noqa: UP031  (the notebook's)
                    % (epoch + 1, num_epochs, batch_idx, len(train_loader), cost)
                )
        with torch.set_grad_enabled(False):
            print(
                "Epoch: %03d/%03d training accuracy: %.2f%%"  # noqa: UP031
                % (epoch + 1, num_epochs, compute_accuracy(model, train_loader))
            )
    print("Test accuracy: %.2f%%" % (compute_accuracy(model, test_loader)))  # noqa: UP031


print("## 1 - Basic Clipping")
torch.manual_seed(random_seed)
model = MultilayerPerceptron(num_features=num_features, num_classes=num_classes)
train(model, clip="value")

print("## 2 - Custom Lower and Upper Bounds")
torch.manual_seed(random_seed)
model = MultilayerPerceptron(num_features=num_features, num_classes=num_classes)
for p in model.parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -0.1, 1.0))
train(model)

print("## 3 - Norm-clipping")
torch.manual_seed(random_seed)
model = MultilayerPerceptron(num_features=num_features, num_classes=num_classes)
train(model, clip="norm")
