# A model trained as PyTorch's tutorials train one: nn.Module, MSELoss, Adam.
import torch
from torch import nn

torch.manual_seed(0)
x = torch.linspace(-3, 3, 64, dtype=torch.float64).unsqueeze(1)
y = torch.sin(x)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1)).double()
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(301):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    if epoch % 100 == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.6f}")
print(model)
print(model(torch.tensor([[1.5]], dtype=torch.float64)))
