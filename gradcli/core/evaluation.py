"""One evaluation: a compiled program with its inputs bound, its dtype and its seed.

What every command of ``api`` starts from. An evaluation owns its state: it passes
its dtype and a random generator of its seed to the evaluator and sets nothing
process-wide, so evaluations in several threads never see each other's.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping, Sequence
from types import MappingProxyType

import numpy as np

import gradcli
from gradcli.engine.ops import FUNCTIONS
from gradcli.language import compile_source
from gradcli.language.check import BUILTIN_CONSTANTS

from ..engine import limits
from ..engine.backward import grad as autograd_grad
from ..engine.dtypes import complex_of
from ..engine.generator import seeded
from ..engine.limits import DEFAULT_MAX_ELEMENTS
from ..engine.state import default_dtype_override
from ..errors import GradcliError, Span
from ..language.derivatives import FORMS
from .complex_inputs import refuse_complex
from .large_derivatives import large_derivative_note
from .option_names import OPTION_NAMES
from .reach import left_out_of, note
from .result import SECTIONS, Diagnostic, GraphResult, Result, finite, leaves
from .values import parse_value

DTYPES = ("float64", "float32")
#: How many numbers a derivative over every input (no --wrt) may hold before a note says
#: which input makes it that large and what --wrt would spare (it is computed anyway).


@contextlib.contextmanager
def evaluation(
    source, bindings, wrt, dtype, seed, filename, max_elements=DEFAULT_MAX_ELEMENTS, announce=None,
    command=None, complex_inputs=False,
):  # fmt: skip
    """The Evaluation of ``source``, in its settings, for ``command`` (``complex_inputs``:
    it takes complex inputs, else they are refused, naming it)."""
    with settings(dtype, seed, max_elements):
        s = Evaluation(source, dict(bindings or {}), wrt, dtype, seed, filename)
        refuse_complex(s.values, command, complex_inputs)
        s.announce = announce
        yield s


@contextlib.contextmanager
def settings(dtype, seed, max_elements=DEFAULT_MAX_ELEMENTS):
    """What an evaluation runs in: its dtype, nan and inf as values, its element limit."""
    if dtype not in DTYPES:
        raise GradcliError(f"unknown dtype {dtype!r}: use float64 or float32")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise GradcliError(f"the seed must be a non-negative integer, not {seed!r}")
    if isinstance(max_elements, bool) or not isinstance(max_elements, int) or max_elements < 1:
        raise GradcliError(f"max_elements must be a positive integer, not {max_elements!r}")
    # The evaluation's dtype holds in this thread only, for what the engine makes of
    # Python numbers; nothing global changes, so evaluations in other threads compute
    # in theirs. nan and inf are results here, reported once as warnings.
    quiet = np.errstate(all="ignore")
    with default_dtype_override(dtype), quiet, limits.max_elements(max_elements):
        yield


class Evaluation:
    """A compiled program with every input bound: what each command starts from."""

    def __init__(self, source, bindings, wrt, dtype, seed, filename, varying=None, program=None):
        """``varying``: the inputs that take a value at each of many points, as
        ``{name: (shape at a point, dtype)}``, bound to nothing here; ``program``:
        ``source`` compiled already, with the built-in constants bound or varying as
        inputs."""
        self.source = source
        self.filename = filename
        self.seed = seed
        self.gdtype = getattr(gradcli, dtype)
        self.dtype = np.dtype(dtype)
        # The inputs given a value at each of many points: their shape and dtype at one,
        # never a value standing in for them.
        self.varying = {
            name: (tuple(shape), self._cast(np.empty(0, kind), f"--{name}").dtype)
            for name, (shape, kind) in (varying or {}).items()
        }
        # --e 3 binds an input named e (a charge), for this run, rather than failing.
        named = (*bindings, *self.varying)
        bound_constants = [name for name in named if name in BUILTIN_CONSTANTS]
        if program is None:
            program = compile_source(source, filename=filename, inputs=bound_constants)
        self.program = program
        self.binding_notes = tuple(
            Diagnostic(
                "note",
                f"--{name} makes {name} an input of this run, not the constant"
                f" {name} = {BUILTIN_CONSTANTS[name]}",
            )
            for name in bound_constants
            if name in self.program.inputs
        )
        self.inputs = tuple(self.program.inputs)
        self.watch: list = []
        self.notes: list = []
        #: Said as soon as known (``announce``, before a long computation), and kept.
        self.early_notes: list[Diagnostic] = []
        self.announce = None
        self.default_wrt = wrt is None
        self.values = self._bind(bindings)
        #: The inputs left out of the default ``wrt``, each with why (``reach``).
        self.left_out: dict[str, str] = {}
        if wrt is None:
            # Every input that can be differentiated: a boolean one (a mask) cannot, nor
            # one used only where no derivative exists (class indices, a size).
            floats = tuple(n for n in self.inputs if self.dtype_of(n).kind in "fc")
            self.left_out = left_out_of(self, floats)
            self.wrt = tuple(n for n in floats if n not in self.left_out)

            self.binding_notes += tuple(
                Diagnostic("note", note(name, why)) for name, why in self.left_out.items()
            )
        else:
            self.wrt = self.differentiable(self.check_names(dict.fromkeys(wrt), "--wrt {}"))

    # ----- binding -----
    def _bind(self, bindings) -> dict[str, np.ndarray]:
        """Every input's value: bound, else the program's; also sets ``self.constants``,
        the consts given a value (they are never differentiated)."""
        self.constants = {
            name: self.value_of(f"--{name}", bindings.pop(name))
            for name in self.program.constants
            if name in bindings
        }
        defaults = self.program.defaults(
            generator=seeded(self.seed), dtype=self.dtype, constants=self.constants
        )
        varying = self.varying
        missing = [n for n in self.inputs if n not in bindings and n not in {**defaults, **varying}]
        named = [*bindings, *(n for n in varying if n not in self.program.constants)]
        self._refuse_unbound(missing, named)
        return {
            name: self.value_of(f"--{name}", bindings[name])
            if name in bindings
            else self._cast(np.asarray(defaults[name]))
            for name in self.inputs
            if name not in varying
        }

    def _refuse_unbound(self, missing, named) -> None:
        """The error for a binding that names no input, or for inputs left without a value."""
        stray = [name for name in named if name not in self.inputs]
        close = [(name, close_to(name, stray)) for name in missing]
        close = [(name, found[0]) for name, found in close if found]
        if close:
            # A free name and a binding close to it: a typo on one side or the other.
            name, bound = close[0]
            raise GradcliError(
                f"no value for {name}: --{bound} binds no input (did you mean --{name}?)",
                self.program.analysis.free_spans.get(name),
                self.program.source,
            )
        self.check_names(named, "--{}")
        if not missing:
            return
        module_error = self.program.analysis.module_errors.get(missing[0])
        if module_error is not None:  # torch.sum(x) without a value for torch
            raise module_error.with_source(self.program.source)
        if missing[0] in gradcli.ops.FUNCTIONS or missing[0] in FORMS:
            # exp -x: a function's name read as an input, which check_free explains.
            self.program.check_free([n for n in self.inputs if n != missing[0]])
        listed = ", ".join(missing)
        hint = " ".join(
            f"--var {n}=VALUE" if n in OPTION_NAMES else f"--{n} VALUE" for n in missing
        )
        raise GradcliError(
            f"no value for {listed}: bind {'it' if len(missing) == 1 else 'them'} with {hint}",
            self.program.analysis.free_spans.get(missing[0]),
            self.program.source,
        )

    def check_names(self, names, option: str) -> tuple[str, ...]:
        """``names`` in order, each an input of the program, else a did-you-mean error."""
        for name in names:
            if name in self.inputs:
                continue
            if name in tuple(self.program.constants):
                raise GradcliError(
                    f"{option.format(name)}: {name} is declared const: it is never differentiated"
                )
            raise UnknownInput(option.format(name), name, self.inputs)
        return tuple(names)

    def differentiable(self, names) -> tuple[str, ...]:
        """``names``, each an input of floating point, else an error."""
        for name in names:
            if self.dtype_of(name).kind not in "fc":
                raise GradcliError(f"cannot differentiate with respect to {name}: it is boolean")
        return tuple(names)

    def value_of(self, name: str, value) -> np.ndarray:
        """A binding's array, in the session's dtype."""
        if isinstance(value, str):
            value = parse_value(value, name=name, seed=self.seed)
        return self._cast(np.asarray(value), name)

    def _cast(self, array: np.ndarray, name: str | None = None) -> np.ndarray:
        if array.dtype.kind in "iuf":
            return array.astype(self.dtype)
        if array.dtype.kind == "c":  # complex128 beside float64, complex64 beside float32
            return array.astype(complex_of(self.dtype))
        if array.dtype.kind == "b":
            return array
        raise GradcliError(f"{name or 'a value'} is not numeric (dtype {array.dtype})")

    def directions(self, tangents, unit: bool = False) -> dict[str, np.ndarray]:
        """The tangent of each input a jvp moves, by name, each of its input's shape
        (the key None names the program's only input); sets ``wrt`` to those inputs.
        ``unit``: the tangents divided by their norm, all of them together."""
        tangents = dict(tangents or {})
        if not tangents:
            raise GradcliError("jvp needs a direction: --tangent NAME=V for each input to move")
        if None in tangents:
            # --tangent V without a name: the program's only input.
            if len(self.inputs) != 1:
                count = f"{len(self.inputs)} inputs" if self.inputs else "no inputs"
                raise GradcliError(
                    f"--tangent V names no input, but the program has {count}: "
                    "write --tangent NAME=V"
                )
            tangents[self.inputs[0]] = tangents.pop(None)
        names = self.differentiable(self.check_names(tangents, "--tangent {}"))
        self.wrt = names
        directions = {}
        for name in names:
            t = self.value_of(f"the tangent of {name}", tangents[name])
            if t.shape != self.shape(name):
                raise GradcliError(
                    f"the tangent of {name} has shape {t.shape}, but {name} has shape "
                    f"{self.shape(name)}: they must be the same"
                )
            directions[name] = t
        if unit:
            norm = float(
                np.sqrt(sum(np.sum(np.abs(t, dtype=np.float64) ** 2) for t in directions.values()))
            )
            if not norm > 0 or not np.isfinite(norm):
                raise GradcliError(
                    f"jvp --unit: the tangent has norm {norm:g}, so it has no direction: "
                    "give a tangent that is finite and not zero"
                )
            directions = {n: (t / norm).astype(t.dtype) for n, t in directions.items()}
        return directions

    def size_note(self, derivative: str, count) -> None:
        """Before a derivative over every input, a note when it is large (``large``)."""
        large_derivative_note(self, derivative, count)

    def shape(self, name: str) -> tuple[int, ...]:
        """An input's shape (at one point, when it varies)."""
        return self.varying[name][0] if name in self.varying else self.values[name].shape

    def dtype_of(self, name: str) -> np.dtype:
        return self.varying[name][1] if name in self.varying else self.values[name].dtype

    # ----- running -----
    def leaves(self, wrt) -> dict:
        """A leaf tensor for every input; those in ``wrt`` require grad."""
        leaves = {name: gradcli.tensor(v) for name, v in self.constants.items()}
        for name, v in self.values.items():
            leaves[name] = gradcli.tensor(v, requires_grad=name in wrt)
        return leaves

    def point(self, names) -> tuple:
        """The inputs ``names`` as tensors, for ``gradcli.autograd.functional``."""
        return tuple(gradcli.tensor(self.values[n]) for n in names)

    def run(self, leaves, origins=None, sources=None):
        """Evaluate once, watching for the first operation that makes nan or inf.

        ``origins``: a dict to fill with where in the source each graph node came from
        (see ``CompiledProgram.run``).
        """
        # The watch keeps its first find; the re-run that records origins adds nothing.
        watching = not self.watch and origins is None
        return self.program.run(
            leaves,
            watch_nonfinite=self.watch if watching else None,
            origins=origins,
            notes=self.notes,
            sources=sources,
            # A new generator each time: every evaluation draws the same random
            # numbers, so the several passes of a Hessian see one and the same function.
            generator=seeded(self.seed),
            dtype=self.dtype,
        )

    def grad_output(self, given, value, command: str) -> np.ndarray:
        """The gradient a reverse pass from ``value`` starts from: ``given`` (of the
        output's shape), or 1 for a scalar output when it is None."""
        if given is None:
            if value.numel() != 1:
                raise GradcliError(
                    f"{command} needs --grad-output V of the output's shape "
                    f"{tuple(value.shape)}; it can be left out only for a scalar output"
                )
            return np.ones(value.shape, dtype=self.dtype)
        v = self.value_of("--grad-output", given)
        if v.shape != value.shape:
            raise GradcliError(
                f"--grad-output has shape {v.shape}, but the output has shape "
                f"{tuple(value.shape)}: they must be the same"
            )
        if value.is_complex() and v.dtype.kind != "c":
            v = v.astype(value.numpy().dtype)  # a real direction of a complex output
        return v

    def graph(self, grad_output) -> GraphResult:
        """One more evaluation, recording where each node came from, and its graph with
        the reverse pass from ``grad_output`` (None: no pass)."""
        from gradcli.autograd.traced import trace

        leaves = self.leaves(self.wrt)
        sources: dict = {}
        origins: dict = {}
        out = self.run(leaves, origins, sources)
        for node, (_, span) in origins.items():
            sources.setdefault(node, span)  # a node made inside a call: the call's span
        start = None if grad_output is None else gradcli.tensor(grad_output, dtype=self.gdtype)
        traced = trace(out, start, {name: leaves[name] for name in self.wrt}, sources)
        nodes = tuple(
            dataclasses.replace(node, **_source_extent(self.source, node.span))
            for node in traced.nodes
        )
        return GraphResult(
            source=self.source,
            filename=self.filename,
            nodes=nodes,
            edges=traced.edges,
            steps=traced.steps,
            value=_frozen_array(plain_array(out)),
            grad_output=None if grad_output is None else _frozen_array(grad_output),
        )

    def scalar_gradient(self, command: str):
        """``(out, grads)``: the output, which must be a scalar, and its gradient
        for each input of ``wrt``."""
        leaves = self.leaves(self.wrt)
        out = self.run(leaves)
        require_scalar(out, command)
        return out, leaf_grads(out, {n: leaves[n] for n in self.wrt})

    def function(self, names):
        """``f(*tensors)``: the program as a function of ``names``, the other inputs fixed.

        Also returns the list of outputs it produced, the first being the value.
        """
        fixed = self.leaves(())
        outputs: list = []

        def f(*tensors):
            env = dict(fixed)
            env.update(zip(names, tensors))
            out = self.run(env)
            outputs.append(out)
            return out

        return f, outputs

    # ----- the result -----
    def result(self, command: str, value, **fields) -> Result:
        """The frozen result, with a warning for each result array that is not finite."""
        value = self._numeric(plain_array(value))
        fields = {
            key: section if key == "graph" else self._numeric(section)
            for key, section in fields.items()
        }
        warnings = [] if finite(value) else [self._nonfinite_warning(value)]
        shown = {key: fields[key] for key in SECTIONS[command]}
        for path, array in leaves(shown):
            if not finite(array):
                head = f"{'.'.join(path)} contains {value_kinds(array)}"
                # grad.x: the pass to x alone, so that what it names is on x's way.
                wrt = [path[1]] if len(path) > 1 and path[1] in self.wrt else self.wrt
                warnings.append(
                    Diagnostic("warning", head) if warnings else self._derivative_warning(head, wrt)
                )
        return Result(
            command=command,
            source=self.source,
            filename=self.filename,
            value=_frozen_array(value),
            inputs=tuple(self.wrt),
            point=_frozen(self.values),
            warnings=tuple(warnings),
            notes=self.binding_notes + tuple(self.early_notes) + self._notes(),
            left_out=MappingProxyType(dict(self.left_out)),
            constants=_frozen(self.constants),
            **{
                key: section if key == "graph" else _frozen(section)
                for key, section in fields.items()
            },
        )

    def _notes(self) -> tuple[Diagnostic, ...]:
        """A note for each call that landed on a kink, once each (a Jacobian evaluates
        the program more than once)."""
        notes = {}
        for function, span, where, convention in self.notes:
            known = FUNCTIONS.get(function)
            convention = convention or (known and known.kink)
            message = f"{function} is evaluated {where}, where it has no derivative"
            if convention:
                message += f" (convention: {convention})"
            notes.setdefault((message, span), Diagnostic("note", message, span, self.source))
        return tuple(notes.values())

    def _numeric(self, section):
        """Booleans (a mask given as the value) as the numbers 1 and 0, as the language
        writes True and False."""
        if isinstance(section, Mapping):
            return {key: self._numeric(value) for key, value in section.items()}
        if isinstance(section, np.ndarray) and section.dtype.kind == "b":
            return section.astype(self.dtype)
        return section

    def _derivative_warning(self, head: str, wrt) -> Diagnostic:
        """The warning for a derivative that is nan or inf where the value is finite,
        naming the first operation whose derivative made it, with a caret."""
        nan = head.endswith(" contains nan") or " contains nan," in head
        head += " at a point where the value is finite"
        found = self._derivative_origin(wrt)
        if found is None:
            return Diagnostic("warning", head)
        watch, origin = found
        description, span = origin(watch.node)
        message = f"{head}; the first came from the derivative of {description}"
        if nan and watch.nan_node not in (None, watch.node):
            # The derivative of sqrt at 0 is inf; the nan is the chain rule's inf * 0.
            other, where = origin(watch.nan_node)
            other += "" if where is None else f" at {where.line}:{where.column}"
            if watch.nan_of_infinite and watch.nan_node.op.entry.kind in _ELEMENTWISE:
                message += f", infinite there, times the derivative of {other}, 0 there"
                message += " (inf * 0 is nan)"
            else:
                message += f", infinite there, which the derivative of {other} made nan"
        return _warning(message, span, self.source)

    def _derivative_origin(self, wrt):
        """The watch (``autograd.first_nonfinite``) of one more evaluation and reverse pass
        to the inputs ``wrt``, and a function giving a graph node's ``(description, span)``;
        None without a pass."""
        leaves = self.leaves(wrt)
        wanted = [leaves[name] for name in wrt]
        origins: dict = {}
        out = self.run(leaves, origins)
        if not wanted or not out.requires_grad:
            return None
        with gradcli.autograd.first_nonfinite() as watch:
            gradcli.autograd.grad(out, wanted, gradcli.ones_like(out), allow_unused=True)
        if watch.node is None:
            return None
        return watch, lambda node: origins.get(node, (node.name(), None))

    def _nonfinite_warning(self, value) -> Diagnostic:
        head = f"the value contains {value_kinds(value)}"
        if not self.watch:
            # No operation made it: an input given that way did (--x nan, @FILE).
            given = {**self.constants, **self.values}
            held = [f"{n} holds {value_kinds(v)}" for n, v in given.items() if not finite(v)]
            return Diagnostic("warning", f"{head}; the input {held[0]}" if held else head)
        # The value's nan came from the first operation that made nan (sin of the inf
        # of 1/x), not from the one that made an inf before it.
        nan = [found for found in self.watch if found.nan]
        found = nan[0] if nan and np.isnan(value).any() else self.watch[0]
        message = f"{head}; the first came from {found.description}"
        if found.operands is not None:
            message += f" of {found.operands}"
            if found.infinity is not None:
                maker, where = found.infinity
                message += f" (the {found.operands} from {maker} at {where.line}:{where.column})"
        return _warning(message, found.span, self.source)


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------


# Ops whose rule multiplies each entry of the gradient by its own local derivative.
_ELEMENTWISE = ("elementwise", "binary")


def _warning(message: str, span, source: str) -> Diagnostic:
    """``warning: message`` with the source line and a caret under ``span``."""
    return Diagnostic("warning", message, span, source)


def _source_extent(source: str, span) -> dict:
    """``{"span", "text"}``: ``span`` with the brackets the parser leaves out of it put
    back (``(x+2)**2``), and its source text (its first line when it spans several)."""
    if span is None:
        return {"span": None, "text": None}
    lines = source.splitlines()
    if not 1 <= span.line <= len(lines):
        return {"span": span, "text": None}
    line = lines[span.line - 1]
    if span.end_line not in (None, span.line) or span.end_column is None:
        return {"span": span, "text": line[span.column - 1 :].rstrip() + " …"}
    start, stop = span.column - 1, span.end_column
    while line[start:stop].count(")") > line[start:stop].count("(") and "(" in line[:start]:
        start = line.rindex("(", 0, start)
    while line[start:stop].count("(") > line[start:stop].count(")") and ")" in line[stop:]:
        stop = line.index(")", stop) + 1
    return {"span": Span(span.line, start + 1, span.line, stop), "text": line[start:stop]}


def require_scalar(out, command: str) -> None:
    if out.numel() != 1:
        raise GradcliError(
            f"{command} needs a scalar output, but the output has shape {tuple(out.shape)}: "
            f"use `gradcli jacobian` for the full Jacobian, or `gradcli vjp --grad-output V` "
            f"for one vector-Jacobian product"
        )


def leaf_grads(out, leaves: Mapping) -> dict[str, np.ndarray]:
    """d(out)/d(leaf) for each named leaf; zeros for a leaf the output does not use."""
    if not out.requires_grad:
        return {name: np.zeros(t.shape, plain_array(t).dtype) for name, t in leaves.items()}
    found = autograd_grad(out, list(leaves.values()), allow_unused=True, materialize_grads=True)
    return {name: plain_array(g) for name, g in zip(leaves, found)}


def close_to(name: str, names: Sequence[str]) -> list[str]:
    """The name in ``names`` that ``name`` is most likely a typo of (a list of 0 or 1)."""
    import difflib

    same = [n for n in names if n.casefold() == name.casefold()]
    return same[:1] or difflib.get_close_matches(name, names, n=1)


class UnknownInput(GradcliError):
    """``option`` (``--x``, ``--wrt x``) names ``name``, which is no input of the program;
    the command line words it otherwise where ``--name`` was meant as an option."""

    def __init__(self, option: str, name: str, inputs: Sequence[str]):
        super().__init__(f"{option}: {no_such_input(name, inputs)}")
        self.option = option
        self.name = name
        self.inputs = tuple(inputs)


def no_such_input(name: str, inputs: Sequence[str]) -> str:
    text = f"the program has no input named {name!r}"
    close = close_to(name, inputs)
    if close:
        text += f" (did you mean {close[0]!r}?)"
    if inputs:
        text += f"; its inputs are {', '.join(inputs)}"
    else:
        text += "; it has no inputs"
    return text


def plain_array(value) -> np.ndarray:
    if isinstance(value, gradcli.Tensor):
        return np.array(value.detach().numpy())
    return np.array(value)


def _frozen_array(array: np.ndarray) -> np.ndarray:
    array = np.array(array)
    array.flags.writeable = False
    return array


def _frozen(section):
    """A read-only copy: arrays not writeable, dicts (of dicts) of them proxied."""
    if isinstance(section, Mapping):
        return MappingProxyType({key: _frozen(value) for key, value in section.items()})
    return _frozen_array(section)


def value_kinds(array) -> str:
    array = np.asarray(array)
    if array.dtype.kind == "c":  # a complex number's parts: nan, inf and -inf in either
        array = np.stack([array.real, array.imag])
    found = []
    if np.isnan(array).any():
        found.append("nan")
    if np.isposinf(array).any():
        found.append("inf")
    if np.isneginf(array).any():
        found.append("-inf")
    return found[0] if len(found) == 1 else f"{', '.join(found[:-1])} and {found[-1]}"
