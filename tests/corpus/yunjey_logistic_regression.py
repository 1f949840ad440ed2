# follows: yunjey/pytorch-tutorial, 01-basics "Logistic Regression",
#   https://github.com/yunjey/pytorch-tutorial/blob/master/tutorials/01-basics/logistic_regression/main.py
"""The tutorial's logistic regression: nn.Linear(input_size, num_classes), CrossEntropyLoss
and SGD, batches reshaped to (batch_size, input_size), the loss printed every few steps,
then the accuracy under torch.no_grad with torch.max(outputs.data, 1). MNIST is replaced by
a synthetic set of 8x8 "images" (each class a noisy template), the DataLoader by the same
batches taken in order, and the learning rate raised so that a few epochs learn."""

import torch
import torch.nn as nn

torch.manual_seed(0)

# Hyper-parameters
input_size = 8 * 8  # 64
num_classes = 10
num_epochs = 5
batch_size = 50
learning_rate = 0.1

# Synthetic data set in place of MNIST: ten templates plus noise.
templates = torch.rand(num_classes, 1, 8, 8)
train_labels = torch.randint(0, num_classes, (500,))
train_images = templates[train_labels] + 0.5 * torch.randn(500, 1, 8, 8)
test_labels = torch.randint(0, num_classes, (200,))
test_images = templates[test_labels] + 0.5 * torch.randn(200, 1, 8, 8)

train_loader = [
    (train_images[i : i + batch_size], train_labels[i : i + batch_size])
    for i in range(0, len(train_labels), batch_size)
]
test_loader = [
    (test_images[i : i + batch_size], test_labels[i : i + batch_size])
    for i in range(0, len(test_labels), batch_size)
]

# Logistic regression model
model = nn.Linear(input_size, num_classes)

# Loss and optimizer
# nn.CrossEntropyLoss() computes softmax internally
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

# Train the model
total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        # Reshape images to (batch_size, input_size)
        images = images.reshape(-1, input_size)

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
        images = images.reshape(-1, input_size)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum()

    print("Accuracy of the model on the 200 test images: {} %".format(100 * correct / total))  # noqa: UP032
