# follows: PyTorch tutorials, Introduction to PyTorch on YouTube, "Training with PyTorch"
#   (The Model, Loss Function, Optimizer, The Training Loop, Per-Epoch Activity),
#   https://pytorch.org/tutorials/beginner/introyt/trainingyt.html
"""The tutorial's train_one_epoch and per-epoch validation, its loss on a dummy batch,
an SGD with momentum; a small MLP on random data in float64 stands in for the
convolutional network and FashionMNIST, and the best model's state is kept in a dict
where the tutorial saves it to a file."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)

dummy_outputs = torch.rand(4, 10)
dummy_labels = torch.tensor([1, 5, 3, 7])
print(dummy_outputs)
print(dummy_labels)
loss_fn = torch.nn.CrossEntropyLoss()
loss = loss_fn(dummy_outputs, dummy_labels)
print(f"Total loss for this batch: {loss.item()}")

centers = torch.randn(10, 12)
train_labels = torch.randint(0, 10, (200,))
train_inputs = centers[train_labels] + torch.randn(200, 12)
val_labels = torch.randint(0, 10, (40,))
val_inputs = centers[val_labels] + torch.randn(40, 12)


class GarmentClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 32)
        self.fc2 = nn.Linear(32, 16)
        self.fc3 = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


model = GarmentClassifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


def train_one_epoch(epoch_index):
    running_loss = 0.0
    last_loss = 0.0
    for i in range(0, 50):
        inputs = train_inputs[4 * i : 4 * i + 4]
        labels = train_labels[4 * i : 4 * i + 4]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = loss_fn(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 10 == 9:
            last_loss = running_loss / 10
            print(f"  batch {i + 1} loss: {last_loss:.6f}")
            running_loss = 0.0
    return last_loss


best_vloss = 1_000_000.0
best_state = None
for epoch in range(3):
    print(f"EPOCH {epoch + 1}:")
    model.train(True)
    avg_loss = train_one_epoch(epoch)
    running_vloss = 0.0
    model.eval()
    with torch.no_grad():
        for i in range(10):
            vinputs, vlabels = val_inputs[4 * i : 4 * i + 4], val_labels[4 * i : 4 * i + 4]
            voutputs = model(vinputs)
            running_vloss += loss_fn(voutputs, vlabels)
    avg_vloss = running_vloss / (i + 1)
    print(f"LOSS train {avg_loss:.6f} valid {avg_vloss:.6f}")
    if avg_vloss < best_vloss:
        best_vloss = avg_vloss
        best_state = {k: v.clone() for k, v in model.state_dict().items()}

saved_model = GarmentClassifier()
print(saved_model.load_state_dict(best_state))
print(torch.equal(saved_model.fc3.bias, model.fc3.bias))
