# follows: PyTorch tutorials, Introduction to PyTorch on YouTube, "Building Models with
#   PyTorch" (torch.nn.Module and torch.nn.Parameter, Linear Layers, Other Layers and
#   Functions: normalization and dropout),
#   https://pytorch.org/tutorials/beginner/introyt/modelsyt_tutorial.html
"""TinyModel printed with its parameters, a Linear layer's weights and output, a
BatchNorm1d on a scaled and shifted batch, and Dropout on the same input twice."""

import torch


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


torch.manual_seed(0)
tinymodel = TinyModel()
print("The model:")
print(tinymodel)
print("\n\nJust one layer:")
print(tinymodel.linear2)
print("\n\nModel params:")
for param in tinymodel.parameters():
    print(param.shape, param.requires_grad)
print("\n\nLayer params:")
for param in tinymodel.linear2.parameters():
    print(param[:2] if param.dim() == 1 else param[:2, :4])

lin = torch.nn.Linear(3, 2)
x = torch.rand(1, 3)
print("Input:")
print(x)
print("\n\nWeight and Bias parameters:")
for param in lin.parameters():
    print(param)
y = lin(x)
print("\n\nOutput:")
print(y)

my_tensor = torch.rand(1, 4, 4) * 20 + 5
print(my_tensor)
print(my_tensor.mean())
norm_layer = torch.nn.BatchNorm1d(4)
normed_tensor = norm_layer(my_tensor)
print(normed_tensor.detach())
print(f"{normed_tensor.mean().item():.4f}")
print(norm_layer.running_mean, norm_layer.num_batches_tracked)

my_tensor = torch.rand(1, 4, 4)
dropout = torch.nn.Dropout(p=0.4)
print(dropout(my_tensor))
print(dropout(my_tensor))
dropout.eval()
print(torch.equal(dropout(my_tensor), my_tensor))
