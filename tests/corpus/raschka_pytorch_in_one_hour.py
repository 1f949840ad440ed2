# follows: Sebastian Raschka, "PyTorch in One Hour: From Tensors to Training Neural
#   Networks on Multiple GPUs", sections 2.6 "Implementing multilayer neural networks" and
#   2.8 "A typical training loop", https://sebastianraschka.com/teaching/pytorch-1h/
"""The article's NeuralNetwork (nn.Sequential of Linear and ReLU), its count of trainable
parameters, then the typical training loop: cross_entropy, SGD(lr=0.5), three epochs over
the article's five-point toy data set, and the accuracy of the trained model. The
DataLoader (two batches, shuffled) is replaced by the same batches taken in order."""

import torch
import torch.nn.functional as F


class NeuralNetwork(torch.nn.Module):
    def __init__(self, num_inputs, num_outputs):
        super().__init__()
        self.layers = torch.nn.Sequential(
            # 1st hidden layer
            torch.nn.Linear(num_inputs, 30),
            torch.nn.ReLU(),
            # 2nd hidden layer
            torch.nn.Linear(30, 20),
            torch.nn.ReLU(),
            # output layer
            torch.nn.Linear(20, num_outputs),
        )

    def forward(self, x):
        logits = self.layers(x)
        return logits


model = NeuralNetwork(50, 3)
print(model)
num_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("Total number of trainable model parameters:", num_params)
print(model.layers[0].weight.shape)

torch.manual_seed(123)
model = NeuralNetwork(50, 3)
print(model.layers[0].weight[:2, :4])
X = torch.rand((1, 50))
out = model(X)
print(out)
with torch.no_grad():
    out = torch.softmax(model(X), dim=1)
print(out)

X_train = torch.tensor([[-1.2, 3.1], [-0.9, 2.9], [-0.5, 2.6], [2.3, -1.1], [2.7, -1.5]])
y_train = torch.tensor([0, 0, 0, 1, 1])
X_test = torch.tensor([[-0.8, 2.8], [2.6, -1.6]])
y_test = torch.tensor([0, 1])
train_loader = [(X_train[:2], y_train[:2]), (X_train[2:4], y_train[2:4])]

torch.manual_seed(123)
model = NeuralNetwork(num_inputs=2, num_outputs=2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
num_epochs = 3
for epoch in range(num_epochs):
    model.train()
    for batch_idx, (features, labels) in enumerate(train_loader):
        logits = model(features)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(
            f"Epoch: {epoch + 1:03d}/{num_epochs:03d}"
            f" | Batch {batch_idx:03d}/{len(train_loader):03d}"
            f" | Train Loss: {loss:.2f}"
        )
    model.eval()

model.eval()
with torch.no_grad():
    outputs = model(X_train)
print(outputs)
torch.set_printoptions(sci_mode=False)
probas = torch.softmax(outputs, dim=1)
print(probas)
predictions = torch.argmax(probas, dim=1)
print(predictions, torch.argmax(outputs, dim=1))
print(predictions == y_train, torch.sum(predictions == y_train))


def compute_accuracy(model, dataloader):
    model = model.eval()
    correct = 0.0
    total_examples = 0
    for features, labels in dataloader:
        with torch.no_grad():
            logits = model(features)
        predictions = torch.argmax(logits, dim=1)
        compare = labels == predictions
        correct += torch.sum(compare)
        total_examples += len(compare)
    return (correct / total_examples).item()


print(compute_accuracy(model, train_loader), compute_accuracy(model, [(X_test, y_test)]))
