# follows: Sebastian Raschka, deeplearning-models, "Convolutional Neural Network" (two
#   Conv2d layers with "same" padding and MaxPool2d, weights drawn from normal_(0.0, 0.01),
#   a Linear classifier, F.cross_entropy and SGD),
#   https://github.com/rasbt/deeplearning-models/blob/master/pytorch_ipynb/cnn/cnn-basic.ipynb
"""The notebook's ConvNet: Conv2d(1, 8, 3x3, padding 1), ReLU, MaxPool2d(2), Conv2d(8, 16,
3x3, padding 1), ReLU, MaxPool2d(2), then a Linear classifier on the flattened maps,
every weight redrawn with m.weight.data.normal_(0.0, 0.01) and every bias zeroed over
self.modules(); forward returns logits and softmax probabilities; F.cross_entropy and
optim.SGD(lr=0.05), the cost every few batches, the training accuracy after each epoch
(model.eval()) and the test accuracy under torch.set_grad_enabled(False). MNIST's 28x28
digits are replaced by synthetic 12x12 "images" (each class a noisy template, so the
classifier reads 3*3*16 features), the DataLoader by batches of 32 taken in order; four
epochs (in which weights this small barely move the loss, as the notebook's comment on
Gaussian initialisation warns); the timing prints are left out."""

import torch
import torch.nn.functional as F

# Hyperparameters
random_seed = 1
learning_rate = 0.05
num_epochs = 4
batch_size = 32

# Architecture
num_classes = 10

# Synthetic data set in place of MNIST: ten templates plus noise.
torch.manual_seed(0)
templates = torch.rand(num_classes, 1, 12, 12)
train_targets = torch.randint(0, num_classes, (320,))
train_images = (templates[train_targets] + 0.4 * torch.randn(320, 1, 12, 12)).clamp(0, 1)
test_targets = torch.randint(0, num_classes, (128,))
test_images = (templates[test_targets] + 0.4 * torch.randn(128, 1, 12, 12)).clamp(0, 1)
train_loader = list(zip(train_images.split(batch_size), train_targets.split(batch_size)))
test_loader = list(zip(test_images.split(batch_size), test_targets.split(batch_size)))


class ConvNet(torch.nn.Module):
    def __init__(self, num_classes):
        super(ConvNet, self).__init__()  # noqa: UP008  (the notebook's)

        # calculate same padding:
        # (w - k + 2*p)/s + 1 = o
        # => p = (s(o-1) - w + k)/2

        # 12x12x1 => 12x12x8
        self.conv_1 = torch.nn.Conv2d(
            in_channels=1, out_channels=8, kernel_size=(3, 3), stride=(1, 1), padding=1
        )
        # 12x12x8 => 6x6x8
        self.pool_1 = torch.nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2), padding=0)
        # 6x6x8 => 6x6x16
        self.conv_2 = torch.nn.Conv2d(
            in_channels=8, out_channels=16, kernel_size=(3, 3), stride=(1, 1), padding=1
        )
        # 6x6x16 => 3x3x16
        self.pool_2 = torch.nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2), padding=0)
        self.linear_1 = torch.nn.Linear(3 * 3 * 16, num_classes)
        # optionally initialize weights from Gaussian;
        # Guassian weight init is not recommended and only for demonstration purposes
        for m in self.modules():
            if isinstance(m, torch.nn.Conv2d) or isinstance(m, torch.nn.Linear):
                m.weight.data.normal_(0.0, 0.01)
                m.bias.data.zero_()
                if m.bias is not None:
                    m.bias.detach().zero_()

    def forward(self, x):
        out = self.conv_1(x)
        out = F.relu(out)
        out = self.pool_1(out)
        out = self.conv_2(out)
        out = F.relu(out)
        out = self.pool_2(out)

        logits = self.linear_1(out.view(-1, 3 * 3 * 16))
        probas = F.softmax(logits, dim=1)
        return logits, probas


torch.manual_seed(random_seed)
model = ConvNet(num_classes=num_classes)
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
print(model.conv_1.weight[0, 0], model.linear_1.bias)


def compute_accuracy(model, data_loader):
    correct_pred, num_examples = 0, 0
    for features, targets in data_loader:
        logits, probas = model(features)
        _, predicted_labels = torch.max(probas, 1)
        num_examples += targets.size(0)
        correct_pred += (predicted_labels == targets).sum()
    return correct_pred.float() / num_examples * 100


for epoch in range(num_epochs):
    model = model.train()
    for batch_idx, (features, targets) in enumerate(train_loader):
        ### FORWARD AND BACK PROP
        logits, probas = model(features)
        cost = F.cross_entropy(logits, targets)
        optimizer.zero_grad()

        cost.backward()

        ### UPDATE MODEL PARAMETERS
        optimizer.step()

        ### LOGGING
        if not batch_idx % 5:
            print(
                "Epoch: %03d/%03d | Batch %03d/%03d | Cost: %.4f"  # noqa: UP031  (the notebook's)
                % (epoch + 1, num_epochs, batch_idx, len(train_loader), cost)
            )

    model = model.eval()
    print(
        "Epoch: %03d/%03d training accuracy: %.2f%%"  # noqa: UP031
        % (epoch + 1, num_epochs, compute_accuracy(model, train_loader))
    )

with torch.set_grad_enabled(False):  # save memory during inference
    print("Test accuracy: %.2f%%" % (compute_accuracy(model, test_loader)))  # noqa: UP031
