"""``func.functional_call``: a model called with other tensors in place of its own.

A model is an ``nn.Module`` (its parameters and buffers by their dotted names), or
any callable object that holds its tensors as attributes (``self.w``), or in
objects it holds (``self.layer.w``, named ``"layer.w"``).
``functional_call(model, {"w": w2}, x)`` puts each given
tensor in place of the attribute it names, calls ``model(x)`` and puts the
model's own back, as PyTorch does for a module's parameters and buffers: so
``grad`` of a function of a dict of parameters differentiates the model. A
model whose tensors are shared under two names (tied) gets the new one under
both unless ``tie_weights=False``; ``strict=True`` asks for every tensor of the
model and no other. Messages are PyTorch's.
"""

from __future__ import annotations

from ..engine.ops.every import LIBRARY
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError, GradcliValueError
from ..nn import Module

__all__ = ["functional_call", "stack_module_state"]

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
            table = _table(owner, attr)
            saved.append((owner, attr, table, table.get(attr, _ABSENT)))
            if table is owner.__dict__:
                setattr(owner, attr, value)
            else:  # a module's parameter or buffer: put in its place, whatever its type
                table[attr] = value
        return module(*args, **(kwargs or {}))
    finally:
        for owner, attr, table, old in reversed(saved):
            if table is not owner.__dict__:
                table[attr] = old
            elif old is _ABSENT:
                delattr(owner, attr)
            else:
                setattr(owner, attr, old)


def _table(owner, attr) -> dict:
    """Where ``owner`` keeps ``attr``: a module's parameters or buffers, else its ``__dict__``."""
    if isinstance(owner, Module):
        for table in (owner._parameters, owner._buffers):
            if attr in table:
                return table
    return owner.__dict__


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
    if isinstance(module, Module):
        return {
            **dict(module.named_parameters(remove_duplicate=False)),
            **dict(module.named_buffers(remove_duplicate=False)),
        }
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


def stack_module_state(models):
    """The parameters and the buffers of ``models`` (modules of one class, all in the same
    mode), each stacked along a new first dimension: a leaf that requires grad where the
    models' do."""
    if len(models) == 0:
        raise EngineError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise EngineError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if len({type(m) for m in models}) > 1:
        raise EngineError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return (
        {k: _stacked_leaf([p[k] for p in params], k) for k in params[0]},
        {k: _stacked_leaf([b[k] for b in buffers], k) for k in buffers[0]},
    )


def _stacked_leaf(tensors, name):
    flags = {t.requires_grad for t in tensors}
    if len(flags) > 1:
        raise EngineError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = LIBRARY["stack"](tensors)
    return stacked.detach().requires_grad_() if flags == {True} else stacked
