"""The op tables with every op module loaded (``ops.LATER``'s too): what reads a table
whole at import (``gradcli.nn``, ``gradcli.optim``, ``gradcli.linalg``, vmap's
dispatch) imports it from here."""

from __future__ import annotations

from . import INPLACE_METHODS, INTERNAL, LIBRARY, METHODS, NN_FUNCTIONAL, OPS, load_all

load_all()

__all__ = ["INPLACE_METHODS", "INTERNAL", "LIBRARY", "METHODS", "NN_FUNCTIONAL", "OPS"]
