# follows: pytorch/examples, "gcn/main.py" (GraphConv and GCN, the renormalised
#   adjacency D^-1/2 (A + I) D^-1/2, train_iter and test, Adam with weight decay),
#   https://github.com/pytorch/examples/blob/main/gcn/main.py
"""The example's GraphConv (a Xavier-initialised kernel, support = H W, then A support),
its two-layer GCN with dropout and log_softmax, NLLLoss on the training nodes, Adam with
weight_decay, and its train_iter and test. The Cora download is replaced by a synthetic
graph of 90 nodes in 3 classes (features near a class centre, more edges within a
class), the sparse matrices by dense ones (torch.mm in place of torch.spmm), the time
per epoch left out of the log; in float64, 40 epochs, a log every 10."""

import argparse

import torch
import torch.nn.functional as F
from torch import nn, optim


class GraphConv(nn.Module):
    def __init__(self, input_dim, output_dim, use_bias=False):
        super().__init__()

        # Initialize the weight matrix W (in this case called `kernel`)
        self.kernel = nn.Parameter(torch.Tensor(input_dim, output_dim))
        nn.init.xavier_normal_(self.kernel)  # Initialize the weights using Xavier initialization

        # Initialize the bias (if use_bias is True)
        self.bias = None
        if use_bias:
            self.bias = nn.Parameter(torch.Tensor(output_dim))
            nn.init.zeros_(self.bias)  # Initialize the bias to zeros

    def forward(self, input_tensor, adj_mat):
        support = torch.mm(
            input_tensor, self.kernel
        )  # Matrix multiplication between input and weight matrix
        output = torch.mm(adj_mat, support)  # the example's torch.spmm, on a dense matrix
        # Add the bias (if bias is not None)
        if self.bias is not None:
            output = output + self.bias

        return output


class GCN(nn.Module):
    def __init__(self, input_dim, hidden_dim, output_dim, use_bias=True, dropout_p=0.1):
        super().__init__()

        # Define the Graph Convolution layers
        self.gc1 = GraphConv(input_dim, hidden_dim, use_bias=use_bias)
        self.gc2 = GraphConv(hidden_dim, output_dim, use_bias=use_bias)

        # Define the dropout layer
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input_tensor, adj_mat):
        # Perform the first graph convolutional layer
        x = self.gc1(input_tensor, adj_mat)
        x = F.relu(x)  # Apply ReLU activation function
        x = self.dropout(x)  # Apply dropout regularization

        # Perform the second graph convolutional layer
        x = self.gc2(x, adj_mat)

        # Apply log-softmax activation function for classification
        return F.log_softmax(x, dim=1)


def synthetic_graph(nodes=90, classes=3, features=20):
    labels = torch.arange(nodes) % classes
    centres = torch.rand(classes, features)
    x = (centres[labels] + 0.8 * torch.rand(nodes, features)).round()
    x = x / x.sum(dim=1, keepdim=True).clamp(min=1)  # each row scaled by its sum, as Cora's
    same = labels[:, None] == labels[None, :]
    adj_mat = (torch.rand(nodes, nodes) < torch.where(same, 0.08, 0.01)).double()
    adj_mat = ((adj_mat + adj_mat.T) > 0).double()
    adj_mat = torch.eye(nodes) + adj_mat  # Add self-loops to the adjacency matrix

    degree_mat = torch.sum(adj_mat, dim=1)  # the degree of each node
    degree_mat = torch.sqrt(1 / degree_mat)  # Compute the reciprocal square root of the degrees
    degree_mat[degree_mat == float("inf")] = 0  # Handle division by zero cases
    degree_mat = torch.diag(degree_mat)

    adj_mat = degree_mat @ adj_mat @ degree_mat  # Apply the renormalization trick
    return x, labels, adj_mat


def train_iter(
    epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10
):
    model.train()
    optimizer.zero_grad()

    # Forward pass
    output = model(*input)
    loss = criterion(
        output[mask_train], target[mask_train]
    )  # Compute the loss using the training mask

    loss.backward()
    optimizer.step()

    # Evaluate the model performance on training and validation sets
    loss_train, acc_train = test(model, criterion, input, target, mask_train)
    loss_val, acc_val = test(model, criterion, input, target, mask_val)

    if epoch % print_every == 0:
        # Print the training progress at specified intervals
        print(
            f"Epoch: {epoch:04d} loss_train: {loss_train:.4f} acc_train: {acc_train:.4f} "
            f"loss_val: {loss_val:.4f} acc_val: {acc_val:.4f}"
        )


def test(model, criterion, input, target, mask):
    model.eval()
    with torch.no_grad():
        output = model(*input)
        output, target = output[mask], target[mask]

        loss = criterion(output, target)
        acc = (output.argmax(dim=1) == target).float().sum() / len(target)
    return loss.item(), acc.item()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="PyTorch Graph Convolutional Network")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--l2", type=float, default=5e-4)
    parser.add_argument("--dropout-p", type=float, default=0.5)
    parser.add_argument("--hidden-dim", type=int, default=16)
    parser.add_argument("--val-every", type=int, default=20)
    parser.add_argument("--include-bias", action="store_true", default=False)
    parser.add_argument("--device", type=str, default="cpu")
    parser.add_argument("--dry-run", action="store_true", default=False)
    parser.add_argument("--seed", type=int, default=42, metavar="S")
    args = parser.parse_args(["--epochs", "40", "--val-every", "10"])

    torch.set_default_dtype(torch.float64)
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    print(f"Using {device} device")

    features, labels, adj_mat = synthetic_graph()
    idx = torch.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:30], idx[30:50], idx[50:]

    gcn = GCN(
        features.shape[1],
        args.hidden_dim,
        labels.max().item() + 1,
        args.include_bias,
        args.dropout_p,
    ).to(device)
    optimizer = optim.Adam(gcn.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()

    for epoch in range(args.epochs):
        train_iter(
            epoch + 1,
            gcn,
            optimizer,
            criterion,
            (features, adj_mat),
            labels,
            idx_train,
            idx_val,
            args.val_every,
        )
        if args.dry_run:
            break

    loss_test, acc_test = test(gcn, criterion, (features, adj_mat), labels, idx_test)
    print(f"Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}")
