"""PyTorch's messages for what goes wrong in the engine, word for word where PyTorch has one."""

from __future__ import annotations

import re

import numpy as np

from ..errors import (
    GradcliError,
    GradcliIndexError,
    GradcliTypeError,
    NotImplementedByGradcli,
    ShapeError,
)

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd."
)
INFERENCE_REQUIRES_GRAD = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"
IMPLICIT_NONSCALAR = "grad can be implicitly created only for scalar outputs"


def vmap_inplace(what):
    """PyTorch's error for an in-place op (``what``: "inplace arithmetic", "aten::copy_")
    inside vmap on a tensor batched at a lower level than one of its arguments."""
    return (
        f"vmap: {what}(self, *extra_args) is not possible because there exists a Tensor "
        "`other` in extra_args that has more elements than `self`. This happened due to "
        "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try "
        f"to use out-of-place operators instead of {what}. If said operator is being called "
        "inside the PyTorch framework, please file a bug report instead."
    )


OVERLAPPING_WRITE = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def dim_out_of_range(dim, ndim) -> str:
    span = max(ndim, 1)
    return (
        f"Dimension out of range (expected to be in range of [{-span}, {span - 1}], but got {dim})"
    )


# A message that begins with the name of what raised it: "amax(): ...", "linalg.norm: ...".
_NAMED = re.compile(r"[\w.]+(\(\))?: ")


def forward_error(name, raws, err):
    """The error to raise for ``err`` from NumPy in the forward of op ``name``."""
    if isinstance(err, GradcliError) and _NAMED.match(str(err)):
        return err  # the forward's own, naming its function already ("linalg.norm: ...")
    shapes = [tuple(np.shape(r)) for r in raws]
    if isinstance(err, np.exceptions.AxisError) and err.ndim is not None:
        return GradcliIndexError(f"{name}: {dim_out_of_range(err.axis, err.ndim)}")
    if isinstance(err, IndexError):  # in PyTorch's words: a tensor has dimensions, not axes
        return GradcliIndexError(f"{name}: {str(err).replace(' for axis ', ' for dimension ')}")
    if isinstance(err, np.linalg.LinAlgError):
        return ShapeError(f"{name}: {err}")
    mismatch = broadcast_mismatch(shapes)
    if mismatch is not None:
        return ShapeError(f"{name}: {mismatch}")
    return ShapeError(f"{name}: shapes {' and '.join(map(str, shapes))} do not fit: {err}")


def implicit_gradient(output) -> str:
    """Why backward() without a gradient refuses ``output`` (raw): not a real scalar."""
    if output.size != 1:
        return IMPLICIT_NONSCALAR
    return (
        f"grad can be implicitly created only for real scalar outputs but got torch.{output.dtype}"
    )


def complex_mismatch(i, given, dtype) -> str:
    return (
        "For complex Tensors, both grad_output and output are required to have the same "
        f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of torch.{given} and "
        f"output[{i}] has a dtype of torch.{dtype}."
    )


def batched_shape_mismatch(i, given, shape) -> str:
    """PyTorch's words, and its shape: the grad's with two dims cut."""
    return (
        "If `is_grads_batched=True`, we interpret the first dimension of each "
        "grad_output as the batch dimension. The sizes of the remaining "
        "dimensions are expected to match the shape of corresponding output, "
        f"but a mismatch was detected: grad_output[{i}] has a shape of "
        f"torch.Size({list(given[2:])}) and output[{i}] has a shape of "
        f"torch.Size({list(shape)}). If you only want some tensors in "
        "`grad_output` to be considered batched, consider using vmap."
    )


def complex_refused(name):
    """The error of an op that does not take complex numbers (yet)."""
    return NotImplementedByGradcli(f"complex input is not supported by gradcli's {name} yet")


def operand_error(name, x, y):
    names = [type(a).__name__ for a in (x, y)]
    return GradcliTypeError(
        f"unsupported operand type(s) for {name}: '{names[0]}' and '{names[1]}'"
    )


def broadcast_mismatch(shapes):
    """PyTorch's message for two shapes that do not broadcast, naming both; else None."""
    for i, a in enumerate(shapes):
        for b in shapes[i + 1 :]:
            n = max(len(a), len(b))
            for k in range(1, min(len(a), len(b)) + 1):
                if a[-k] != b[-k] and 1 not in (a[-k], b[-k]):
                    return (
                        f"The size of tensor a ({a[-k]}) must match the size of tensor b "
                        f"({b[-k]}) at non-singleton dimension {n - k} "
                        f"(shapes {a} and {b})"
                    )
    return None


def expand_mismatch(old, shape) -> str:
    """PyTorch's message for broadcasting a tensor of shape ``old`` to ``shape``."""
    if len(shape) < len(old):
        return (
            f"expand: the number of sizes provided ({len(shape)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({len(old)})"
        )
    k = next(k for k in range(1, len(old) + 1) if old[-k] not in (1, shape[-k]))
    return (
        f"The expanded size of the tensor ({shape[-k]}) must match the existing size "
        f"({old[-k]}) at non-singleton dimension {len(shape) - k}.  Target sizes: "
        f"{list(shape)}.  Tensor sizes: {list(old)}"
    )
