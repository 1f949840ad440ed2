"""The signatures of the language's functions as a program calls them: which
arguments each takes, positionally and by keyword, and how many it needs, from the
op table's Python signatures (its hidden parameters left out), the
transformations' table and a user function's parameters; ``bind`` checks a call
against one, with a did-you-mean for a keyword it does not take."""

from __future__ import annotations

import inspect

from ..engine.ops import FUNCTIONS
from ..errors import GradcliError, GradcliTypeError, Span
from ..record import Record
from . import ir
from .transformations import TRANSFORMATIONS, keywords

_HIDDEN_PARAMETERS = frozenset({"dtype", "device", "requires_grad", "generator", "memory_format"})


def suggest(name: str, candidates, cutoff: float = 0.6) -> str:
    """`` (did you mean 'sin'?)`` for the closest candidate, or the empty string."""
    import difflib

    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=cutoff)
    return f" (did you mean '{matches[0]}'?)" if matches else ""


class Signature(Record):
    """Which arguments a function takes: positionally in order, by keyword, how many needed."""

    name: str
    positional: tuple[str, ...]
    required: int
    variadic: str | None = None
    keywords: frozenset[str] = frozenset()
    aliases: tuple[tuple[str, str], ...] = ()
    #: The parameters as the user sees them: ``(input, dim=None)``.
    shown: str = "()"

    def canonical(self, keyword: str) -> str:
        """The parameter a keyword names: ``axis=`` is ``dim=`` (and the reverse), as in NumPy."""
        return dict(self.aliases).get(keyword, keyword)

    def count(self) -> str:
        n, most = self.required, len(self.positional)
        if self.variadic is not None:
            text = f"at least {n}"
        elif n == most:
            text = str(n)
        else:
            text = f"{n} to {most}"
        return text + (" argument" if text == "1" else " arguments")


_SIGNATURES: dict[str, Signature] = {}


def python_signature(name: str) -> inspect.Signature:
    """The Python signature of the language's function ``name``."""
    form = FUNCTIONS[name].language_form
    return form.schema.python_signature() if form is not None else FUNCTIONS[name].signature


def builtin_signature(name: str) -> Signature:
    """The language's signature of the engine function ``name`` (from its Python signature)."""
    sig = _SIGNATURES.get(name)
    if sig is None:
        sig = _SIGNATURES[name] = _from_python(name, python_signature(name))
    return sig


def language_parameters(signature: inspect.Signature) -> inspect.Signature:
    """``signature`` (an op's schema, in PyTorch's names) as the language takes it."""
    params = [p for p in signature.parameters.values() if p.name not in _HIDDEN_PARAMETERS]
    return signature.replace(parameters=params)


def _from_python(name: str, signature: inspect.Signature) -> Signature:
    positional, keywords, required, variadic = [], set(), 0, None
    for p in language_parameters(signature).parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            positional.append(p.name)
            if p.default is p.empty:
                required = len(positional)
        elif p.kind == p.VAR_POSITIONAL:
            variadic = p.name
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            keywords.add(p.name)
    aliases = []
    if "dim" in keywords:
        aliases.append(("axis", "dim"))
    elif "axis" in keywords:
        aliases.append(("dim", "axis"))
    if "keepdim" in keywords:
        aliases.append(("keepdims", "keepdim"))
    shown = str(language_parameters(signature))
    return Signature(
        name, tuple(positional), required, variadic, frozenset(keywords), tuple(aliases), shown
    )


def transformation_signature(name: str) -> Signature:
    """The signature of the transformation ``name`` (``integrate``, ``root``, ...)."""
    t = TRANSFORMATIONS[name]
    return Signature(name, t.positional, t.required, None, keywords(name), (), t.shown)


def user_signature(node: ir.FuncDef) -> Signature:
    shown = f"({', '.join(node.params)})"
    return Signature(
        node.name, node.params, len(node.params), None, frozenset(node.params), (), shown
    )


def bind(sig: Signature, n_args: int, keywords, span: Span) -> None:
    """Raise unless ``n_args`` positional arguments and ``keywords`` fit ``sig``."""
    if n_args > len(sig.positional) and sig.variadic is None:
        raise _arity_error(sig, n_args + len(keywords), span)
    filled = set(sig.positional[:n_args])
    for keyword in keywords:
        name = sig.canonical(keyword.name)
        if name not in sig.keywords:
            hint = suggest(keyword.name, sig.keywords | {a for a, _ in sig.aliases})
            raise GradcliTypeError(
                f"{sig.name} does not take the keyword '{keyword.name}'{hint}:"
                f" {sig.name}{sig.shown}",
                keyword.span,
            )
        if name in filled:
            raise GradcliTypeError(f"{sig.name} got two values for '{name}'", keyword.span)
        filled.add(name)
    if any(p not in filled for p in sig.positional[: sig.required]):
        raise _arity_error(sig, n_args + len(keywords), span)


def _arity_error(sig: Signature, given: int, span: Span) -> GradcliError:
    was = "was" if given == 1 else "were"
    return GradcliTypeError(
        f"wrong number of arguments: {sig.name} takes {sig.count()} but {given} {was} given:"
        f" {sig.name}{sig.shown}",
        span,
    )
