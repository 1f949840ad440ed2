# follows: pytorch/examples, "gat/main.py" (GraphAttentionLayer with several heads and
#   masked softmax attention, the two-layer GAT with ELU, train_iter and test),
#   https://github.com/pytorch/examples/blob/main/gat/main.py
"""The example's GraphAttentionLayer (Xavier-initialised W and a, scores a^T [Wh_i || Wh_j]
through LeakyReLU, non-edges masked before the softmax, dropout, heads averaged or
concatenated), its GAT, NLLLoss on the training nodes and Adam with weight decay. The
Cora download is replaced by a synthetic graph of 60 nodes in 3 classes, the time per
epoch left out of the log; in float64, 4 heads of 8 hidden features, 30 epochs."""

import argparse

import torch
import torch.nn.functional as F
from torch import nn, optim


class GraphAttentionLayer(nn.Module):
    def __init__(
        self,
        in_features: int,
        out_features: int,
        n_heads: int,
        concat: bool = False,
        dropout: float = 0.4,
        leaky_relu_slope: float = 0.2,
    ):
        super().__init__()

        self.n_heads = n_heads  # Number of attention heads
        self.concat = concat  # wether to concatenate the final attention heads
        self.dropout = dropout  # Dropout rate

        if concat:  # concatenating the attention heads
            self.out_features = out_features  # Number of output features per node
            assert out_features % n_heads == 0  # Ensure that out_features is a multiple of n_heads
            self.n_hidden = out_features // n_heads
        else:  # averaging output over the attention heads (Used in the main paper)
            self.n_hidden = out_features

        # A shared linear transformation, parametrized by a weight matrix W, applied to every node
        self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))

        # Initialize the attention weights a
        self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))

        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)  # LeakyReLU activation function
        self.softmax = nn.Softmax(
            dim=1
        )  # softmax activation function to the attention coefficients

        self.reset_parameters()  # Reset the parameters

    def reset_parameters(self):
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed: torch.Tensor):
        source_scores = torch.matmul(h_transformed, self.a[:, : self.n_hidden, :])
        target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden :, :])

        # broadcast add
        # (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes) = (n_heads, n_nodes, n_nodes)
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self, h: torch.Tensor, adj_mat: torch.Tensor):
        n_nodes = h.shape[0]

        # Apply linear transformation to node feature -> W h
        # output shape (n_nodes, n_hidden * n_heads)
        h_transformed = torch.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)

        # splitting the heads by reshaping the tensor and putting heads dim first
        # output shape (n_heads, n_nodes, n_hidden)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)

        # getting the attention scores
        # output shape (n_heads, n_nodes, n_nodes)
        e = self._get_attention_scores(h_transformed)

        # Set the attention score for non-existent edges to -9e15 (MASKING NON-EXISTENT EDGES)
        connectivity_mask = -9e16 * torch.ones_like(e)
        e = torch.where(adj_mat > 0, e, connectivity_mask)  # masked attention scores

        # attention coefficients are computed as a softmax over the rows
        # for each column j in the attention score matrix e
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)

        # final node embeddings are computed as a weighted average of the features of its neighbors
        h_prime = torch.matmul(attention, h_transformed)

        # concatenating/averaging the attention heads
        # output shape (n_nodes, out_features)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)

        return h_prime


class GAT(nn.Module):
    def __init__(
        self,
        in_features,
        n_hidden,
        n_heads,
        num_classes,
        concat=False,
        dropout=0.4,
        leaky_relu_slope=0.2,
    ):
        super().__init__()

        # Define the Graph Attention layers
        self.gat1 = GraphAttentionLayer(
            in_features=in_features,
            out_features=n_hidden,
            n_heads=n_heads,
            concat=concat,
            dropout=dropout,
            leaky_relu_slope=leaky_relu_slope,
        )

        self.gat2 = GraphAttentionLayer(
            in_features=n_hidden,
            out_features=num_classes,
            n_heads=1,
            concat=False,
            dropout=dropout,
            leaky_relu_slope=leaky_relu_slope,
        )

    def forward(self, input_tensor: torch.Tensor, adj_mat: torch.Tensor):
        # Apply the first Graph Attention layer
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x)  # Apply ELU activation function to the output of the first layer

        # Apply the second Graph Attention layer
        x = self.gat2(x, adj_mat)

        return F.log_softmax(x, dim=1)  # Apply log softmax activation function


def synthetic_graph(nodes=60, classes=3, features=16):
    labels = torch.arange(nodes) % classes
    centres = torch.rand(classes, features)
    x = (centres[labels] + 0.8 * torch.rand(nodes, features)).round()
    x = x / x.sum(dim=1, keepdim=True).clamp(min=1)  # each row scaled by its sum, as Cora's
    same = labels[:, None] == labels[None, :]
    adj_mat = (torch.rand(nodes, nodes) < torch.where(same, 0.12, 0.02)).double()
    adj_mat = ((adj_mat + adj_mat.T) > 0).double()
    return x, labels, torch.eye(nodes) + adj_mat  # Add self-loops to the adjacency matrix


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
    parser = argparse.ArgumentParser(description="PyTorch Graph Attention Network")
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--l2", type=float, default=5e-4)
    parser.add_argument("--dropout-p", type=float, default=0.6)
    parser.add_argument("--hidden-dim", type=int, default=64)
    parser.add_argument("--num-heads", type=int, default=8)
    parser.add_argument("--concat-heads", action="store_true")
    parser.add_argument("--val-every", type=int, default=20)
    parser.add_argument("--no-accel", action="store_true")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--seed", type=int, default=13, metavar="S")
    argv = ["--epochs", "30", "--hidden-dim", "8", "--num-heads", "4", "--val-every", "10"]
    args = parser.parse_args(argv)

    torch.set_default_dtype(torch.float64)
    torch.manual_seed(args.seed)

    use_accel = not args.no_accel and torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    print(f"Using {device} device")

    features, labels, adj_mat = synthetic_graph()
    # Split the dataset into training, validation, and test sets
    idx = torch.randperm(len(labels)).to(device)
    idx_test, idx_val, idx_train = idx[:20], idx[20:30], idx[30:]

    gat_net = GAT(
        in_features=features.shape[1],  # Number of input features per node
        n_hidden=args.hidden_dim,  # Output size of the first Graph Attention Layer
        n_heads=args.num_heads,  # Number of attention heads in the first Graph Attention Layer
        num_classes=labels.max().item() + 1,  # Number of classes to predict for each node
        concat=args.concat_heads,  # Wether to concatinate attention heads
        dropout=args.dropout_p,  # Dropout rate
        leaky_relu_slope=0.2,  # Alpha (slope) of the leaky relu activation
    ).to(device)

    # configure the optimizer and loss function
    optimizer = optim.Adam(gat_net.parameters(), lr=args.lr, weight_decay=args.l2)
    criterion = nn.NLLLoss()

    # Train and evaluate the model
    for epoch in range(args.epochs):
        train_iter(
            epoch + 1,
            gat_net,
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
    loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
    print(f"Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}")
