"""``func.functional_call``: a model called with other tensors in place of its own.

gradcli has no ``nn.Module``: a model is any callable object that holds its
tensors as attributes (``self.w``), or in objects it holds (``self.layer.w``,
named ``"layer.w"``). ``functional_call(model, {"w": w2}, x)`` puts each given
tensor in place of the attribute it names, calls ``model(x)`` and puts the
model's own back, as PyTorch does for a module's parameters and buffers: so
``grad`` of a function of a dict of parameters differentiates the model. A
model whose tensors are shared under two names (tied) gets the new one under
both unless ``tie_weights=False``; ``strict=True`` asks for every tensor of the
model and no other. Messages are PyTorch's.
"""

from __future__ import annotations

from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError, GradcliValueError

__all__ = ["functional_call"]

_ABSENT = object()


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict
    of dotted attribute names, or a sequence of such dicts) in place of its own."""
    given = _merged(parameter_and_buffer_dicts)
    for value in given.values():
        if not isinstance(value, Tensor):
            raise GradcliTypeError(f"{value} is not an instance of torch.Tensor")
    state = _state(module)
    if strict:
        _check_strict(module, given, state)
    if tie_weights:
        given = _tied(given, state)
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    saved = []
    try:
        for name, value in given.items():
            owner, attr = _owner(module, name)
            saved.append((owner, attr, owner.__dict__.get(attr, _ABSENT)))
            setattr(owner, attr, value)
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attr, old in reversed(saved):
            if old is _ABSENT:
                delattr(owner, attr)
            else:
                setattr(owner, attr, old)


def _merged(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, (tuple, list)):
        raise GradcliValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(dicts)}"
        )
    if not all(isinstance(d, dict) for d in dicts):
        raise GradcliValueError(
            "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
        )
    keys = [k for d in dicts for k in d]
    repeated = list(dict.fromkeys(k for k in keys if keys.count(k) > 1))
    if repeated:
        raise GradcliValueError(
            f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
            "ambiguous"
        )
    return {k: v for d in dicts for k, v in d.items()}


def _state(module, prefix="", seen=None):
    """The model's tensors by dotted name: its own attributes' and, through the objects it
    holds, theirs (each object once)."""
    seen = set() if seen is None else seen
    seen.add(id(module))
    found = {}
    for attr, value in vars(module).items() if hasattr(module, "__dict__") else ():
        if isinstance(value, Tensor):
            found[prefix + attr] = value
        elif _holds_state(value) and id(value) not in seen:
            found.update(_state(value, f"{prefix}{attr}.", seen))
    return found


def _holds_state(value) -> bool:
    """An object whose attributes may be a model's tensors: an instance of a class of
    the program's, not a function, class or module."""
    return (
        hasattr(value, "__dict__")
        and not isinstance(value, type)
        and (type(value).__module__ not in ("builtins", "types", "functools"))
    )


def _check_strict(module, given, state):
    unexpected = [k for k in given if k not in state]
    missing = [k for k in state if k not in given]
    if unexpected or missing:
        lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
        if unexpected:
            lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
        if missing:
            lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
        raise EngineError("\n".join(lines))


def _tied(given, state):
    """``given`` with each name that holds the same tensor as a given one (and is not given
    itself) given that one's replacement too."""
    out = dict(given)
    for name, value in given.items():
        old = state.get(name)
        if old is None:
            continue
        for other, tensor in state.items():
            if tensor is old and other not in given:
                out[other] = value
    return out


def _owner(module, name):
    """The object holding the attribute ``name`` names, and the attribute."""
    *path, attr = name.split(".")
    owner = module
    for part in path:
        nxt = getattr(owner, part, None)
        if nxt is None or isinstance(nxt, Tensor) or not hasattr(nxt, "__dict__"):
            raise GradcliTypeError(
                f"submodule `{part}`: {nxt} is not an instance of torch.nn.Module"
            )
        owner = nxt
    return owner, attr
