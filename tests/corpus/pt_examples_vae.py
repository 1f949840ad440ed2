# follows: pytorch/examples, "vae/main.py" (the VAE of fc1, fc21/fc22, fc3, fc4 with the
#   reparameterization trick; binary cross-entropy plus KL divergence; Adam),
#   https://github.com/pytorch/examples/blob/main/vae/main.py
"""The example's VAE, loss_function, train and test and its samples from the prior, the
arguments parsed from a list in place of the command line. MNIST (a download) is
replaced by 256 + 64 synthetic 8x8 images in [0, 1] (blurred strokes), the layers
narrowed to match (64 -> 32 -> 4 latent dimensions), and the reconstructions and
samples summarised by their means where the example saves them as PNG files; in
float64, batches of 32, three epochs."""

import argparse

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

parser = argparse.ArgumentParser(description="VAE MNIST Example")
parser.add_argument("--batch-size", type=int, default=128, metavar="N")
parser.add_argument("--epochs", type=int, default=10, metavar="N")
parser.add_argument("--no-cuda", action="store_true", default=False)
parser.add_argument("--seed", type=int, default=1, metavar="S")
parser.add_argument("--log-interval", type=int, default=10, metavar="N")
args = parser.parse_args(["--batch-size", "32", "--epochs", "3", "--log-interval", "4"])
args.cuda = not args.no_cuda and torch.cuda.is_available()

torch.set_default_dtype(torch.float64)
torch.manual_seed(args.seed)

device = torch.device("cuda" if args.cuda else "cpu")


def strokes(n):
    rows, cols = torch.rand(n, 8, 1), torch.rand(n, 1, 8)
    return ((rows > 0.7).double() * 0.8 + (cols > 0.8).double() * 0.6).clamp(0, 1).view(n, 1, 8, 8)


kwargs = {"num_workers": 1, "pin_memory": True} if args.cuda else {}
train_data = torch.utils.data.TensorDataset(strokes(256), torch.zeros(256))
test_data = torch.utils.data.TensorDataset(strokes(64), torch.zeros(64))
train_loader = torch.utils.data.DataLoader(
    train_data, batch_size=args.batch_size, shuffle=True, **kwargs
)
test_loader = torch.utils.data.DataLoader(
    test_data, batch_size=args.batch_size, shuffle=False, **kwargs
)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()

        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


model = VAE().to(device)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")

    # see Appendix B from VAE paper:
    # Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    # https://arxiv.org/abs/1312.6114
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(
                "Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(  # noqa: UP032
                    epoch,
                    batch_idx * len(data),
                    len(train_loader.dataset),
                    100.0 * batch_idx / len(train_loader),
                    loss.item() / len(data),
                )
            )

    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}")


def test(epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n], recon_batch.view(args.batch_size, 1, 8, 8)[:n]])
                print("reconstruction", comparison.shape, f"{comparison[n:].mean().item():.4f}")

    test_loss /= len(test_loader.dataset)
    print(f"====> Test set loss: {test_loss:.4f}")


if __name__ == "__main__":
    for epoch in range(1, args.epochs + 1):
        train(epoch)
        test(epoch)
        with torch.no_grad():
            sample = torch.randn(64, 4).to(device)
            sample = model.decode(sample).cpu()
            print("sample", sample.view(64, 1, 8, 8).shape, f"{sample.mean().item():.4f}")
