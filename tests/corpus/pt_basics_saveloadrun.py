# follows: PyTorch tutorials, Learn the Basics, "Save and Load the Model" (Saving and
#   Loading Model Weights, Saving and Loading Models with Shapes),
#   https://pytorch.org/tutorials/beginner/basics/saveloadrun_tutorial.html
"""The tutorial's two ways to keep a model: its state_dict saved with torch.save and loaded
with torch.load(weights_only=True) into a new instance, then model.eval(); and the whole
model (its class with it) saved and loaded with weights_only=False. The pretrained VGG16
(a download) is replaced by a small convolutional network trained a few steps here with
SGD on a synthetic batch, and model_weights.pth and model.pth go to a temporary folder;
in float64."""

import os
import tempfile

import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


class SmallVGG(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(8, 8, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(8 * 4 * 4, 16),
            nn.ReLU(True),
            nn.Dropout(),
            nn.Linear(16, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


images, labels = torch.randn(8, 3, 16, 16), torch.randint(0, 4, (8,))
model = SmallVGG()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(6):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.5f}")
model.eval()
with torch.no_grad():
    expected = model(images)

with tempfile.TemporaryDirectory() as folder:
    # Saving and Loading Model Weights
    torch.save(model.state_dict(), os.path.join(folder, "model_weights.pth"))

    model = SmallVGG()  # we do not specify ``weights``, i.e. create untrained model
    print(
        model.load_state_dict(
            torch.load(os.path.join(folder, "model_weights.pth"), weights_only=True)
        )
    )
    model.eval()
    with torch.no_grad():
        print(torch.equal(model(images), expected), model(images).argmax(1))

    # Saving and Loading Models with Shapes
    torch.save(model, os.path.join(folder, "model.pth"))
    model = torch.load(os.path.join(folder, "model.pth"), weights_only=False)
print(model)
print(model.training, type(model).__name__)
with torch.no_grad():
    print(torch.equal(model(images), expected))
