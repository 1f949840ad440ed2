"""Devices: ``torch.device`` objects, and the check that a tensor is asked for on the CPU.

gradcli computes on the CPU, with NumPy. A program may name any device PyTorch
knows (``torch.device("cuda:1")`` is an object like any other), but asking for
a tensor anywhere but the CPU is an error that says so.
"""

from __future__ import annotations

from ..errors import EngineError, GradcliError, NotImplementedByGradcli, named_as

# PyTorch's device types, in the order its message lists them.
_TYPES = (
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone",
)  # fmt: skip


@named_as(AssertionError)
class NoCudaError(GradcliError, AssertionError):
    """A CUDA device asked for: an AssertionError, as a CPU build of PyTorch raises."""


class device:  # noqa: N801  (PyTorch's name)
    """A device: a type (``"cpu"``, ``"cuda"``) and an optional index (``"cpu:0"``)."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002  (PyTorch's parameter name)
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index  # noqa: A001
        elif not isinstance(type, str):
            raise EngineError("Cannot access accelerator device when none is available.")
        kind, colon, number = type.partition(":")
        if kind not in _TYPES:
            raise EngineError(
                f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}"
            )
        if colon:
            if not number.isdigit() or index is not None:
                raise EngineError(f"Invalid device string: '{type}'")
            index = int(number)
        self.type = kind
        self.index = None if index is None else int(index)

    def __repr__(self) -> str:
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")


def on_cpu(where):
    """Check that ``where`` (None, ``"cpu"``, ``"cpu:0"``, a ``device``) is the CPU."""
    if where is None or where == "cpu" or where is CPU:
        return
    kind = device(where).type
    if kind == "cpu":
        return
    if kind == "cuda":
        raise NoCudaError(
            "gradcli computes on the CPU only: there is no CUDA device "
            "(PyTorch says: Torch not compiled with CUDA enabled)"
        )
    raise NotImplementedByGradcli(
        f"gradcli computes on the CPU only: there is no '{kind}' device; use device='cpu'"
    )


def set_default_device(where) -> None:
    """``torch.set_default_device``: the CPU (or None) is the only device there is."""
    on_cpu(where)


def get_default_device() -> device:
    return CPU
