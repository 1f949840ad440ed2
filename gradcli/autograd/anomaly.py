"""Finding the op whose derivative first produced nan or inf.

``detect_anomaly`` and ``set_detect_anomaly`` are PyTorch's: the reverse pass
raises when an op's rule returns nan. ``first_nonfinite`` is gradcli's own: it
records, without raising, the first op whose rule turned a finite gradient into
nan or inf (the command line names that op in its warning).
"""

from __future__ import annotations

import numpy as np

from ..engine.state import PER_THREAD, is_anomaly_check_nan_enabled, is_anomaly_enabled
from ..engine.tensor import Tensor
from ..errors import EngineError

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "first_nonfinite",
]


def _values(g):
    return g._data if type(g) is Tensor else np.asarray(g)


def _raise_on_nan(node, index, g, gi):
    if np.isnan(_values(gi)).any():
        raise EngineError(f"Function '{node.name()}' returned nan values in its {index}th output.")


class _Hooked:
    """Install a reverse-pass check for the duration of a ``with`` block."""

    hook = None

    def __enter__(self):
        self.previous = PER_THREAD.anomaly
        PER_THREAD.anomaly = self.hook
        return self

    def __exit__(self, *exc):
        PER_THREAD.anomaly = self.previous
        return False


def _switch(mode, check_nan):
    """Anomaly mode and its nan check as PyTorch's switches set them; returns the state
    before, for the switch to restore."""
    before = (PER_THREAD.anomaly_mode, PER_THREAD.anomaly_check_nan, PER_THREAD.anomaly)
    PER_THREAD.anomaly_mode, PER_THREAD.anomaly_check_nan = bool(mode), bool(check_nan)
    PER_THREAD.anomaly = _raise_on_nan if mode and check_nan else None
    return before


def _restore(before):
    PER_THREAD.anomaly_mode, PER_THREAD.anomaly_check_nan, PER_THREAD.anomaly = before


class detect_anomaly:
    """Raise when an op's derivative returns nan, naming the op (as PyTorch does); with
    ``check_nan=False`` anomaly mode is on without that check."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self.before = _switch(True, self.check_nan)

    def __exit__(self, *exc):
        _restore(self.before)
        return False


class set_detect_anomaly:
    """Switch anomaly mode on or off (for this thread) at once; as a context manager the
    mode before comes back at the block's end, as in PyTorch."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.before = _switch(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _restore(self.before)
        return False


class first_nonfinite(_Hooked):
    """Record the first node whose rule made nan or inf out of a finite gradient, and
    the first whose rule made nan out of a gradient without nan.

    After the block, ``node`` is the first graph node (None if there was none) and
    ``index`` the input its rule was for; ``nan_node`` and ``nan_index`` the same for
    nan, which may come later: at the origin of ``sqrt(x**2)``, sqrt's rule makes inf
    and pow's makes nan of it. ``nan_of_infinite`` then says pow's gradient held
    infinities, and was nan only where it held them (inf times a derivative 0).
    """

    def __init__(self):
        self.node = None
        self.index = None
        self.nan_node = None
        self.nan_index = None
        self.nan_of_infinite = False

    def hook(self, node, index, g, gi):
        gi = _values(gi)
        if self.nan_node is not None or np.isfinite(gi).all():
            return
        g = _values(g)
        if self.node is None and np.isfinite(g).all():
            self.node, self.index = node, index
        nan = np.isnan(gi)
        if nan.any() and not np.isnan(g).any():
            self.nan_node, self.nan_index = node, index
            infinite = np.isinf(g)
            self.nan_of_infinite = bool(
                infinite.any() and g.shape == gi.shape and not (nan & ~infinite).any()
            )
