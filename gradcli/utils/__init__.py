"""``torch.utils``: ``data``, the datasets, samplers and ``DataLoader`` of PyTorch."""

from __future__ import annotations

from . import data as data

__all__ = ["data"]
