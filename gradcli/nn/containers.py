"""``torch.nn``'s containers: Sequential, ModuleList, ModuleDict, ParameterList and
ParameterDict."""

from __future__ import annotations

from collections import OrderedDict

from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError
from .module import Module, addindent
from .parameter import Parameter

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]


def _index(index, length, kind):
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range")
    return index % length


class Sequential(Module):
    """Modules called in turn, each on the output of the one before."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, index):
        modules = list(self._modules.items())
        if isinstance(index, slice):
            return type(self)(OrderedDict(modules[index]))
        return modules[_index(index, len(modules), "Sequential")][1]

    def __setitem__(self, index, module):
        name = list(self._modules)[_index(index, len(self), "Sequential")]
        setattr(self, name, module)

    def __delitem__(self, index):
        names = list(self._modules)
        for name in names[index] if isinstance(index, slice) else [names[index]]:
            del self._modules[name]
        self._modules = dict(zip(map(str, range(len(self._modules))), self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as children ``0``, ``1``, ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._modules.values())[index])
        return self._modules[str(_index(index, len(self), "ModuleList"))]

    def __setitem__(self, index, module):
        setattr(self, str(_index(index, len(self), "ModuleList")), module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not hasattr(modules, "__iter__"):
            raise GradcliTypeError(
                "ModuleList.extend should be called with an iterable, but got "
                + type(modules).__name__
            )
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules = {}
        self.extend(modules)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __repr__(self):
        # PyTorch's: a run of equal modules is one line, "(0-2): 3 x Linear(...)".
        reprs = [repr(module) for module in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []
        for i, text in enumerate(reprs):
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = []
        for start, end, text in runs:
            line = f"({start}): {text}"
            if start != end:
                line = f"({start}-{end}): {end - start + 1} x {text}"
            lines.append(addindent(line, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered as children under their keys."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        return self._modules.pop(key)

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for key, module in items:
            self[key] = module


def _as_parameter(value):
    # As PyTorch's: a plain tensor put in a parameter container becomes a Parameter.
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _described(value, dtype_text):
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(str(n) for n in value.shape)
        return f"{kind} containing: [{dtype_text(value)} of size {size}]"
    return "Object of type: " + type(value).__name__


class ParameterList(Module):
    """A list of parameters, registered as ``0``, ``1``, ..."""

    def __init__(self, values=None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def _name(self, index):
        return str(_index(index, self._size, "ParameterList"))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)([self[i] for i in range(self._size)[index]])
        return getattr(self, self._name(index))

    def __setitem__(self, index, value):
        setattr(self, self._name(index), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(self._size))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not hasattr(values, "__iter__") or isinstance(values, Tensor):
            raise GradcliTypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(
            f"  ({i}): " + _described(value, lambda t: str(t.dtype)) for i, value in enumerate(self)
        )

    def __call__(self, *args, **kwargs):
        raise EngineError("ParameterList should not be called.")


class ParameterDict(Module):
    """A dict of parameters, registered under their keys."""

    def __init__(self, parameters=None):
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def update(self, values):
        items = values.items() if hasattr(values, "items") else values
        for key, value in items:
            self[key] = value

    def extra_repr(self):
        return "\n".join(
            f"  ({key}): " + _described(value, lambda t: t.type()) for key, value in self.items()
        )

    def __call__(self, input):
        raise EngineError("ParameterDict should not be called.")
