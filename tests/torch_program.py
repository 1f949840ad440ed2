"""A gradcli program run on PyTorch: the oracle of the differential fuzz tests.

``TorchProgram`` walks a program's IR (``gradcli.language.ir``) and computes each
node with PyTorch, with the meanings the language gives its constructs (README,
"Language"): number literals stay Python numbers until an operator needs a
tensor, a list literal stacks its entries, comparisons are 1 and 0 in float64
without a gradient, ``max(a, b)`` is elementwise and ``max(x, dim=0)`` a reduction,
``a // b`` has no gradient, a call's first argument is a tensor, and every
result that is not floating point becomes float64 (except argmax and argmin,
which stay integers so that they can index). ``const`` values are detached.

Nothing is evaluated from text: the IR is walked node by node and each node is
one PyTorch call. The language's own evaluator is not used, so the two
implementations are independent.
"""

from __future__ import annotations

import math
import operator

import torch
import torch.nn.functional as F  # noqa: N812  (PyTorch's own spelling)

from gradcli.engine.ops import OPERATORS
from gradcli.language import ir

F64 = torch.float64

# Python's operator for each of the language's (from the entry's dunder, on torch tensors);
# x // y is cut from the graph, as the language cuts it.
_PYTHON = {n: getattr(operator, e.operators[0]) for n, e in OPERATORS.items()}
_BINARY = {n: f for n, f in _PYTHON.items() if OPERATORS[n].precedence != "compare"}
_BINARY["floor_divide"] = lambda a, b: _floor_divide(a, b)
_COMPARE = {n: f for n, f in _PYTHON.items() if OPERATORS[n].precedence == "compare"}


def _floor_divide(a, b):
    # Piecewise constant: the language cuts it from the graph (its derivative is 0).
    with torch.no_grad():
        return torch.floor_divide(a, b)


_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "True": 1, "False": 0}

# The parameters of each function, in PyTorch's (and gradcli's) positional order.
_INTEGERS = {"dim", "axis", "dim0", "dim1", "start_dim", "end_dim", "decimals", "steps", "n", "m"}
_INTEGERS |= {"ignore_index", "kernel_size", "stride", "padding", "dilation", "groups"}
_INTEGERS |= {"normalized_shape", "divisor_override", "output_size"}
_SHAPES = {"size", "shape", "sizes", "dims"}
_BOOLS = {"keepdim", "keepdims", "unbiased", "descending", "stable", "left", "ceil_mode"}
_BOOLS |= {"count_include_pad", "return_indices"}
_NUMBERS = {"min", "max", "beta", "threshold", "fill_value", "start", "end", "step", "correction"}
_NUMBERS |= {"negative_slope", "alpha", "label_smoothing", "eps"}
_CONSTRUCTORS = {"zeros", "ones", "full", "eye", "arange", "linspace", "rand", "randn"}
_SEQUENCES = {"stack", "cat"}
_INDEX_RESULTS = {"argmax", "argmin"}


def as_tensor(value):
    if isinstance(value, torch.Tensor):
        return value
    return torch.tensor(float(value), dtype=F64)


def _all_dims(x):
    return tuple(range(x.ndim))


def _reduction(function):
    """sum, mean, amax ...: ``dim=None`` reduces every dimension."""

    def call(x, dim=None, keepdim=False):
        if dim is None:
            return function(x, dim=_all_dims(x), keepdim=keepdim) if keepdim else function(x)
        return function(x, dim=dim, keepdim=keepdim)

    return call


def _prod(x, dim=None, keepdim=False):
    return torch.prod(x) if dim is None else torch.prod(x, dim=dim, keepdim=keepdim)


def _logsumexp(x, dim=None, keepdim=False):
    return torch.logsumexp(x, _all_dims(x) if dim is None else dim, keepdim=keepdim)


def _spread(function):
    """var and std, with ``unbiased`` as the correction it stands for."""

    def call(x, dim=None, unbiased=None, keepdim=False, correction=None):
        if unbiased is not None:
            if correction is not None:
                raise TypeError("PyTorch takes unbiased or correction, not both")
            correction = 1 if unbiased else 0
        return function(x, dim=dim, correction=correction, keepdim=keepdim)

    return call


def _extreme(function, elementwise):
    """max and min as a calculator means them: max(a, b) elementwise, max(x) of all
    entries, max(x, dim=0) along a dim (the values)."""

    def call(x, other=None, *, dim=None, keepdim=None):
        if other is not None:
            if dim is not None or keepdim is not None:
                raise TypeError("max(a, b) is elementwise and takes no dim")
            return elementwise(x, as_tensor(other))
        if dim is None:
            return function(x) if keepdim is None else function(x, keepdim=keepdim)
        return function(x, dim, bool(keepdim)).values

    return call


def _shaped(method):
    def call(x, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            shape = shape[0]
        return method(x, shape)

    return call


def _sized(function):
    def call(*size):
        if len(size) == 1 and isinstance(size[0], tuple):
            size = size[0]
        return function(size, dtype=F64)

    return call


def _arange(start, end=None, step=1):
    integers = all(isinstance(v, int) for v in (start, end, step) if v is not None)
    dtype = torch.int64 if integers else F64
    if end is None:
        return torch.arange(start, dtype=dtype)
    return torch.arange(start, end, step, dtype=dtype)


def _full(size, fill_value):
    size = (size,) if isinstance(size, int) else tuple(size)
    return torch.full(size, fill_value, dtype=None if isinstance(fill_value, int) else F64)


def _squeeze(x, dim=None):
    return torch.squeeze(x) if dim is None else torch.squeeze(x, dim)


def _where(condition, x, y):
    condition = as_tensor(condition)
    if condition.dtype != torch.bool:
        condition = condition != 0
    return torch.where(condition, as_tensor(x), as_tensor(y))


def _gamma(x):
    # PyTorch has no gamma: its sign, times exp(lgamma) (poles and overflow are not drawn).
    sign = torch.where(x > 0, 1.0, (-1.0) ** torch.ceil(-x))
    return sign * torch.exp(torch.lgamma(x))


def _log(x, base=None):
    if base is None:
        return torch.log(x)
    return torch.log(x) / (torch.log(base) if isinstance(base, torch.Tensor) else math.log(base))


# What each language function is in PyTorch, where it is not torch.<name> as it stands.
TORCH = {
    "ln": torch.log,
    "log": _log,
    "cbrt": lambda x: torch.sign(x) * torch.abs(x) ** (1 / 3),
    "sec": lambda x: 1 / torch.cos(x),
    "csc": lambda x: 1 / torch.sin(x),
    "cot": lambda x: 1 / torch.tan(x),
    "gamma": _gamma,
    "factorial": lambda x: _gamma(x + 1),
    "sort": lambda *args, **kwargs: torch.sort(*args, **kwargs).values,
    "solve": torch.linalg.solve,
    "eigvalsh": torch.linalg.eigvalsh,
    "softmax": lambda x, dim=-1: torch.softmax(x, dim),
    "log_softmax": lambda x, dim=-1: torch.log_softmax(x, dim),
    "gelu": F.gelu,
    # The normal CDF family is torch.special's alone.
    "ndtr": torch.special.ndtr,
    "log_ndtr": torch.special.log_ndtr,
    "ndtri": torch.special.ndtri,
    "silu": F.silu,
    "leaky_relu": F.leaky_relu,
    "elu": F.elu,
    "softsign": F.softsign,
    "mse_loss": F.mse_loss,
    "cross_entropy": F.cross_entropy,
    "binary_cross_entropy": F.binary_cross_entropy,
    "binary_cross_entropy_with_logits": F.binary_cross_entropy_with_logits,
    "softplus": F.softplus,
    "linear": F.linear,
    "conv1d": F.conv1d,
    "conv2d": F.conv2d,
    "max_pool2d": F.max_pool2d,
    "avg_pool2d": F.avg_pool2d,
    "layer_norm": F.layer_norm,
    "adaptive_avg_pool2d": F.adaptive_avg_pool2d,
    "adaptive_max_pool2d": F.adaptive_max_pool2d,
    "round": lambda x, decimals=0: torch.round(x, decimals=decimals),
    "sum": _reduction(torch.sum),
    "mean": _reduction(torch.mean),
    "amax": _reduction(torch.amax),
    "amin": _reduction(torch.amin),
    "prod": _prod,
    "logsumexp": _logsumexp,
    "var": _spread(torch.var),
    "std": _spread(torch.std),
    "max": _extreme(torch.max, torch.maximum),
    "min": _extreme(torch.min, torch.minimum),
    "reshape": _shaped(torch.reshape),
    "view": _shaped(lambda x, shape: x.view(shape)),
    "permute": _shaped(lambda x, dims: x.permute(dims)),
    "expand": _shaped(lambda x, sizes: x.expand(sizes)),
    "flip": _shaped(torch.flip),
    "squeeze": _squeeze,
    "zeros": _sized(torch.zeros),
    "ones": _sized(torch.ones),
    "rand": _sized(torch.rand),
    "randn": _sized(torch.randn),
    "full": _full,
    "eye": lambda n, m=None: torch.eye(n, n if m is None else m, dtype=F64),
    "arange": _arange,
    "linspace": lambda start, end, steps: torch.linspace(start, end, steps, dtype=F64),
    "where": _where,
    "norm": lambda x, p=2, dim=None, keepdim=False: torch.norm(x, p, dim, keepdim),
    "len": len,
}


def _grad(f, x):
    """``grad(F, x)``: torch.autograd.grad(create_graph=True) of a one-entry F, zeros where
    F does not reach x (x: an input, a leaf that requires grad)."""
    if f.numel() != 1:
        raise ValueError(f"grad needs a scalar, not a tensor of shape {tuple(f.shape)}")
    if not x.is_floating_point():
        # As x.requires_grad_() says of integers (argmax's indices) in PyTorch itself.
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if not f.requires_grad:
        return torch.zeros_like(x)
    (g,) = torch.autograd.grad(
        f.reshape(()), x, create_graph=True, allow_unused=True, materialize_grads=True
    )
    return g


def _jacobian(f, x):
    rows = [_grad(entry, x) for entry in f.reshape(-1)]
    if not rows:
        return torch.zeros((*f.shape, *x.shape), dtype=x.dtype)
    return torch.stack(rows).reshape((*f.shape, *x.shape))


def _hessian(f, x):
    return _jacobian(_grad(f, x), x)


#: The language's derivatives inside programs, as PyTorch's eager autograd.grad.
_DERIVATIVES = {"grad": _grad, "jacobian": _jacobian, "hessian": _hessian}


class TorchProgram:
    """Run ``program`` (an ``ir.Program``) on PyTorch with ``inputs`` (name -> tensor)
    bound to its inputs; ``signatures`` maps a function's name to its parameter names."""

    def __init__(self, program: ir.Program, signatures):
        self.program = program
        self.signatures = signatures

    def run(self, inputs: dict):
        self.env = {}
        self.functions = {}
        self.locals = {}
        # The names derivatives are taken with respect to: each value they are given is a
        # tensor of its own, as gradcli's evaluator binds them (language.derivatives).
        self.tracked = {
            n.args[1].id
            for n in ir.walk(self.program)
            if isinstance(n, ir.Call) and n.func in _DERIVATIVES
        }
        self.env.update({name: self.own(name, value) for name, value in inputs.items()})
        defined = set()
        result = None
        # In float64, as gradcli runs the program: tanh of an integer index is a float64.
        before = torch.get_default_dtype()
        torch.set_default_dtype(F64)
        try:
            for statement in self.program.statements:
                result = self.statement(statement, inputs, defined)
        finally:
            torch.set_default_dtype(before)
        return as_tensor(result)

    # ----- statements -----

    def statement(self, node, inputs, defined):
        if isinstance(node, ir.Assign):
            if node.name in inputs and node.name not in defined:
                value = inputs[node.name]  # a bound input replaces the program's value
            else:
                value = as_tensor(self.evaluate(node.value))
            defined.add(node.name)
            self.env[node.name] = value = self.own(node.name, value)
            return value
        if isinstance(node, ir.ConstDecl):
            with torch.no_grad():
                value = as_tensor(self.evaluate(node.value)).detach()
            self.env[node.name] = value
            return value
        if isinstance(node, ir.IndexAssign):
            target = as_tensor(self.name(node.name)).clone()
            key = self.subscripts(node.subscripts)
            value = self.evaluate(node.value)
            if isinstance(value, torch.Tensor):
                selected = target[key].shape
                while value.ndim > len(selected) and value.shape[0] == 1:
                    value = value[0]  # leading axes of length 1 go, as the language says
            target[key] = value
            self.env[node.name] = target = self.own(node.name, target)
            return target
        if isinstance(node, ir.FuncDef):
            self.functions[node.name] = node
            return None
        if isinstance(node, (ir.Break, ir.Continue)):
            raise _Jump(node)
        if isinstance(node, ir.If):  # Python's if, on PyTorch's bool of the condition
            for inner in node.body if bool(self.evaluate(node.test)) else node.orelse:
                self.statement(inner, {}, defined)
            return None
        if isinstance(node, ir.For):
            for i in range(*(_integer(self.evaluate(a)) for a in node.args)):
                self.env[node.var] = i
                if self.block(node.body, defined):
                    break
            return None
        if isinstance(node, ir.While):
            while bool(self.evaluate(node.test)):
                if self.block(node.body, defined):
                    break
            return None
        return self.evaluate(node)

    def own(self, name, value):
        """``value``, or for a tracked name a tensor of its own that requires grad: its
        clone, or a new leaf when it requires none (integers are left as they are)."""
        if name not in self.tracked or not isinstance(value, torch.Tensor):
            return value
        if not value.is_floating_point():
            return value
        return value.clone() if value.requires_grad else value.detach().requires_grad_()

    def block(self, statements, defined) -> bool:
        """Run a loop's body; whether a break left it (an assignment there is no input)."""
        try:
            for inner in statements:
                self.statement(inner, {}, defined)
        except _Jump as jump:
            return isinstance(jump.node, ir.Break)
        return False

    def IfExp(self, node):
        return self.evaluate(node.body if bool(self.evaluate(node.test)) else node.orelse)

    # ----- expressions -----

    def evaluate(self, node):
        return getattr(self, type(node).__name__)(node)

    def name(self, name):
        for scope in (self.locals, self.env, _CONSTANTS):
            if name in scope:
                return scope[name]
        raise NameError(name)

    def Num(self, node):
        v = node.value
        if node.float_zero:  # 0.0, which negation makes -0.0, as Python reads the text
            return 0.0
        return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)

    def Name(self, node):
        return self.name(node.id)

    def Str(self, node):
        return node.value

    def UnaryOp(self, node):
        value = self.evaluate(node.operand)
        return -value if node.op == "neg" else +value

    def BinOp(self, node):
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        if not isinstance(left, torch.Tensor) and not isinstance(right, torch.Tensor):
            left = as_tensor(left)
        return _BINARY[node.op](left, right)

    def Chain(self, node):
        value = self.evaluate(node.first)
        for op, operand in zip(node.ops, node.rest):
            right = self.evaluate(operand)
            tensors = isinstance(right, torch.Tensor) and op not in ("remainder", "floor_divide")
            if not isinstance(value, torch.Tensor) and not tensors:
                value = as_tensor(value)  # 2 % y: torch.remainder(tensor(2.), y)
            value = _BINARY[op](value, right)
        return value

    def Compare(self, node):
        left = as_tensor(self.evaluate(node.first))
        result = None
        with torch.no_grad():
            for op, operand in zip(node.ops, node.rest):
                right = self.evaluate(operand)
                holds = _COMPARE[op](left, right)
                result = holds if result is None else result & holds
                left = as_tensor(right)
        return result.to(F64)

    def Attr(self, node):
        assert node.name == "T", node.name
        return as_tensor(self.evaluate(node.obj)).T

    def Index(self, node):
        return as_tensor(self.evaluate(node.obj))[self.subscripts(node.subscripts)]

    def ListLit(self, node):
        items = [self.evaluate(item) for item in node.items]
        shapes = {
            tuple(torch.as_tensor(i).shape) if isinstance(i, torch.Tensor) else () for i in items
        }
        if len(shapes) > 1:
            raise ValueError("ragged list")
        if not any(isinstance(i, torch.Tensor) for i in items):
            return torch.tensor([float(i) for i in items], dtype=F64)
        return torch.stack([as_tensor(i) for i in items])

    def Numbers(self, node):
        return torch.tensor([float(v) for v in node.values], dtype=F64)

    def subscripts(self, subscripts):
        key = tuple(self.subscript(s) for s in subscripts)
        return key[0] if len(key) == 1 else key

    def subscript(self, node):
        if isinstance(node, ir.Slice):
            parts = (node.start, node.stop, node.step)
            return slice(*(None if p is None else _integer(self.evaluate(p)) for p in parts))
        if isinstance(node, ir.Compare):
            return self.evaluate(node) != 0
        value = self.evaluate(node)
        if isinstance(value, torch.Tensor) and value.ndim > 0:
            return value if value.dtype in (torch.bool, torch.int64) else value.long()
        return _integer(value)

    # ----- calls -----

    def Call(self, node):
        user = self.functions.get(node.func)
        if user is not None:
            values = dict(zip(user.params, (self.evaluate(a) for a in node.args)))
            values.update((k.name, self.evaluate(k.value)) for k in node.keywords)
            values = {name: self.own(name, value) for name, value in values.items()}
            saved, self.locals = self.locals, values
            try:
                return self.evaluate(user.body)
            finally:
                self.locals = saved
        if node.func in _DERIVATIVES:
            f, x = (self.evaluate(a) for a in node.args)
            return _DERIVATIVES[node.func](as_tensor(f), x)
        return self.builtin(node.func, None, node.args, node.keywords)

    def Method(self, node):
        return self.builtin(node.name, self.evaluate(node.obj), node.args, node.keywords)

    def builtin(self, name, receiver, arg_nodes, keyword_nodes):
        params = self.signatures[name]
        nodes = [None, *arg_nodes] if receiver is not None else list(arg_nodes)
        args, kwargs = [], {}
        for i, arg in enumerate(nodes):
            param = params[min(i, len(params) - 1)]
            if param in ("arrays", "tensors"):
                value = [as_tensor(self.evaluate(item)) for item in arg.items]
            else:
                value = receiver if arg is None else self.evaluate(arg)
            if (
                i == 0
                and name not in _CONSTRUCTORS
                and param not in ("arrays", "tensors", "equation")
            ):
                value = as_tensor(value)
            args.append(_adapt(param, value))
        for keyword in keyword_nodes:
            param = {"axis": "dim", "keepdims": "keepdim"}.get(keyword.name, keyword.name)
            kwargs[param] = _adapt(param, self.evaluate(keyword.value))
        function = TORCH.get(name) or getattr(torch, name)
        result = function(*args, **kwargs)
        if isinstance(result, tuple):
            result = result[0]
        result = as_tensor(result)
        if name not in _INDEX_RESULTS and not (result.is_floating_point() or result.is_complex()):
            result = result.to(F64)
        return result


class _Jump(Exception):
    """break or continue (``node``), to the innermost loop."""

    def __init__(self, node):
        super().__init__()
        self.node = node


def _integer(value) -> int:
    if isinstance(value, torch.Tensor):
        value = value.item()
    if float(value) != int(value):
        raise TypeError(f"not an integer: {value}")
    return int(value)


def _adapt(param, value):
    if isinstance(value, str):  # padding="same"
        return value
    if param in _INTEGERS or param in _SHAPES:
        if isinstance(value, torch.Tensor) and value.ndim > 0:
            return tuple(_integer(v) for v in value.reshape(-1))
        return _integer(value)
    if param in _BOOLS:
        return bool(as_tensor(value).item())
    if param in ("min", "max") and isinstance(value, torch.Tensor) and value.requires_grad:
        return value  # clamp(x, min=y): a tensor bound is differentiated
    if param in _NUMBERS and isinstance(value, torch.Tensor) and value.ndim == 0:
        return value.detach().item()
    return value
