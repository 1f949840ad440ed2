"""Any working precision (``--dps N``): a command computed in mpmath, to N certified digits.

The program runs on the same engine and the same derivative rules, its numbers mpmath's
(``engine/multiprecision.py``); bindings and literals are read from their decimal text
(``--x 0.1`` is one tenth). The command is computed at N + ``GUARD`` digits, then with
the working precision doubled, until every number agrees with the one before it to more
than N digits, as Mathematica's ``N[expr, n]`` raises its precision: the last is printed,
rounded to N significant digits. Where the working precision reaches ``limit(N)`` first,
the digits that agreed are the certified ones, printed so, and a warning says how many.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..engine.backward import grad as autograd_grad
from ..engine.tensor import Tensor
from ..engine.working_precision import working_precision
from ..errors import GradcliError
from ..language import compile_source
from ..language.check import BUILTIN_CONSTANTS
from ..record import Record

#: The commands that take --dps.
COMMANDS = ("eval", "grad", "jacobian", "hessian", "vjp", "jvp")
#: Digits beyond N of the first working precision.
GUARD = 15
#: The most decimal digits --dps takes.
MAX_DPS = 10000


def limit(dps: int) -> int:
    """The highest working precision tried for ``dps`` digits."""
    return 16 * (dps + GUARD)


class PreciseResult(Record, compared=False):
    """A command's numbers at ``dps`` digits, each a decimal text, by section:
    ``sections["value"]`` a (nested) list of texts or a text, ``sections["grad"]`` a dict
    by input, ``sections["hessian"]`` a dict of dicts. ``certified``: the significant
    digits that agreed between the last two working precisions (``dps`` when all did);
    ``working``: the last working precision."""

    command: str
    dps: int
    certified: int
    working: int
    sections: dict
    warnings: tuple = ()
    notes: tuple = ()
    finite: bool = True


class Certified(Record, compared=False):
    """``certify``'s sections as decimal texts; the digits certified; the last working
    precision; the warnings; whether every number is finite; and the last run's
    sections, of mpf (``numbers``)."""

    sections: dict
    certified: int
    working: int
    warnings: tuple
    finite: bool
    numbers: dict


def precise(command, source, bindings, dps, *, wrt=None, grad_output=None, tangents=None,
            filename="<expr>") -> PreciseResult:  # fmt: skip
    """``command`` of ``source`` with ``bindings`` (name -> decimal text), to ``dps``
    significant digits; ``wrt``, ``grad_output`` and ``tangents`` as the command takes them."""
    if command not in COMMANDS:
        raise GradcliError(f"--dps is not supported by {command} yet (it is float64-only)")
    program = compiled(source, bindings, dps, filename)
    wrt = chosen_inputs(program, bindings, wrt)
    extra = {"grad_output": grad_output, "tangents": dict(tangents or {})}
    if command == "jvp":
        wrt = _tangent_names(program, extra["tangents"])

    # Two working precisions that both lose every digit agree on wrong ones: a number
    # written 1e-100 (or 10**-100) may cancel 100 digits against one of order 1, so the
    # first working precision has that many more.
    spread = exponent_range([source, *bindings.values()])
    found = certify(lambda: _compute(command, program, bindings, wrt, extra), dps, spread)
    return PreciseResult(command, dps, found.certified, found.working, found.sections,
                         found.warnings, (), found.finite)  # fmt: skip


def compiled(source, bindings, dps, filename="<expr>"):
    """The program of ``source``, once ``dps`` and the bindings are known to be taken."""
    if isinstance(dps, bool) or not isinstance(dps, int) or not 1 <= dps <= MAX_DPS:
        raise GradcliError(f"--dps must be an integer from 1 to {MAX_DPS}, not {dps!r}")
    for name, text in bindings.items():
        if text.strip().startswith("@"):
            raise GradcliError(f"--{name} {text}: --dps reads numbers as decimal text, not files")
    constants = [name for name in bindings if name in BUILTIN_CONSTANTS]
    return compile_source(source, filename=filename, inputs=constants)


def certify(compute, dps: int, spread: int = 0) -> tuple:
    """``compute()`` (sections of arrays of mpf) at N + ``GUARD`` + ``spread`` working
    digits, then doubled, until every number agrees with the run before to more than
    ``dps`` digits (or ``limit``): its sections as decimal texts, the digits certified,
    the last working precision, the warnings, and whether every number is finite."""
    import mpmath

    working, highest = dps + GUARD + spread, limit(dps + spread)
    before = _at(working, compute)
    while True:
        previous, working = working, min(2 * working, highest)
        now = _at(working, compute)
        agreed = _agreed(before, now, working)
        if min(agreed, default=math.inf) > dps or working >= highest:
            break
        before = now
    with mpmath.workdps(working):  # mpmath's numbers round to the precision in force
        # A number whose digits never settle, below the rounding of the lower precision
        # at every step (sin(pi)): zero, to within that bound, not a digit of it sure.
        bound = mpmath.mpf(10) ** (GUARD - previous)
        pairs = zip(agreed, _numbers(before), _numbers(now))
        zeros = [d <= dps and abs(a) < bound and abs(b) < bound for d, a, b in pairs]
        unsure = [d for d, zero in zip(agreed, zeros) if d <= dps and not zero]
        certified = max(int(min(unsure)), 0) if unsure else dps
        digits = max(certified, 1)
        texts = ["0" if zero else number_text(x, digits) for zero, x in zip(zeros, _numbers(now))]
    warnings = []
    if certified < dps:
        warnings.append(
            f"warning: --dps {dps}: only {certified} significant digits are certified (the "
            f"results at {previous} and {working} digits agree to that many); "
            f"they are printed to {digits}"
        )
    if any(zeros):
        warnings.append(
            f"note: --dps {dps}: a result printed 0 is 0 to within 1e-{previous - GUARD}: its "
            f"digits changed with the working precision up to {working} digits, and it "
            f"stayed below that"
        )
    sections = _rebuilt(now, iter(texts))
    values = list(_numbers(now))
    finite = all(not _is_nan(x) and abs(x) != mpmath.inf for x in values)
    return Certified(sections, certified, working, tuple(warnings), finite, now)


# ----------------------------------------------------------------------------
# One working precision
# ----------------------------------------------------------------------------


def _at(working, compute) -> dict:
    """``compute()``'s sections at ``working`` digits: arrays of mpf."""
    try:
        with working_precision(working):
            return compute()
    except ZeroDivisionError:
        raise GradcliError("--dps: a division by zero (mpmath has no infinite quotient)") from None
    except TypeError as error:
        raise GradcliError(f"--dps: {error}") from None


def _compute(command, program, bindings, wrt, extra) -> dict:
    return sections_at(command, program, read_values(program, bindings), wrt, extra)


def read_values(program, bindings) -> dict:
    """The program's inputs, by name, as arrays of mpf at the working precision: the
    bindings' decimal texts, else the program's own values (``a = 0.1``)."""
    given = {n: read_decimal(f"--{n}", text) for n, text in bindings.items() if n in program.inputs}
    unbound = [name for name in program.inputs if name not in given]
    if unbound:  # the program's own values (a = 0.1), its literals read at this precision
        defaults = program.defaults()
        given.update({name: _mpf(defaults[name]) for name in unbound})
    return given


def sections_at(command, program, given, wrt, extra=None) -> dict:
    """``command``'s sections (eval, grad, jacobian, hessian, vjp, jvp) of ``program`` at
    the inputs ``given`` (arrays of mpf), differentiated with respect to ``wrt``."""
    leaves = {name: Tensor._make(value, None, name in wrt) for name, value in given.items()}
    out = program.run(leaves)
    if type(out) is not Tensor:
        out = Tensor._make(read_decimal("the value", str(out)) if isinstance(out, int) else out)
    sections = {"value": out._data}
    if command != "eval":
        xs = [leaves[name] for name in wrt]
        sections.update(_DERIVATIVES[command](command, out, xs, wrt, extra or {}))
    return sections


def _gradient_sections(command, out, xs, wrt, extra) -> dict:
    """grad, and with hessian each gradient's Jacobian."""
    if out._data.size != 1:
        raise GradcliError(
            f"{command} needs a scalar output; the output has shape {out._data.shape}"
        )
    grads = _grads(out, xs, None, create_graph=command == "hessian")
    sections = {"grad": {n: g._data if g is not None else _zeros(x) for n, g, x in
                         zip(wrt, grads, xs)}}  # fmt: skip
    if command == "hessian":
        sections["hessian"] = {
            n: _jacobian(g, xs, wrt) if g is not None else _jacobian(x * 0, xs, wrt)
            for n, g, x in zip(wrt, grads, xs)
        }
    return sections


def _vjp_sections(command, out, xs, wrt, extra) -> dict:
    v = extra["grad_output"]
    start = read_decimal("--grad-output", v) if v is not None else _ones(out)
    if start.shape != out._data.shape:
        raise GradcliError(
            f"--grad-output has shape {start.shape}, but the output has shape "
            f"{out._data.shape}: they must be the same"
        )
    grads = _grads(out, xs, Tensor._make(start))
    return {"vjp": {n: g._data if g is not None else _zeros(x) for n, g, x in
                    zip(wrt, grads, xs)}}  # fmt: skip


def _jacobian_sections(command, out, xs, wrt, extra) -> dict:
    return {"jacobian": _jacobian(out, xs, wrt)}


def _jvp_sections(command, out, xs, wrt, extra) -> dict:
    """J t, summed over the inputs moved."""
    jacobian = _jacobian(out, xs, wrt)
    total = np.zeros(out._data.shape, dtype=object)
    for name, x in zip(wrt, xs):
        t = read_decimal(f"the tangent of {name}", extra["tangents"][name])
        if t.shape != x._data.shape:
            raise GradcliError(
                f"the tangent of {name} has shape {t.shape}, but {name} has shape "
                f"{x._data.shape}: they must be the same"
            )
        total = total + np.tensordot(jacobian[name], t, axes=t.ndim)
    return {"jvp": np.asarray(total, dtype=object)}


#: Each command's derivative sections, beside its value.
_DERIVATIVES = {
    "grad": _gradient_sections,
    "hessian": _gradient_sections,
    "vjp": _vjp_sections,
    "jacobian": _jacobian_sections,
    "jvp": _jvp_sections,
}


def _grads(out, xs, start, create_graph=False):
    if not out.requires_grad:  # the output reaches no input (argmax, zeros_like): all 0
        return (None,) * len(xs)
    # The seed of mpf, never an int: a rule's int / int would be a float64's quotient.
    start = Tensor._make(filled(out._data.shape, 1)) if start is None else start
    return autograd_grad(out, xs, start, retain_graph=True, create_graph=create_graph,
                         allow_unused=True)  # fmt: skip


def _jacobian(out, xs, wrt) -> dict:
    """Every input's Jacobian, of shape out.shape + x.shape: a reverse pass a row."""
    rows = {name: [] for name in wrt}
    for k in range(out._data.size):
        seed = filled(out._data.size, 0)
        seed[k] = filled((), 1)[()]
        grads = _grads(out, xs, Tensor._make(seed.reshape(out._data.shape)))
        for name, g, x in zip(wrt, grads, xs):
            rows[name].append(g._data if g is not None else _zeros(x))
    shapes = {name: out._data.shape + x._data.shape for name, x in zip(wrt, xs)}
    # np.stack, not np.array: NumPy keeps a 0-d object array as one element of another
    return {
        name: np.stack(rows[name]).reshape(shapes[name]) if rows[name] else _empty(shapes[name])
        for name in wrt
    }


def _empty(shape):
    return np.zeros(shape, dtype=object)


def _zeros(x):
    return np.zeros(x._data.shape, dtype=object) * 0


def _ones(out):
    return filled(out._data.shape, 1)


def filled(shape, number):
    """An array of ``shape`` of the mpf ``number`` at the working precision."""
    import mpmath

    array = np.empty(shape, dtype=object)
    array[...] = mpmath.mpf(number)
    return array


def read_decimal(name: str, text: str) -> np.ndarray:
    """A binding's decimal text (a number, a list, an expression of numbers: ``pi/4``) as
    an array of mpf at the working precision."""
    try:
        value = compile_source(str(text), filename=name).run({})
    except GradcliError as error:
        raise GradcliError(f"{name}: {error.message}") from None
    return _mpf(value)


def _mpf(value) -> np.ndarray:
    """``value`` (a tensor, an array, a number) as an array of mpf."""
    import mpmath

    data = value._data if type(value) is Tensor else np.asarray(value, dtype=object)
    out = np.empty(data.shape, dtype=object)
    out.reshape(-1)[:] = [mpmath.mpf(v) for v in data.reshape(-1).tolist()]
    return out


def chosen_inputs(program, bindings, wrt) -> tuple:
    """The inputs differentiated: ``wrt``, else every input, bound or given its value by
    the program (``a = 0.1``)."""
    defined = program.analysis.input_statements
    inputs = [n for n in program.inputs if n in bindings or n in defined]
    missing = [n for n in program.inputs if n not in inputs]
    if missing:
        raise GradcliError(f"no value for {missing[0]}: bind it with --{missing[0]} VALUE")
    if wrt is None:
        return tuple(inputs)
    for name in wrt:
        if name not in inputs:
            raise GradcliError(f"--wrt {name}: no input of the program is named {name}")
    return tuple(wrt)


def _tangent_names(program, tangents) -> tuple:
    if not tangents:
        raise GradcliError("jvp needs a direction: --tangent NAME=V for each input to move")
    if None in tangents:
        if len(program.inputs) != 1:
            raise GradcliError("--tangent V names no input: write --tangent NAME=V")
        tangents[program.inputs[0]] = tangents.pop(None)
    return tuple(tangents)


# ----------------------------------------------------------------------------
# Digits
# ----------------------------------------------------------------------------


def _numbers(sections):
    """Every number of ``sections``, in order."""
    for value in sections.values():
        if isinstance(value, dict):
            yield from _numbers(value)
        else:
            yield from np.asarray(value, dtype=object).reshape(-1).tolist()


_EXPONENT = re.compile(r"[0-9.][eE]([+-]?[0-9]+)|10\s*\*\*\s*\(?\s*([+-]?[0-9]+)")


def exponent_range(texts) -> int:
    """The largest decimal exponent written in ``texts`` (``1e-100``, ``10**-100``: 100)."""
    found = [abs(int(a or b)) for text in texts for a, b in _EXPONENT.findall(str(text))]
    return min(max(found, default=0), MAX_DPS)


def _agreed(before, now, working) -> list:
    """The significant digits to which each number of ``before`` agrees with ``now``'s."""
    import mpmath

    with mpmath.workdps(working):
        return [_agreement(a, b) for a, b in zip(_numbers(before), _numbers(now))]


def _is_nan(x) -> bool:
    return x != x


def _agreement(a, b) -> float:
    """The significant digits to which ``a`` agrees with ``b`` (inf when equal)."""
    import mpmath

    a, b = (v.item() if isinstance(v, np.generic) else v for v in (a, b))
    if a == b or (_is_nan(a) and _is_nan(b)):
        return math.inf
    if b == 0 or not mpmath.isfinite(b) or not mpmath.isfinite(a):
        return 0.0
    return float(-mpmath.log10(abs(a - b) / abs(b)))


def number_text(x, digits: int) -> str:
    """``x`` to ``digits`` significant digits, every one printed (trailing zeros too)."""
    import mpmath

    if _is_nan(x):
        return "nan"
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    # Positional where %g would be (an exponent from -5 to the digits), else scientific.
    x = x.item() if isinstance(x, np.generic) else x  # NumPy's int 0 of a rule
    x = mpmath.mpf(x)  # a float or an int (an exact 0 or 1 of a rule) as an mpf, exactly
    if x == 0:
        return "0"
    text = mpmath.nstr(x, digits, min_fixed=-5, max_fixed=digits, strip_zeros=False)
    return text.replace(".e", "e").rstrip(".")  # one digit: "1", not mpmath's "1."


def _rebuilt(sections, texts):
    """``sections`` with each number replaced by the next of ``texts``, as nested lists."""
    if isinstance(sections, dict):
        return {key: _rebuilt(value, texts) for key, value in sections.items()}
    array = np.asarray(sections, dtype=object)
    flat = [next(texts) for _ in range(array.size)]
    return np.array(flat, dtype=object).reshape(array.shape).tolist()
