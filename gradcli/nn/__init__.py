"""``torch.nn``: modules, their parameters, initialisation and ``functional``.

``Module`` registers what its attributes hold (``module.py``); the layers, the
activations and the losses are modules of their own files, the containers in
``containers.py``. What PyTorch has and gradcli not yet (``nn.Conv3d``) is an
error that says so.
"""

from __future__ import annotations

from ..errors import NotImplementedByGradcli
from . import functional as functional
from . import init as init
from . import utils as utils
from .activation import (
    ELU,
    GELU,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Softsign,
    Tanh,
)
from .containers import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .convolution import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    Conv1d,
    Conv2d,
    MaxPool1d,
    MaxPool2d,
)
from .layers import (
    BatchNorm1d,
    BatchNorm2d,
    Bilinear,
    Dropout,
    Dropout1d,
    Dropout2d,
    Embedding,
    Flatten,
    GroupNorm,
    Identity,
    LayerNorm,
    Linear,
    Unflatten,
)
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from .module import Module
from .parameter import Parameter
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AvgPool1d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "Bilinear", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d",
    "ELU", "Embedding", "Flatten", "GELU", "GRU", "GRUCell", "GroupNorm", "HuberLoss",
    "Identity", "KLDivLoss", "L1Loss", "LSTM", "LSTMCell", "LayerNorm", "LeakyReLU",
    "Linear", "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "Module", "ModuleDict",
    "ModuleList", "NLLLoss", "Parameter", "ParameterDict", "ParameterList", "RNN",
    "RNNBase", "RNNCell", "RNNCellBase", "ReLU", "Sequential", "SiLU", "Sigmoid",
    "SmoothL1Loss", "Softmax", "Softplus", "Softsign", "Tanh", "Unflatten", "functional",
    "init", "utils",
]  # fmt: skip

MISSING = "gradcli has no {name} yet: {what} it has are listed in docs/library.md"


def __getattr__(name):
    if name[:1].isupper() or name in ("modules", "parallel"):
        what = "the modules" if name[:1].isupper() else "the torch.nn helpers"
        raise NotImplementedByGradcli(MISSING.format(what=what, name=f"torch.nn.{name}"))
    raise AttributeError(f"module 'gradcli.nn' has no attribute '{name}'")
