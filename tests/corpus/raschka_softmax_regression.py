# follows: Sebastian Raschka, deeplearning-models, "Softmax Regression" (a zero-initialised
#   nn.Linear returning logits and softmax probabilities, F.cross_entropy and SGD, the
#   training accuracy after each epoch),
#   https://github.com/rasbt/deeplearning-models/blob/master/pytorch_ipynb/basic-ml/softmax-regression.ipynb
"""The notebook's SoftmaxRegression module (weights zeroed through .detach().zero_(), forward
returning logits and probabilities), F.cross_entropy on the logits, optim.SGD(lr=0.1), the
cost printed every few batches and the accuracy after each epoch under
torch.set_grad_enabled(False), then the test accuracy. MNIST is replaced by synthetic 8x8
"images" (each class a noisy template) and the shuffling DataLoader by batches taken in
order; three epochs."""

import torch
import torch.nn.functional as F

# Device
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

# Hyperparameters
random_seed = 123
learning_rate = 0.1
num_epochs = 3
batch_size = 64

# Architecture
num_features = 64
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

# Checking the dataset
for images, labels in train_loader:
    print("Image batch dimensions:", images.shape)
    print("Image label dimensions:", labels.shape)
    break


class SoftmaxRegression(torch.nn.Module):
    def __init__(self, num_features, num_classes):
        super(SoftmaxRegression, self).__init__()  # noqa: UP008  (the notebook's)
        self.linear = torch.nn.Linear(num_features, num_classes)

        self.linear.weight.detach().zero_()
        self.linear.bias.detach().zero_()

    def forward(self, x):
        logits = self.linear(x)
        probas = F.softmax(logits, dim=1)
        return logits, probas


model = SoftmaxRegression(num_features=num_features, num_classes=num_classes)
model.to(device)

optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

# Manual seed for deterministic data loader
torch.manual_seed(random_seed)


def compute_accuracy(model, data_loader):
    correct_pred, num_examples = 0, 0

    for features, targets in data_loader:
        features = features.view(-1, 8 * 8).to(device)
        targets = targets.to(device)
        logits, probas = model(features)
        _, predicted_labels = torch.max(probas, 1)
        num_examples += targets.size(0)
        correct_pred += (predicted_labels == targets).sum()

    return correct_pred.float() / num_examples * 100


for epoch in range(num_epochs):
    for batch_idx, (features, targets) in enumerate(train_loader):
        features = features.view(-1, 8 * 8).to(device)
        targets = targets.to(device)

        ### FORWARD AND BACK PROP
        logits, probas = model(features)

        # note that the PyTorch implementation of
        # CrossEntropyLoss works with logits, not
        # probabilities
        cost = F.cross_entropy(logits, targets)
        optimizer.zero_grad()
        cost.backward()

        ### UPDATE MODEL PARAMETERS
        optimizer.step()

        ### LOGGING
        if not batch_idx % 5:
            print(
                "Epoch: %03d/%03d | Batch %03d/%03d | Cost: %.4f"  # noqa: UP031  (the notebook's)
                % (epoch + 1, num_epochs, batch_idx, len(train_images) // batch_size, cost)
            )

    with torch.set_grad_enabled(False):
        print(
            "Epoch: %03d/%03d training accuracy: %.2f%%"  # noqa: UP031
            % (epoch + 1, num_epochs, compute_accuracy(model, train_loader))
        )

print("Test accuracy: %.2f%%" % (compute_accuracy(model, test_loader)))  # noqa: UP031
