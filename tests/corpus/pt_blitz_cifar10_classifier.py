# follows: PyTorch tutorials, Deep Learning with PyTorch: A 60 Minute Blitz, "Training a
#   Classifier" (Define a Convolutional Neural Network, Define a Loss function and
#   optimizer, Train the network, Test the network on the test data),
#   https://pytorch.org/tutorials/beginner/blitz/cifar10_tutorial.html
"""The tutorial's Net (two convolutions with max pooling, three linear layers),
CrossEntropyLoss and SGD with momentum, two epochs over shuffled batches of 4, the
model saved and loaded back, the ground truth and predictions of a test batch, the
accuracy overall and per class. CIFAR10 (a download) is replaced by 160 + 80 synthetic
3x32x32 images (a pattern per class plus noise), in float64, num_workers=0, the loss
printed every 10 mini-batches in place of 2000, and the file in a temporary folder."""

import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)

batch_size = 4
patterns = torch.rand(10, 3, 32, 32) * 2 - 1


def synthetic_images(n):
    labels = torch.randint(0, 10, (n,))
    return TensorDataset((patterns[labels] + torch.randn(n, 3, 32, 32)).clamp(-1, 1), labels)


trainset = synthetic_images(160)
trainloader = DataLoader(trainset, batch_size=batch_size, shuffle=True, num_workers=0)
testset = synthetic_images(80)
testloader = DataLoader(testset, batch_size=batch_size, shuffle=False, num_workers=0)

classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")

# get some random training images
dataiter = iter(trainloader)
images, labels = next(dataiter)
print(images.shape)
print(" ".join(f"{classes[labels[j]]:5s}" for j in range(batch_size)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)

for epoch in range(2):  # loop over the dataset multiple times
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        # get the inputs; data is a list of [inputs, labels]
        inputs, labels = data

        # zero the parameter gradients
        optimizer.zero_grad()

        # forward + backward + optimize
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()

        # print statistics
        running_loss += loss.item()
        if i % 10 == 9:  # print every 10 mini-batches
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 10:.3f}")
            running_loss = 0.0

print("Finished Training")

with tempfile.TemporaryDirectory() as folder:
    PATH = os.path.join(folder, "cifar_net.pth")
    torch.save(net.state_dict(), PATH)

    dataiter = iter(testloader)
    images, labels = next(dataiter)
    print("GroundTruth: ", " ".join(f"{classes[labels[j]]:5s}" for j in range(4)))

    net = Net()
    print(net.load_state_dict(torch.load(PATH, weights_only=True)))

outputs = net(images)
_, predicted = torch.max(outputs, 1)
print("Predicted: ", " ".join(f"{classes[predicted[j]]:5s}" for j in range(4)))

correct = 0
total = 0
# since we're not training, we don't need to calculate the gradients for our outputs
with torch.no_grad():
    for data in testloader:
        images, labels = data
        # calculate outputs by running images through the network
        outputs = net(images)
        # the class with the highest energy is what we choose as prediction
        _, predicted = torch.max(outputs, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

print(f"Accuracy of the network on the {total} test images: {100 * correct // total} %")

# prepare to count predictions for each class
correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}

# again no gradients needed
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        # collect the correct predictions for each class
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1

# print accuracy for each class
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / total_pred[classname]
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device)
