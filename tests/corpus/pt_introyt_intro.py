# follows: PyTorch tutorials, Introduction to PyTorch on YouTube, "Introduction to
#   PyTorch" (PyTorch Models, Datasets and Dataloaders, Training Your PyTorch Model),
#   https://pytorch.org/tutorials/beginner/introyt/introyt1_tutorial.html
"""The video's LeNet (one channel in, max pooling, num_flat_features) printed and run on
a 32x32 image, then its three-channel variant trained with CrossEntropyLoss and SGD
with momentum over two epochs of shuffled batches of 4, and its test accuracy.
CIFAR10 (a download) is replaced by 120 + 40 synthetic 3x32x32 images (a pattern per
class plus noise), in float64, num_workers=0, the loss printed every 10 mini-batches in
place of 2000."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        # 1 input image channel (black & white), 6 output channels, 5x5 square convolution
        # kernel
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 3)
        # an affine operation: y = Wx + b
        self.fc1 = nn.Linear(16 * 6 * 6, 120)  # 6*6 from image dimension
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        # Max pooling over a (2, 2) window
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        # If the size is a square you can only specify a single number
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]  # all dimensions except the batch dimension
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


net = LeNet()
print(net)  # what does the object tell us about itself?

input = torch.rand(1, 1, 32, 32)  # stand-in for a 32x32 black & white image
print("\nImage batch shape:")
print(input.shape)

output = net(input)  # we don't call forward() directly
print("\nRaw output:")
print(output)
print(output.shape)

patterns = torch.rand(10, 3, 32, 32) * 2 - 1


def synthetic_cifar(n):
    labels = torch.randint(0, 10, (n,))
    images = (patterns[labels] + torch.randn(n, 3, 32, 32)).clamp(-1, 1)
    return torch.utils.data.TensorDataset(images, labels)


trainset = synthetic_cifar(120)
trainloader = torch.utils.data.DataLoader(trainset, batch_size=4, shuffle=True, num_workers=0)
testset = synthetic_cifar(40)
testloader = torch.utils.data.DataLoader(testset, batch_size=4, shuffle=False, num_workers=0)

classes = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")

# get some random training images
dataiter = iter(trainloader)
images, labels = next(dataiter)
print(" ".join("%5s" % classes[labels[j]] for j in range(4)))  # noqa: UP031


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
        x = x.view(-1, 16 * 5 * 5)
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
        # get the inputs
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
            print("[%d, %5d] loss: %.3f" % (epoch + 1, i + 1, running_loss / 10))  # noqa: UP031
            running_loss = 0.0

print("Finished Training")

correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()

print("Accuracy of the network on the %d test images: %d %%" % (total, 100 * correct / total))  # noqa: UP031
