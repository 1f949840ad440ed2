"""``torch.optim``: the optimisers (``algorithms.py``) on ``Optimizer``'s parameter groups
and state (``optimizer.py``), and ``lr_scheduler``."""

from __future__ import annotations

from ..errors import NotImplementedByGradcli
from . import lr_scheduler as lr_scheduler
from .algorithms import SGD, Adadelta, Adagrad, Adam, AdamW, RMSprop
from .lbfgs import LBFGS
from .optimizer import Optimizer

__all__ = ["LBFGS", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Optimizer", "RMSprop",
           "lr_scheduler"]  # fmt: skip


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedByGradcli(
        f"gradcli has no torch.optim.{name} yet: the optimisers it has are "
        + ", ".join(n for n in __all__ if n[0].isupper() and n != "Optimizer")
    )
