# follows: yunjey/pytorch-tutorial, 01-basics "Feedforward Neural Network",
#   https://github.com/yunjey/pytorch-tutorial/blob/master/tutorials/01-basics/feedforward_neural_network/main.py
"""The tutorial's NeuralNet (fc1, ReLU, fc2) moved to the device, CrossEntropyLoss and Adam,
the loss printed every few steps, then the accuracy under torch.no_grad with
torch.max(outputs.data, 1) and .sum().item(). MNIST is replaced by a synthetic set of 8x8
"images" (each class a noisy template), the DataLoader by the same batches taken in order,
and the hidden layer shrunk from 500 to 50 units."""

import torch
import torch.nn as nn

torch.manual_seed(0)

# Device configuration
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Hyper-parameters
input_size = 64
hidden_size = 50
num_classes = 10
num_epochs = 5
batch_size = 50
learning_rate = 0.001

# Synthetic data set in place of MNIST: ten templates plus noise.
templates = torch.rand(num_classes, 8, 8)
train_labels = torch.randint(0, num_classes, (500,))
train_images = templates[train_labels] + 0.5 * torch.randn(500, 8, 8)
test_labels = torch.randint(0, num_classes, (200,))
test_images = templates[test_labels] + 0.5 * torch.randn(200, 8, 8)
train_loader = list(zip(train_images.split(batch_size), train_labels.split(batch_size)))
test_loader = list(zip(test_images.split(batch_size), test_labels.split(batch_size)))


# Fully connected neural network with one hidden layer
class NeuralNet(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super(NeuralNet, self).__init__()  # noqa: UP008  (the tutorial's)
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        out = self.fc1(x)
        out = self.relu(out)
        out = self.fc2(out)
        return out


model = NeuralNet(input_size, hidden_size, num_classes).to(device)
print(model)

# Loss and optimizer
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)

# Train the model
total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        # Move tensors to the configured device
        images = images.reshape(-1, 8 * 8).to(device)
        labels = labels.to(device)

        # Forward pass
        outputs = model(images)
        loss = criterion(outputs, labels)

        # Backward and optimize
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if (i + 1) % 5 == 0:
            print(
                "Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}".format(  # noqa: UP032
                    epoch + 1, num_epochs, i + 1, total_step, loss.item()
                )
            )

# Test the model
# In test phase, we don't need to compute gradients (for memory efficiency)
with torch.no_grad():
    correct = 0
    total = 0
    for images, labels in test_loader:
        images = images.reshape(-1, 8 * 8).to(device)
        labels = labels.to(device)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

    print("Accuracy of the network on the 200 test images: {} %".format(100 * correct / total))  # noqa: UP032
