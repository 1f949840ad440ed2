"""An op's declared parameters: ``Schema("(input: Tensor, dim: int = 0)")``, and the binding of
a call's arguments to them in PyTorch's names and order (see ``optable`` for the types)."""

from __future__ import annotations

import inspect

from ..errors import GradcliTypeError, NotImplementedByGradcli

REQUIRED = object()  # a parameter's default when it has none


class Param:
    """One parameter of a schema: name, type (as written), default, how it is passed."""

    __slots__ = ("name", "type", "default", "keyword_only", "variadic", "choices")

    def __init__(self, name, type_, default, keyword_only, variadic):
        self.name = name
        # Text of a few spellings is declared as them: reduction: 'mean'|'sum'|'none'.
        self.choices = None
        if type_[:1] in "'\"":
            self.choices = tuple(_literal(c.strip()) for c in type_.split("|"))
            type_ = "str"
        self.type = type_
        self.default = default
        self.keyword_only = keyword_only
        self.variadic = variadic

    @property
    def required(self) -> bool:
        return self.default is REQUIRED and not self.variadic

    @property
    def is_input(self) -> bool:
        return "Tensor" in self.type

    def __str__(self):
        if self.variadic:
            return "*" + self.name
        return self.name if self.default is REQUIRED else f"{self.name}={self.default!r}"


_LITERALS = {"None": None, "True": True, "False": False, "inf": float("inf")}


def _literal(text):
    """A default as written in a schema: None, True, False, a number, inf or a 'string'."""
    if text in _LITERALS:
        return _LITERALS[text]
    if text[:1] in "'\"":
        return text[1:-1]
    try:
        return int(text)
    except ValueError:
        return float(text)


class Schema:
    """The declared parameters of an op, parsed from ``"(input: Tensor, dim: int = 0)"``."""

    __slots__ = ("params", "names", "n_inputs")

    def __init__(self, text):
        params, keyword_only = [], False
        for part in filter(None, (p.strip() for p in text.strip()[1:-1].split(","))):
            if part == "*":
                keyword_only = True
                continue
            declared, _, default = part.partition("=")
            name, _, type_ = declared.partition(":")
            name = name.strip()
            variadic = name.startswith("*")
            params.append(
                Param(
                    name.lstrip("*"),
                    type_.strip() or "Tensor",
                    _literal(default.strip()) if default else REQUIRED,
                    keyword_only,
                    variadic,
                )
            )
            keyword_only = keyword_only or variadic
        self.params = tuple(params)
        self.names = tuple(p.name for p in params)
        n = 0
        while n < len(params) and params[n].is_input and not params[n].variadic:
            n += 1
        self.n_inputs = n

    def __str__(self):
        parts, starred = [], False
        for p in self.params:
            if p.keyword_only and not starred and not p.variadic:
                parts.append("*")
            starred = starred or p.keyword_only or p.variadic
            parts.append(str(p))
        return "(" + ", ".join(parts) + ")"

    def python_signature(self):
        """The parameters as an ``inspect.Signature``, in PyTorch's names."""
        P = inspect.Parameter
        params = []
        for p in self.params:
            kind = P.VAR_POSITIONAL if p.variadic else P.KEYWORD_ONLY if p.keyword_only else None
            kind = kind or P.POSITIONAL_OR_KEYWORD
            default = P.empty if p.default is REQUIRED or p.variadic else p.default
            params.append(P(p.name, kind, default=default))
        return inspect.Signature(params)

    def bind(self, name, args, kwargs):
        """``args`` and ``kwargs`` as one positional tuple in the schema's order
        (defaults filled in), or an error naming the parameters."""
        params = self.params
        if len(args) > len(params) or any(p.keyword_only for p in params[: len(args)]):
            positional = sum(not p.keyword_only for p in params)
            raise GradcliTypeError(
                f"{name}() takes {positional} positional arguments but {len(args)} were given; "
                f"its parameters: {self}"
            )
        values = list(args) + [REQUIRED] * (len(params) - len(args))
        for key, value in kwargs.items():
            key = ALIASES.get(key, key) if key not in self.names else key
            if key == "out" and key not in self.names:
                raise NotImplementedByGradcli(
                    f"{name}(): out= is not supported by gradcli: use the result it returns "
                    f"(y = {name}(...)), or y.copy_(...) to write it into a tensor"
                )
            if key not in self.names:
                raise GradcliTypeError(
                    f"{name}() got an unexpected keyword argument '{key}'; its parameters: {self}"
                )
            i = self.names.index(key)
            if values[i] is not REQUIRED:
                raise GradcliTypeError(f"{name}() got multiple values for argument '{key}'")
            values[i] = value
        for i, p in enumerate(params):
            if values[i] is REQUIRED:
                if p.default is REQUIRED:
                    raise GradcliTypeError(
                        f"{name}() missing required argument '{p.name}'; its parameters: {self}"
                    )
                values[i] = p.default
        return tuple(values)

    def by_name(self, args, kwargs, rest=None) -> dict:
        """``args`` and ``kwargs`` by parameter name, as the hooks of an op read them
        (kink checks, batching rules): a variadic parameter as a tuple, defaults filled
        in, a missing required one absent (the op's own call reports it), positional
        arguments beyond the schema under the key ``rest``."""
        found = {}
        left = list(args)
        for p in self.params:
            if p.variadic:
                found[p.name] = tuple(left)
                left = []
            elif left and not p.keyword_only:
                found[p.name] = left.pop(0)
        for key, value in kwargs.items():
            found[ALIASES.get(key, key) if key not in self.names else key] = value
        for p in self.params:
            if p.name not in found and p.default is not REQUIRED and not p.variadic:
                found[p.name] = p.default
        if left:
            found[rest] = tuple(left)
        return found


# NumPy's spellings of PyTorch's parameters, accepted as PyTorch accepts them (sum(x, axis=0)).
ALIASES = {"axis": "dim", "keepdims": "keepdim"}
