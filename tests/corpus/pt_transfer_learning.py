# follows: PyTorch tutorials, "Transfer Learning for Computer Vision Tutorial" (Load
#   Data, Training the model, Finetuning the ConvNet, ConvNet as fixed feature
#   extractor), https://pytorch.org/tutorials/beginner/transfer_learning_tutorial.html
"""The tutorial's train_model (a train and a val phase each epoch, StepLR, the best
weights kept in a temporary folder and loaded back) used twice: finetuning every
parameter of a pretrained network with a new last layer, then freezing it
(requires_grad = False) and training only the new layer. The pretrained ResNet-18 and
the ants and bees images (downloads) are replaced by a small convolutional network
trained first on a synthetic 10-class task, and 2-class synthetic 3x16x16 images; in
float64, batches of 8, 4 epochs with step_size=2, lr=0.01 where the tutorial has
0.001, and the elapsed time not printed."""

import os
from tempfile import TemporaryDirectory

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class SmallConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.AvgPool2d(8),
            nn.Flatten(),
        )
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


def images(n, classes, patterns):
    labels = torch.randint(0, classes, (n,))
    return patterns[labels] + 0.8 * torch.randn(n, 3, 16, 16), labels


# The "pretrained" network: trained on a source task of 10 classes.
pretrained = SmallConvNet()
source_x, source_y = images(128, 10, torch.randn(10, 3, 16, 16))
pretrain_opt = optim.Adam(pretrained.parameters(), lr=0.01)
for _step in range(15):
    pretrain_opt.zero_grad()
    loss = nn.functional.cross_entropy(pretrained(source_x), source_y)
    loss.backward()
    pretrain_opt.step()
print(f"pretrained: loss {loss.item():.4f}")
pretrained_state = pretrained.state_dict()

# The target task: two classes (ants and bees).
target_patterns = torch.randn(2, 3, 16, 16)
image_datasets = {
    x: TensorDataset(*images(n, 2, target_patterns)) for x, n in [("train", 48), ("val", 32)]
}
dataloaders = {
    x: DataLoader(image_datasets[x], batch_size=8, shuffle=True) for x in ["train", "val"]
}
dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}
class_names = ["ants", "bees"]
inputs, classes = next(iter(dataloaders["train"]))
print(inputs.shape, [class_names[x] for x in classes])


def train_model(model, criterion, optimizer, scheduler, num_epochs=25):
    # Create a temporary directory to save training checkpoints
    with TemporaryDirectory() as tempdir:
        best_model_params_path = os.path.join(tempdir, "best_model_params.pt")

        torch.save(model.state_dict(), best_model_params_path)
        best_acc = 0.0

        for epoch in range(num_epochs):
            print(f"Epoch {epoch}/{num_epochs - 1}")
            print("-" * 10)

            # Each epoch has a training and validation phase
            for phase in ["train", "val"]:
                if phase == "train":
                    model.train()  # Set model to training mode
                else:
                    model.eval()  # Set model to evaluate mode

                running_loss = 0.0
                running_corrects = 0

                # Iterate over data.
                for inputs, labels in dataloaders[phase]:
                    inputs = inputs.to(device)
                    labels = labels.to(device)

                    # zero the parameter gradients
                    optimizer.zero_grad()

                    # forward
                    # track history if only in train
                    with torch.set_grad_enabled(phase == "train"):
                        outputs = model(inputs)
                        _, preds = torch.max(outputs, 1)
                        loss = criterion(outputs, labels)

                        # backward + optimize only if in training phase
                        if phase == "train":
                            loss.backward()
                            optimizer.step()

                    # statistics
                    running_loss += loss.item() * inputs.size(0)
                    running_corrects += torch.sum(preds == labels.data)
                if phase == "train":
                    scheduler.step()

                epoch_loss = running_loss / dataset_sizes[phase]
                epoch_acc = running_corrects.double() / dataset_sizes[phase]

                print(f"{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}")

                # deep copy the model
                if phase == "val" and epoch_acc > best_acc:
                    best_acc = epoch_acc
                    torch.save(model.state_dict(), best_model_params_path)

            print()

        print(f"Best val Acc: {best_acc:4f}")

        # load best model weights
        model.load_state_dict(torch.load(best_model_params_path, weights_only=True))
    return model


# Finetuning the ConvNet
model_ft = SmallConvNet()
model_ft.load_state_dict(pretrained_state)
num_ftrs = model_ft.fc.in_features
# Here the size of each output sample is set to 2.
model_ft.fc = nn.Linear(num_ftrs, 2)
model_ft = model_ft.to(device)
criterion = nn.CrossEntropyLoss()
# Observe that all parameters are being optimized
optimizer_ft = optim.SGD(model_ft.parameters(), lr=0.01, momentum=0.9)
# Decay LR by a factor of 0.1 every 2 epochs
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_ft, step_size=2, gamma=0.1)
model_ft = train_model(model_ft, criterion, optimizer_ft, exp_lr_scheduler, num_epochs=4)

# ConvNet as fixed feature extractor
model_conv = SmallConvNet()
model_conv.load_state_dict(pretrained_state)
for param in model_conv.parameters():
    param.requires_grad = False

# Parameters of newly constructed modules have requires_grad=True by default
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, 2)
model_conv = model_conv.to(device)
print([name for name, p in model_conv.named_parameters() if p.requires_grad])

# Observe that only parameters of final layer are being optimized as opposed to before.
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.01, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=2, gamma=0.1)
model_conv = train_model(model_conv, criterion, optimizer_conv, exp_lr_scheduler, num_epochs=4)
print(
    model_conv.features[0].weight.grad,
    torch.equal(model_conv.features[0].weight, pretrained.features[0].weight),
)
print(optimizer_conv.param_groups[0]["lr"])
