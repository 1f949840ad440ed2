"""``torch.optim``: not part of gradcli, which has no optimisers; asking for one says so."""

from __future__ import annotations

from ..errors import NotImplementedByGradcli
from ..nn import OUT_OF_SCOPE


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedByGradcli(
        OUT_OF_SCOPE.format(what="optimisers", name=f"torch.optim.{name}") + ", as p -= lr * p.grad"
    )
