"""``torch.nn.Module``: parameters, buffers and submodules registered by attribute.

As PyTorch's: assigning a ``Parameter`` registers it, a ``Module`` registers it as
a child, ``register_buffer`` a tensor that is state but not trained; the
iterators, ``state_dict`` keys and the printed tree follow the order of
registration; ``__call__`` runs the forward pre-hooks, ``forward`` and the
forward hooks.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple

from ..engine.state import no_grad
from ..engine.tensor import Tensor
from ..errors import EngineError, GradcliTypeError
from .hooks import BackwardHook
from .parameter import Parameter

__all__ = ["Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_MIXED_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. "
    "Please use only one of them."
)


class RemovableHandle:
    """What a ``register_*_hook`` returns: ``remove()`` takes the hook away."""

    _next_id = 0

    def __init__(self, hooks: dict):
        self.hooks = hooks
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1

    def remove(self) -> None:
        self.hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _type_name(value) -> str:
    if isinstance(value, Tensor):
        return value.type()
    return f"{type(value).__module__}.{type(value).__qualname__}"


class Module:
    """Base class of every layer and model."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise GradcliTypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        set_ = object.__setattr__
        set_(self, "training", True)
        set_(self, "_parameters", {})
        set_(self, "_buffers", {})
        set_(self, "_non_persistent_buffers_set", set())
        set_(self, "_modules", {})
        set_(self, "_forward_pre_hooks", OrderedDict())
        set_(self, "_forward_hooks", OrderedDict())
        set_(self, "_backward_hooks", OrderedDict())
        set_(self, "_backward_pre_hooks", OrderedDict())
        set_(self, "_is_full_backward_hook", None)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    # ----- registration by attribute -----

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign module before Module.__init__() call")
        params, buffers, modules = self._parameters, self._buffers, self._modules
        if isinstance(value, Parameter):
            self._drop(name)
            self.register_parameter(name, value)
        elif name in params:
            if value is not None:
                raise GradcliTypeError(
                    f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = None
        elif isinstance(value, Module):
            self._drop(name)
            modules[name] = value
        elif name in modules:
            if value is not None:
                raise GradcliTypeError(
                    f"cannot assign '{_type_name(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise GradcliTypeError(
                    f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                    "(torch.Tensor or None expected)"
                )
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _drop(self, name):
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted({*super().__dir__(), *self._parameters, *self._buffers, *self._modules})

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise GradcliTypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise GradcliTypeError(
                f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise GradcliTypeError(f"{_type_name(module)} is not a Module subclass")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        module = self
        for part in target.split(".") if target else ():
            if part not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no attribute `{part}`")
            module = module._modules[part]
        return module

    def get_parameter(self, target):
        owner, _, name = target.rpartition(".")
        module = self.get_submodule(owner)
        if name not in module._parameters:
            raise AttributeError(f"{type(module).__name__} has no parameter `{name}`")
        return module._parameters[name]

    # ----- iterators -----

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, table, prefix, recurse, remove_duplicate):
        seen = set()
        owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        for owner_prefix, owner in owners if recurse else [(prefix, self)]:
            for name, value in getattr(owner, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield owner_prefix + ("." if owner_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    # ----- modes and gradients -----

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad = param.grad.detach()
                param.grad.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply_to_tensors(self, convert):
        with no_grad():
            for module in self.modules():
                for name, param in module._parameters.items():
                    if param is not None:
                        new = Parameter(convert(param), param.requires_grad)
                        module._parameters[name] = new
                for name, buffer in module._buffers.items():
                    if buffer is not None:
                        module._buffers[name] = convert(buffer)
        return self

    def to(self, *args, **kwargs):
        return self._apply_to_tensors(lambda t: t.to(*args, **kwargs))

    def double(self):
        return self._apply_to_tensors(lambda t: t.double() if t.is_floating_point() else t)

    def float(self):
        return self._apply_to_tensors(lambda t: t.float() if t.is_floating_point() else t)

    def cpu(self):
        return self

    def cuda(self, device=None):
        return self._apply_to_tensors(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply_to_tensors(lambda t: t.type(dst_type))

    # ----- calling -----

    def _hook(self, table, hook, prepend=False):
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return self._hook(self._forward_pre_hooks, (hook, with_kwargs), prepend)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        return self._hook(self._forward_hooks, (hook, with_kwargs), prepend)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        return self._hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        if self._is_full_backward_hook is False:
            raise EngineError(_MIXED_HOOKS)
        object.__setattr__(self, "_is_full_backward_hook", True)
        return self._hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook):
        """The legacy hook: on the node of the output's last op, its gradients as they are."""
        if self._is_full_backward_hook is True:
            raise EngineError(_MIXED_HOOKS)
        object.__setattr__(self, "_is_full_backward_hook", False)
        return self._hook(self._backward_hooks, hook)

    def __call__(self, *args, **kwargs):
        full = self._is_full_backward_hook is True and self._backward_hooks
        bw_hook = None
        for hook, with_kwargs in list(self._forward_pre_hooks.values()):
            if with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if full or self._backward_pre_hooks:
            hooks = list(self._backward_hooks.values()) if full else []
            bw_hook = BackwardHook(self, hooks, list(self._backward_pre_hooks.values()))
            args = bw_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for hook, with_kwargs in list(self._forward_hooks.values()):
            result = hook(self, args, kwargs, output) if with_kwargs else hook(self, args, output)
            if result is not None:
                output = result
        if bw_hook is not None:
            output = bw_hook.setup_output_hook(output)
        if self._is_full_backward_hook is False and self._backward_hooks:
            self._legacy_backward_hooks(output)
        return output

    def _legacy_backward_hooks(self, output):
        while not isinstance(output, Tensor):
            output = next(v for v in output.values() if isinstance(v, Tensor)) if isinstance(
                output, dict) else output[0]  # fmt: skip
        node = output.grad_fn
        if node is not None:
            for hook in self._backward_hooks.values():
                node.register_hook(
                    lambda grad_in, grad_out, hook=hook: hook(self, grad_in, grad_out)
                )

    # ----- state -----

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        destination = OrderedDict() if destination is None else destination
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=f"{prefix}{name}.",
                                  keep_vars=keep_vars)  # fmt: skip
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
            elif tuple(value.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}."
                )
            else:
                with no_grad():
                    target.copy_(value)
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise EngineError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    # ----- printing -----

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append(f"({name}): " + addindent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
