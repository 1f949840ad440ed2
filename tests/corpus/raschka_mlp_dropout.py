# follows: Sebastian Raschka, deeplearning-models, "Multilayer Perceptron with Dropout"
#   (F.dropout after each ReLU hidden layer, active only while self.training, SGD,
#   train/eval modes),
#   https://github.com/rasbt/deeplearning-models/blob/master/pytorch_ipynb/mlp/mlp-dropout.ipynb
"""The notebook's MultilayerPerceptron with dropout: three nn.Linear layers whose weights
are redrawn with normal_(0.0, 0.1) and biases zeroed through .detach(), ReLU hidden layers
each followed by F.dropout(p=0.5, training=self.training), forward returning logits and
softmax probabilities; F.cross_entropy and optim.SGD(lr=0.1), the cost every few batches,
the training accuracy after each epoch (model.eval(), so no dropout, under no_grad), then
the test accuracy. MNIST is replaced by synthetic 8x8 "images" (each class a noisy
template), the DataLoader by batches taken in order; 32 and 64 hidden units in place of
128 and 256, four epochs; the timing prints are left out."""

import torch
import torch.nn.functional as F

# Device
device = torch.device("cuda:3" if torch.cuda.is_available() else "cpu")

# Hyperparameters
random_seed = 1
learning_rate = 0.1
num_epochs = 4
batch_size = 64
dropout_prob = 0.5

# Architecture
num_features = 64
num_hidden_1 = 32
num_hidden_2 = 64
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


class MultilayerPerceptron(torch.nn.Module):
    def __init__(self, num_features, num_classes):
        super(MultilayerPerceptron, self).__init__()  # noqa: UP008  (the notebook's)

        ### 1st hidden layer
        self.linear_1 = torch.nn.Linear(num_features, num_hidden_1)
        # The following two lines are not necessary,
        # but used here to demonstrate how to access the weights
        # and use a different weight initialization.
        self.linear_1.weight.detach().normal_(0.0, 0.1)
        self.linear_1.bias.detach().zero_()

        ### 2nd hidden layer
        self.linear_2 = torch.nn.Linear(num_hidden_1, num_hidden_2)
        self.linear_2.weight.detach().normal_(0.0, 0.1)
        self.linear_2.bias.detach().zero_()

        ### Output layer
        self.linear_out = torch.nn.Linear(num_hidden_2, num_classes)
        self.linear_out.weight.detach().normal_(0.0, 0.1)
        self.linear_out.bias.detach().zero_()

    def forward(self, x):
        out = self.linear_1(x)
        out = F.relu(out)
        out = F.dropout(out, p=dropout_prob, training=self.training)

        out = self.linear_2(out)
        out = F.relu(out)
        out = F.dropout(out, p=dropout_prob, training=self.training)

        logits = self.linear_out(out)
        probas = F.softmax(logits, dim=1)
        return logits, probas


torch.manual_seed(random_seed)
model = MultilayerPerceptron(num_features=num_features, num_classes=num_classes)
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
print(model.linear_1.weight[0, :4])


def compute_accuracy(net, data_loader):
    net.eval()
    correct_pred, num_examples = 0, 0
    with torch.no_grad():
        for features, targets in data_loader:
            features = features.view(-1, 8 * 8).to(device)
            targets = targets.to(device)
            logits, probas = net(features)
            _, predicted_labels = torch.max(probas, 1)
            num_examples += targets.size(0)
            correct_pred += (predicted_labels == targets).sum()
        return correct_pred.float() / num_examples * 100


for epoch in range(num_epochs):
    model.train()
    for batch_idx, (features, targets) in enumerate(train_loader):
        features = features.view(-1, 8 * 8).to(device)
        targets = targets.to(device)

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
    with torch.set_grad_enabled(False):
        print(
            "Epoch: %03d/%03d training accuracy: %.2f%%"  # noqa: UP031
            % (epoch + 1, num_epochs, compute_accuracy(model, train_loader))
        )

print("Test accuracy: %.2f%%" % (compute_accuracy(model, test_loader)))  # noqa: UP031
