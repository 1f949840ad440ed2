"""``gradcli propagate``: first-order propagation of uncertainties through the Jacobian.

With J the Jacobian of the outputs by every input entry (flattened, in input
order) and Σ the inputs' covariance, the outputs' covariance is ``J Σ Jᵀ``. Σ is
diagonal (``σ²``) from ``--sigma x=0.1`` and from bindings written ``1.00±0.01``
or ``1.00+-0.01`` (read so only here), or given whole by ``--cov FILE``. A σ
written ``1%`` (``--sigma x=1%``, ``2.5±1%``) is relative: of each entry's size. An
input's share of an output's variance is its own block's part ``(J Σ Jᵀ)`` over
its entries; with correlated inputs the cross terms are the ``correlation``
share, so that the shares add up to 1.

Nothing squares a σ or a derivative as it stands: each row of ``J diag(σ)`` is
formed scaled by a power of two, and a covariance file is split into the σ and
their correlation matrix R (``Σ = diag(σ) R diag(σ)``), so σ_f neither
overflows nor underflows when it is itself a float64 (``1e300±1e298`` / 1e10 is
``± 1e288``). Only the outputs' covariance, σ_f², may be beyond range.

``f ± σ_f`` is rounded as a lab report would: σ to one significant digit (two
when the first is 1) and the value to the same decimal place.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from types import MappingProxyType

import numpy as np

from ..core import computing, many_points
from ..core.assembled import assemble_jacobian, entry_labels
from ..core.evaluation import no_such_input
from ..core.result import Diagnostic, source_title
from ..core.values import load_file, parse_value
from ..engine.limits import DEFAULT_MAX_ELEMENTS
from ..errors import GradcliError
from .commands import Command, Flagged, Option
from .report import Report, flat, frozen

# value±sigma, value +- sigma, value+/-sigma; the value is anything before the sign.
_UNCERTAIN = re.compile(r"^(?P<value>.+?)\s*(?:±|\+/-|\+-)\s*(?P<sigma>[^±]+)$", re.S)
# A relative σ: 1%, 0.5 %, of the value's size.
_PERCENT = re.compile(r"^\s*(?P<percent>\+?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*%\s*$")


@dataclass(frozen=True, eq=False)
class PropagateReport(Report):
    command = "propagate"
    layout = "uncertainty"
    source: str
    title: str
    value: np.ndarray
    #: σ of each output entry, of the value's shape.
    sigma: np.ndarray
    #: ``"9.9 ± 0.2"`` for each output entry (a string for a scalar output).
    rounded: object
    #: The outputs' covariance ``J Σ Jᵀ`` (outputs flattened).
    covariance: np.ndarray
    #: Every input's value and σ (of its shape; 0 for an exact input).
    inputs: Mapping[str, np.ndarray]
    sigmas: Mapping[str, np.ndarray]
    #: Each input's share of each output's variance, of the value's shape.
    shares: Mapping[str, np.ndarray]
    #: The cross terms' share when the inputs are correlated (--cov), else None.
    correlation_share: np.ndarray | None
    warnings: tuple[str, ...] = ()
    #: The output's spread over inputs drawn from their distribution (``monte_carlo=N``).
    monte_carlo: MonteCarlo | None = None

    def as_tree(self) -> dict:
        tree = {
            "value": self.value,
            "sigma": self.sigma,
            "rounded": self.rounded,
            "inputs": {n: {"value": v, "sigma": self.sigmas[n]} for n, v in self.inputs.items()},
            "shares": dict(self.shares),
        }
        if self.correlation_share is not None:
            tree["shares"]["correlation"] = self.correlation_share
        if self.value.size > 1:
            tree["covariance"] = self.covariance
        if self.monte_carlo is not None:
            tree["monte_carlo"] = self.monte_carlo.as_tree()
        return tree

    def row(self) -> dict:
        # The inputs' values are the row's own columns; their σ stays (a relative one
        # varies). The rounded texts are left to one point: a row holds numbers.
        found = flat(self.as_tree())
        leave_out = {f"inputs.{n}.value" for n in self.inputs}
        leave_out |= {"rounded", "monte_carlo.rounded", "monte_carlo.samples"}
        return {n: v for n, v in found.items() if n not in leave_out}


@dataclass(frozen=True, eq=False)
class MonteCarlo:
    """The output at ``samples`` draws of the inputs (normal, of the inputs' covariance):
    its mean and standard deviation, each of the value's shape."""

    samples: int
    mean: np.ndarray
    sigma: np.ndarray
    #: ``"9.9 ± 0.2"`` for each output entry, as ``PropagateReport.rounded``.
    rounded: object

    def as_tree(self) -> dict:
        return {
            "samples": self.samples,
            "mean": self.mean,
            "sigma": self.sigma,
            "rounded": self.rounded,
        }


def split_uncertain(text: str) -> tuple[str, str] | None:
    """``"1.00±0.01"`` -> ``("1.00", "0.01")``; None for a value without an uncertainty."""
    found = _UNCERTAIN.match(text.strip())
    if found is None:
        return None
    return found["value"], found["sigma"]


def _split_uncertainties(bindings, sigmas, cov, monte_carlo) -> tuple[dict, dict]:
    """The bindings' plain values, and each input's σ from ``NAME=VALUE±S`` or ``sigmas``."""
    if monte_carlo is not None and (isinstance(monte_carlo, bool) or monte_carlo < 2):
        raise GradcliError(f"--monte-carlo takes at least 2 samples, not {monte_carlo!r}")
    plain: dict = {}
    given: dict[str, object] = {}
    for name, value in dict(bindings or {}).items():
        parts = split_uncertain(value) if isinstance(value, str) else None
        if parts is None:
            plain[name] = value
        else:
            plain[name], given[name] = parts
    for name, sigma in dict(sigmas or {}).items():
        if name in given:
            raise GradcliError(f"--sigma {name}: {name} already has its uncertainty in --{name}")
        given[name] = sigma
    if cov is not None and given:
        raise GradcliError("give the covariance with --cov or the σ of each input, not both")
    if cov is None and not given:
        raise GradcliError(
            "propagate needs uncertainties: --sigma NAME=S, a binding NAME=VALUE±S, or --cov FILE"
        )
    return plain, given


def _first_order(scaled, exponent, correlation_in, shape):
    """The output's variance and σ, and the products and covariance J Σ Jᵀ, from the rows
    of J scaled by the inputs' σ (``exponent`` each row's power of two taken out)."""
    with np.errstate(all="ignore"):  # inf and nan from a non-finite derivative are the answer
        variance = np.maximum(_quadratic(scaled, correlation_in), 0)
        sigma = np.ldexp(np.sqrt(variance), exponent).reshape(shape)
        products = scaled @ (scaled if correlation_in is None else scaled @ correlation_in).T
        products = (products + products.T) / 2  # symmetric to the last digit
        covariance = np.ldexp(products, exponent[:, None] + exponent[None, :])
    return variance, sigma, products, covariance


def _shares(scaled, correlation_in, names, columns, variance, shape):
    """Each input's share of the variance, and the correlations' share (None when the
    inputs are uncorrelated)."""
    with np.errstate(all="ignore"):
        shares, own = {}, np.zeros_like(variance)
        for name, start, stop in zip(names, columns[:-1], columns[1:]):
            block = None if correlation_in is None else correlation_in[start:stop, start:stop]
            part = _quadratic(scaled[:, start:stop], block)
            own += part
            shares[name] = frozen(_share(part, variance).reshape(shape))
        correlated = correlation_in is not None and np.any(
            correlation_in - np.diag(np.diag(correlation_in))
        )
        correlation = (
            frozen(_share(variance - own, variance).reshape(shape)) if correlated else None
        )
    return shares, correlation


def _range_warnings(size, covariance, products) -> tuple[Diagnostic, ...]:
    if size > 1 and _out_of_range(covariance, products):
        message = (
            "the outputs' covariance has entries beyond float64's range (shown as inf or 0); "
            "each output's sigma is in range"
        )
        return (Diagnostic("warning", message),)
    return ()


def propagate(
    source: str,
    bindings: Mapping | None = None,
    *,
    sigmas: Mapping[str, object] | None = None,
    cov: str | None = None,
    monte_carlo: int | None = None,
    dtype: str = "float64",
    seed: int = 0,
    filename: str = "<expr>",
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> PropagateReport:
    """Propagate the inputs' uncertainties to the output.

    ``sigmas``: input name -> σ (a number, an array of the input's shape, or value
    text: ``"0.01"``, ``"1%"`` of the value); a binding's text may also carry its σ
    (``"1.00±0.01"``). ``cov``: a file (``@``-file formats) holding the covariance of
    all inputs' entries, in order. ``monte_carlo``: also the output's mean and σ over
    that many draws of the inputs (seeded by ``seed``), which first order cannot
    replace where f is far from linear over the inputs' spread.
    """
    plain, given = _split_uncertainties(bindings, sigmas, cov, monte_carlo)
    settings = dict(dtype=dtype, seed=seed, filename=filename, max_elements=max_elements)
    jac = computing.jacobian(source, plain, **settings)
    names, shape = jac.inputs, jac.value.shape
    whole = jac.assembled or assemble_jacobian(jac.value, jac.jacobian, jac.shapes)
    matrix = np.asarray(whole.matrix, dtype=np.float64)
    sizes = [int(np.prod(jac.shapes[n], dtype=int)) for n in names]
    columns = np.cumsum([0, *sizes])
    if cov is not None:
        sigma_in, correlation_in = _covariance_file(cov, names, jac.shapes, int(columns[-1]))
    else:
        sigma_in, correlation_in = _sigmas(given, names, jac), None
    scaled, exponent = _scaled_rows(matrix, sigma_in)
    variance, sigma, products, covariance = _first_order(scaled, exponent, correlation_in, shape)
    shares, correlation = _shares(scaled, correlation_in, names, columns, variance, shape)
    warnings = (
        *_range_warnings(jac.value.size, covariance, products),
        *_first_order_blind(sigma, sigma_in, shape, monte_carlo is None),
    )
    sampled = None
    if monte_carlo is not None:
        point = np.concatenate([np.reshape(jac.point[n], -1) for n in names] or [np.zeros(0)])
        fixed = {n: v for n, v in plain.items() if n not in names}
        sampled = _monte_carlo(
            source, fixed, names, jac.shapes, point, sigma_in, correlation_in, monte_carlo,
            shape, settings,
        )  # fmt: skip
    sigmas_out = {
        name: frozen(sigma_in[start:stop].reshape(jac.shapes[name]))
        for name, start, stop in zip(names, columns[:-1], columns[1:])
    }
    rounded = _rounded_all(np.asarray(jac.value, dtype=np.float64), sigma)
    return PropagateReport(
        source,
        source_title(source, filename),
        frozen(jac.value),
        frozen(sigma),
        rounded,
        frozen(covariance),
        MappingProxyType({n: jac.point[n] for n in names}),
        MappingProxyType(sigmas_out),
        MappingProxyType(shares),
        correlation,
        (*jac.notes, *jac.warnings, *warnings),
        sampled,
    )


def _first_order_blind(sigma, sigma_in, shape, offer: bool) -> tuple[Diagnostic, ...]:
    """A warning when an output's σ is 0 though some input's is not: its derivatives
    along the uncertain inputs vanish (a stationary point of f, or f does not depend
    on them), where first order sees nothing of the spread; ``offer`` the check."""
    zero = np.flatnonzero(np.reshape(sigma, -1) == 0)
    if not zero.size or not np.any(sigma_in > 0):
        return ()
    which = (
        "σ_f"
        if not shape
        else "the σ of "
        + ", ".join(entry_labels("f", shape)[i] for i in zero[:5])
        + (" and more" if zero.size > 5 else "")
    )
    message = (
        f"{which} is 0 to first order: the derivatives along the uncertain inputs are 0 here "
        "(a stationary point, or f does not depend on them), where first order sees nothing "
        "of their spread"
    )
    if offer:
        message += "; --monte-carlo 100000 samples the inputs instead"
    return (Diagnostic("warning", message),)


#: Draws of the inputs evaluated at a time, at most (their numbers): memory stays bounded.
_SAMPLED_NUMBERS = 2**20


def _monte_carlo(
    source, fixed, names, shapes, point, sigma_in, correlation, count, shape, settings
):
    """The output's mean and σ over ``count`` draws of the inputs, normal about ``point``
    with σ ``sigma_in`` (and ``correlation``), each block of draws evaluated at once."""
    outputs = int(np.prod(shape, dtype=np.int64))
    if count * max(outputs, sigma_in.size, 1) > settings["max_elements"]:
        raise GradcliError(
            f"--monte-carlo {count}: {count} samples of {max(outputs, sigma_in.size)} numbers "
            f"are more than --max-elements {settings['max_elements']}"
        )
    root = None
    if correlation is not None:
        # R = root rootᵀ; a semi-definite R (a perfect correlation) has zero eigenvalues.
        eigenvalues, vectors = np.linalg.eigh(correlation)
        root = vectors * np.sqrt(np.clip(eigenvalues, 0, None))
    rng = np.random.default_rng(settings["seed"])
    step = max(1, _SAMPLED_NUMBERS // max(sigma_in.size, outputs, 1))
    columns = np.cumsum([0, *(int(np.prod(shapes[n], dtype=np.int64)) for n in names)])
    found = []
    for start in range(0, count, step):
        k = min(step, count - start)
        z = rng.standard_normal((k, sigma_in.size))
        if root is not None:
            z = z @ root.T
        draws = point + z * sigma_in
        batch = {
            n: draws[:, a:b].reshape(k, *shapes[n])
            for n, a, b in zip(names, columns[:-1], columns[1:])
        }
        result = many_points.points("eval", source, fixed, batch, **settings)
        found.append(np.asarray(result.arrays["value"], dtype=np.float64).reshape(k, -1))
    values = np.concatenate(found)
    with np.errstate(all="ignore"):
        # Scaled, so that 1e300 ± 1e298 neither overflows nor underflows when squared.
        scale = np.max(np.abs(np.where(np.isfinite(values), values, 0)), axis=0, initial=0)
        scale = np.where(scale > 0, scale, 1)
        mean = np.mean(values / scale, axis=0) * scale
        sigma = np.std(values / scale, axis=0, ddof=1) * scale
    mean, sigma = mean.reshape(shape), sigma.reshape(shape)
    return MonteCarlo(count, frozen(mean), frozen(sigma), _rounded_all(mean, sigma))


def _scaled_rows(matrix: np.ndarray, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of ``J diag(σ)`` as ``scaled[i] * 2**exponent[i]``, its largest entry
    between 1/4 and 1: the products are formed from mantissas and exponents, so
    that J times σ neither overflows nor underflows when σ_f is a float64."""
    j_mantissa, j_exponent = np.frexp(matrix)
    s_mantissa, s_exponent = np.frexp(sigma)
    mantissa = j_mantissa * s_mantissa  # inf or nan for a non-finite derivative
    powers = j_exponent + s_exponent
    present = mantissa != 0
    lowest = np.iinfo(powers.dtype).min
    exponent = np.where(present, powers, lowest).max(axis=1, initial=lowest)
    exponent = np.where(present.any(axis=1), exponent, 0)  # a row of zeros: σ_f = 0
    # Entries far below a row's largest underflow to 0 here: they are below its last digit.
    return np.ldexp(mantissa, powers - exponent[:, None]), exponent


def _quadratic(scaled: np.ndarray, correlation: np.ndarray | None) -> np.ndarray:
    """``a R aᵀ`` of each row ``a`` (``R`` the identity when None)."""
    if correlation is None:
        return np.einsum("ij,ij->i", scaled, scaled)
    return np.einsum("ij,jk,ik->i", scaled, correlation, scaled)


def _out_of_range(values: np.ndarray, scaled: np.ndarray) -> bool:
    """Whether a finite nonzero ``scaled`` became inf or 0 when scaled to ``values``."""
    finite = np.isfinite(scaled)
    return bool(np.any(finite & np.isinf(values)) or np.any(finite & (scaled != 0) & (values == 0)))


def _share(part, variance):
    return np.where(variance > 0, part / np.where(variance > 0, variance, 1), 0.0)


def _sigmas(given: Mapping, names, jac) -> np.ndarray:
    """σ of every input entry, from each named input's σ (0 for the others)."""
    for name in given:
        if name not in names:
            if name in jac.point:
                raise GradcliError(f"--sigma {name}: {name} is not differentiable")
            raise GradcliError(f"--sigma {name}: {no_such_input(name, names)}")
    parts = []
    for name in names:
        shape = jac.shapes[name]
        if name not in given:
            parts.append(np.zeros(int(np.prod(shape, dtype=int))))
            continue
        sigma = given[name]
        relative = _PERCENT.match(sigma) if isinstance(sigma, str) else None
        if relative is not None:
            # Of each entry's own size: 1% of [2, -4] is [0.02, 0.04].
            value = np.abs(np.asarray(jac.point[name], dtype=np.float64))
            sigma = value * (float(relative["percent"]) / 100)
        elif isinstance(sigma, str):
            sigma = parse_value(sigma, name=f"the σ of {name}")
        sigma = np.asarray(sigma, dtype=np.float64)
        try:
            sigma = np.broadcast_to(sigma, shape)
        except ValueError:
            raise GradcliError(
                f"the σ of {name} has shape {sigma.shape}, but {name} has shape {shape}"
            ) from None
        if not np.all(np.isfinite(sigma)) or np.any(sigma < 0):
            raise GradcliError(f"the σ of {name} must be finite and not negative")
        parts.append(sigma.reshape(-1))
    return np.concatenate(parts) if parts else np.zeros(0)


def _covariance_file(path: str, names, shapes, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The σ of every input entry and their correlation matrix R, Σ = diag(σ) R diag(σ):
    propagated so, no σ is squared."""
    covariance = np.asarray(load_file(path, name="--cov"), dtype=np.float64)
    labels = [label for n in names for label in entry_labels(n, shapes[n])]
    if size == 1 and covariance.size == 1:
        covariance = covariance.reshape(1, 1)
    if covariance.shape != (size, size):
        raise GradcliError(
            f"--cov {path}: the covariance has shape {covariance.shape}, but the inputs have "
            f"{size} entries ({', '.join(labels)}): it must be {size} by {size}, in that order"
        )
    if not np.all(np.isfinite(covariance)) or not np.allclose(covariance, covariance.T):
        raise GradcliError(f"--cov {path}: a covariance matrix must be finite and symmetric")
    if np.linalg.eigvalsh(covariance).min() < -1e-12 * max(1.0, np.abs(covariance).max()):
        raise GradcliError(f"--cov {path}: a covariance matrix cannot have negative eigenvalues")
    sigma = np.sqrt(np.clip(np.diag(covariance), 0, None))
    # |Σ_ij| <= σ_i σ_j: dividing by one σ, then the other, stays in range.
    with np.errstate(all="ignore"):
        rows = np.divide(
            covariance, sigma[:, None], out=np.zeros_like(covariance), where=sigma[:, None] > 0
        )
        correlation = np.divide(
            rows, sigma[None, :], out=np.zeros_like(rows), where=sigma[None, :] > 0
        )
    return sigma, correlation


def _rounded_all(value: np.ndarray, sigma: np.ndarray):
    if value.ndim == 0:
        return rounded(float(value), float(sigma))
    return tuple(_rounded_all(v, s) for v, s in zip(value, sigma))


def rounded(value: float, sigma: float) -> str:
    """``value ± sigma`` as a lab report writes it: σ to one significant digit, two when
    that digit is 1, and the value to the same decimal place; ``(1.23 ± 0.04)e-07``
    for very small or large numbers."""
    if not (math.isfinite(value) and math.isfinite(sigma)):
        return f"{value} ± {sigma}"
    if sigma == 0:
        return f"{value!r} ± 0"
    # In decimal, from the floats' exact values: powers of ten as floats would
    # underflow (10.0**-324 is 0) or round for the subnormal σ of a tiny result.
    with localcontext() as context:
        context.prec = 800  # more digits than any float's exact decimal value
        v, s = Decimal(value), Decimal(sigma)
        exponent = s.adjusted()  # of σ's first digit
        if _round(s.scaleb(-exponent), 0) >= 10:  # 0.096 rounds to 0.1: one digit up
            exponent += 1
        digits = 2 if _round(s.scaleb(-exponent), 1) < 2 else 1
        place = exponent - digits + 1  # the decimal place of σ's last digit
        largest = max(abs(value), sigma)
        scale = Decimal(largest).adjusted() if largest >= 1e6 or largest < 1e-4 else 0
        while True:
            # Negative for a σ of tens or more: 123456 ± 789 is 123500 ± 800.
            decimals = scale - place
            shown_v = _round(v.scaleb(-scale), decimals)
            shown_s = _round(s.scaleb(-scale), decimals)
            # 9.88e-24 rounds to 10e-24 at its own scale: it is 1.0e-23.
            if scale == 0 or max(abs(shown_v), shown_s) < 10:
                break
            scale += 1
    if shown_v == 0:
        shown_v = shown_v.copy_abs()  # no -0.0
    shown = max(decimals, 0)
    text = f"{shown_v:.{shown}f} ± {shown_s:.{shown}f}"
    return f"({text})e{scale:+03d}" if scale else text


def _round(number: Decimal, decimals: int) -> Decimal:
    """``number`` to ``decimals`` places (tens, hundreds when negative), ties to even
    as ``round`` rounds floats."""
    return number.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)


def _blind(arrays) -> np.ndarray:
    """The rows of many points whose σ is 0 to first order though an input's is not."""
    rows = len(arrays["sigma"])
    zero = (np.asarray(arrays["sigma"]).reshape(rows, -1) == 0).any(axis=1)
    spread = np.zeros(rows, dtype=bool)
    for name, a in arrays.items():
        if name.startswith("inputs.") and name.endswith(".sigma"):
            spread |= (np.asarray(a).reshape(rows, -1) > 0).any(axis=1)
    return zero & spread


def _blind_said(fields) -> str:
    sampled = fields["arguments"].get("monte_carlo")
    offer = "" if sampled else "; --monte-carlo 100000 samples the inputs"
    return (
        f"warning: at {fields['count']} of {fields['rows']} points σ is 0 to first order (a "
        f"stationary point, or f does not depend on the uncertain inputs){offer}"
    )


COMMANDS = (
    Command(
        "propagate",
        propagate,
        """First-order propagation of uncertainties: sigma_f^2 = J Sigma J^T. A
        binding may carry its uncertainty: --L "1.00±0.01" or --L 1.00+-0.01, or
        a relative one, --L "1.00±1%". Values are numbers: gradcli has no units.
        Prints f ± sigma_f rounded as a lab report would, each input's share of
        the variance and, for a vector output, its covariance matrix.

        \b
        Example:
          $ gradcli propagate "4*pi**2*L/T**2" --L 1.00+-0.01 --T 2.00+-0.02 --format plain
          value 9.869604401089358
          sigma 0.22069106351866907
          rounded 9.9 ± 0.2
          inputs.L.value 1
          inputs.L.sigma 0.01
          inputs.T.value 2
          inputs.T.sigma 0.02
          shares.L 0.19999999999999998
          shares.T 0.7999999999999999

        Many points (--over, --points FILE): a row each, sigma and the shares:

        \b
          $ gradcli propagate "x**2" --over x=1:3:3 --sigma x=0.1 --format csv
          x,value,sigma,inputs.x.sigma,shares.x
          1,1,0.2,0.1,1
          2,4,0.4,0.1,1
          3,9,0.6000000000000001,0.1,1
        """,
        (
            Option(
                "sigma",
                "The standard uncertainty of input X (repeatable; a number, one per entry, or"
                " relative: X=1%).",
                kind="assignments",
                metavar="X=S",
                parameter="sigmas",
            ),
            Option(
                "cov",
                "The covariance of all inputs' entries, in order (.npy, .csv, .txt, .json).",
                metavar="FILE",
            ),
            Option(
                "monte-carlo",
                "Also the output's mean and sigma over N normal draws of the inputs (--seed):"
                " a check of first order where f is curved over their spread.",
                kind="int",
                metavar="N",
                minimum=2,
            ),
        ),
        points=True,
        flagged=Flagged(_blind, _blind_said),
    ),
)
