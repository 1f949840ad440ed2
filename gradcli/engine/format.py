"""Render numpy arrays exactly as PyTorch prints tensors.

``format_tensor(data)`` returns the text ``repr(torch.tensor(data))`` would
produce (PyTorch 2.13, CPU, strided layout), including the ``dtype=``,
``requires_grad=True`` and ``grad_fn=<...>`` suffixes. The algorithm is a
faithful port of ``torch/_tensor_str.py``: the same width computation, the
same scientific-notation rule, the same line wrapping and the same ``...``
summarisation. ``set_printoptions`` mirrors ``torch.set_printoptions``.

Only numpy and the standard library are imported; nothing heavy happens at
import time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = [
    "format_tensor",
    "get_printoptions",
    "printoptions",
    "set_printoptions",
]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    sci_mode: bool | None = None,
    profile: str | None = None,
) -> None:
    """Set the options used by :func:`format_tensor`, with ``torch.set_printoptions`` semantics.

    Options left as ``None`` keep their current value, except ``sci_mode``, which
    is always assigned (``None`` means "choose automatically"), exactly as in
    PyTorch. ``profile`` is one of ``"default"``, ``"short"`` or ``"full"`` and is
    applied before the individual options.
    """
    if profile is not None:
        if profile == "default":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80
        elif profile == "short":
            PRINT_OPTS.precision = 2
            PRINT_OPTS.threshold = 1000
            PRINT_OPTS.edgeitems = 2
            PRINT_OPTS.linewidth = 80
        elif profile == "full":
            PRINT_OPTS.precision = 4
            PRINT_OPTS.threshold = math.inf
            PRINT_OPTS.edgeitems = 3
            PRINT_OPTS.linewidth = 80

    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for :func:`set_printoptions`."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Temporarily change the print options (same arguments as :func:`set_printoptions`)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """Port of ``torch._tensor_str._Formatter`` for one real-valued component."""

    __slots__ = ("floating", "int_mode", "sci_mode", "max_width", "precision")

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        # ``values`` is a flat array holding the (summarised) data being printed.
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        self.precision = PRINT_OPTS.precision

        if not floating:
            # Width of str(value). For integers the string length grows with the
            # magnitude on each side of zero, so the extremes are enough.
            if values.size:
                if values.dtype == np.bool_:
                    candidates = np.unique(values).tolist()
                else:
                    candidates = [values.min().item(), values.max().item()]
                self.max_width = max(1, max(len(f"{v}") for v in candidates))
            return

        with np.errstate(invalid="ignore", over="ignore"):
            nonzero_finite = values[np.isfinite(values) & (values != 0)]
        if nonzero_finite.size == 0:
            # No valid number: int mode, fixed notation, width 1.
            return

        absvals = np.abs(nonzero_finite).astype(np.float64)
        nz_min = float(absvals.min())
        nz_max = float(absvals.max())

        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = nz_max / nz_min > 1000.0 or nz_max > 1.0e8 or nz_min < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        # Correctly rounded decimal formatting is monotone in the magnitude, so
        # the widest rendering (fixed or scientific) is that of one of the
        # extremes on either side of zero.
        as_double = nonzero_finite.astype(np.float64)
        candidates = []
        pos = as_double[as_double > 0]
        if pos.size:
            candidates += [float(pos.min()), float(pos.max())]
        neg = as_double[as_double < 0]
        if neg.size:
            candidates += [float(neg.min()), float(neg.max())]

        p = self.precision
        if self.sci_mode:
            spec = f".{p}e"
            extra = 0
        elif self.int_mode:
            spec = ".0f"
            extra = 1  # room for the trailing "." marking a float tensor
        else:
            spec = f".{p}f"
            extra = 0
        for v in candidates:
            self.max_width = max(self.max_width, len(format(v, spec)) + extra)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                ret = format(value, f"{self.max_width}.{self.precision}e")
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = format(value, f".{self.precision}f")
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized_values(a: np.ndarray) -> np.ndarray:
    """Flat array of the elements shown when summarising (``get_summarized_data``)."""
    e = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a.reshape(-1)
    if a.ndim == 1:
        if a.shape[0] > 2 * e:
            # Note a[-0:] is the whole array, as in torch.
            return np.concatenate((a[:e], a[-e:]))
        return a
    if not e:
        return a[:0].reshape(-1)
    if a.shape[0] > 2 * e:
        rows = [a[i] for i in range(e)] + [a[i] for i in range(len(a) - e, len(a))]
    else:
        rows = list(a)
    parts = [_summarized_values(r).reshape(-1) for r in rows]
    return np.concatenate(parts) if parts else a[:0].reshape(-1)


def _as_list(row: Any) -> list:
    return row.tolist() if isinstance(row, np.ndarray) else row


class _Printer:
    """Holds one or two formatters (two for complex: real and imaginary parts)."""

    __slots__ = ("f1", "f2")

    def __init__(self, f1: _Formatter, f2: _Formatter | None) -> None:
        self.f1 = f1
        self.f2 = f2

    def value(self, val: Any) -> str:
        if self.f2 is None:
            return self.f1.format(val)
        real_str = self.f1.format(val.real)
        imag_str = (self.f2.format(val.imag) + "j").lstrip()
        # handles negative numbers, +0.0, -0.0
        if imag_str[0] == "+" or imag_str[0] == "-":
            return real_str + imag_str
        return real_str + "+" + imag_str

    def vector(self, row: Any, indent: int, summarize: bool) -> str:
        # ``row`` is a list, or (when summarising) a 1-d ndarray of which only
        # the edge items are converted to Python numbers.
        element_length = self.f1.width() + 2
        if self.f2 is not None:
            element_length += self.f2.width() + 1
        elements_per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
        e = PRINT_OPTS.edgeitems
        if summarize and not e:
            data = ["..."]
        elif summarize and len(row) > 2 * e:
            data = (
                [self.value(v) for v in _as_list(row[:e])]
                + [" ..."]
                + [self.value(v) for v in _as_list(row[-e:])]
            )
        else:
            data = [self.value(v) for v in _as_list(row)]
        lines = [
            ", ".join(data[i : i + elements_per_line])
            for i in range(0, len(data), elements_per_line)
        ]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"

    def tensor(self, nested: Any, dim: int, indent: int, summarize: bool) -> str:
        if dim == 1:
            return self.vector(nested, indent, summarize)
        e = PRINT_OPTS.edgeitems
        n = len(nested)
        if summarize and n > 2 * e:
            slices = (
                [self.tensor(nested[i], dim - 1, indent + 1, summarize) for i in range(e)]
                + ["..."]
                + [self.tensor(nested[i], dim - 1, indent + 1, summarize) for i in range(n - e, n)]
            )
        else:
            slices = [self.tensor(sub, dim - 1, indent + 1, summarize) for sub in nested]
        return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _tensor_str(a: np.ndarray, indent: int) -> str:
    if a.size == 0:
        return "[]"
    summarize = a.size > PRINT_OPTS.threshold
    kind = a.dtype.kind
    source = _summarized_values(a) if summarize else a.reshape(-1)
    if kind == "c":
        f1 = _Formatter(np.ascontiguousarray(source.real), True)
        f2: _Formatter | None = _Formatter(np.ascontiguousarray(source.imag), True)
    else:
        f1 = _Formatter(source, kind == "f")
        f2 = None
    printer = _Printer(f1, f2)
    if a.ndim == 0:
        return printer.value(a.item())
    # Summarised output shows few elements: keep the ndarray and convert only those.
    return printer.tensor(a if summarize else a.tolist(), a.ndim, indent, summarize)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int) -> str:
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def _check_dtype(a: np.ndarray) -> None:
    if a.dtype.kind not in "biufc":
        raise TypeError(f"format_tensor: unsupported array dtype {a.dtype}")


def format_tensor(
    data: np.ndarray,
    *,
    dtype_suffix: str | None = None,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    tangent: str | None = None,
) -> str:
    """Return the text PyTorch prints for a CPU tensor holding ``data``.

    ``dtype_suffix`` is the dtype text to show (e.g. ``"torch.float64"``) when
    the caller considers the dtype non-default; it is printed verbatim as
    ``dtype=<suffix>``. When it is ``None`` no dtype is shown, except for empty
    non-floating arrays, for which PyTorch always names the dtype (e.g.
    ``tensor([], dtype=torch.int64)``). ``grad_fn_name`` (e.g. ``"AddBackward0"``)
    adds ``grad_fn=<...>``; otherwise ``requires_grad=True`` adds that flag.
    ``tangent`` (a dual tensor's, as text) comes last, on a line of its own when
    the line would be too long, as every suffix.
    """
    a = np.asarray(data)
    _check_dtype(a)
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []

    if a.size == 0:
        # Explicitly print the shape if it is not (0,), to match NumPy behavior.
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if dtype_suffix is not None:
            suffixes.append("dtype=" + dtype_suffix)
        elif a.dtype.kind not in "f":
            # torch names any dtype other than the default float dtype here.
            suffixes.append("dtype=torch." + a.dtype.name)
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(tuple(a.shape)))
        if dtype_suffix is not None:
            suffixes.append("dtype=" + dtype_suffix)
        tensor_str = _tensor_str(a, indent)

    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")

    return _add_suffixes(prefix + tensor_str, suffixes, indent)
