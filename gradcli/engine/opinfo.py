"""Each op's sample inputs and its declared differences from PyTorch (as PyTorch's OpInfo).

An entry of the op table (``optable``) may declare, beside its rules:

- ``samples=(Sample(...), ...)``: sample calls of its own, added to the ones of
  its kind (``samples_of``); one with the name of a kind's sample replaces it.
- ``special=(...)``: points of its own where it is singular without being a kink
  (a pole of log at 0, the ends of asin), beside its ``kink_at`` check's points.
- ``differs=(Difference(...), ...)``: each deliberate difference from PyTorch,
  with the samples and transformations where it shows.

The samples of a kind (``samples_of``) are built from the entry's schema and
``domain``: 0-d, one element and empty inputs, broadcast operands, a Python
number as an operand, every optional parameter passed by position and by
keyword, negative and positive dims, the 1e-300 and 1e300 scales, and one
sample per special point (the kink points of ``kink_at``, ``special``, and
±0, ±inf and nan). The op-sample matrix of the tests, the fuzzers and
``gradcli functions`` read these; nothing else lists them. Nothing here runs
at start-up: samples are built when asked for.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from gradcli.engine import opsamples
from gradcli.engine.declared_samples import (  # noqa: F401  (the tests read them here)
    TRANSFORMS,
    Difference,
    Sample,
)

#: Points every differentiable op meets: signed zeros, infinities and nan.
UNIVERSAL = (0.0, -0.0, math.inf, -math.inf, math.nan)
SCALES = (1e-300, 1e300)

# Each domain: rng, shape -> float64 array (away from the op's kinks and poles).
DOMAINS = {
    "real": lambda rng, shape: rng.uniform(-1.0, 1.0, shape),
    "positive": lambda rng, shape: rng.uniform(0.5, 2.0, shape),
    "unit": lambda rng, shape: rng.uniform(-0.8, 0.8, shape),
    "above_one": lambda rng, shape: rng.uniform(1.2, 3.0, shape),
    "nonzero": lambda rng, shape: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 1.0, shape),
    "off_integers": lambda rng, shape: rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.4, shape),
    "distinct": lambda rng, shape: (
        rng.permutation(int(np.prod(shape))) * 0.25 + rng.uniform(0, 0.1, int(np.prod(shape)))
    ).reshape(shape),
    "well_conditioned": lambda rng, shape: 2 * np.eye(shape[-1]) + rng.uniform(-0.5, 0.5, shape),
    "mask": lambda rng, shape: rng.uniform(size=shape) > 0.5,
    "probability": lambda rng, shape: rng.uniform(0.1, 0.9, shape),
}

#: The value a kind's samples pass for an optional parameter, by its name.
PARAMETERS = {
    "dim": -1, "keepdim": True, "p": 3, "correction": 0, "beta": 2.0, "threshold": 3.0,
    "decimals": 1, "negative_slope": 0.2, "alpha": 0.5, "approximate": "tanh",
    "dim0": 0, "dim1": -1, "dim2": 0, "start_dim": 0, "end_dim": -1, "offset": 1,
    "descending": True, "stable": True, "largest": False, "sorted": True, "diagonal": 1,
    "UPLO": "U", "reduction": "sum", "left": False, "label_smoothing": 0.1, "dtype": "float64",
    "m": 3, "step": 0.5,
}  # fmt: skip


def shape(*dims) -> tuple:
    return tuple(dims)


@dataclass(frozen=True)
class Built:
    """A sample made concrete: input arrays (or numbers), and how to call the op."""

    entry: object
    sample: Sample
    values: tuple

    @property
    def name(self):
        return self.sample.name

    def arguments(self, wrap):
        params = self.entry.schema.params
        n = len(self.values)
        inputs = [wrap(v, i) for i, v in enumerate(self.values)]
        args, kwargs = [], {}
        # Python takes no keyword before a *variadic: reshape(x, 2, 3) names no input.
        # (einsum's operands are its inputs, each a value of ``*operands``.)
        variadic = any(
            p.variadic and (p.name in self.sample.params or i < n) for i, p in enumerate(params)
        )
        if self.sample.keywords and not variadic:
            kwargs.update({p.name: x for p, x in zip(params[:n], inputs)})
        else:
            args = inputs
        given, positional = self.sample.params, not self.sample.keywords
        for p in params[n:]:
            if p.name not in given:
                positional = False  # a parameter left out: the ones after it go by keyword
                continue
            value = given[p.name]
            if isinstance(value, np.ndarray):
                value = wrap(value, None)  # an index or a weight: a tensor without gradient
            if p.variadic:
                args.extend(value)
            elif positional and not p.keyword_only:
                args.append(value)
            else:
                kwargs[p.name] = value
        return args, kwargs


def _domain(entry, i):
    names = [d for d in (entry.domain or ()) if isinstance(d, str)]
    return names[i] if i < len(names) else "real"


def _domain_params(entry):
    return next((d for d in (entry.domain or ()) if isinstance(d, dict)), {})


def _materialize(entry, sample: Sample) -> Built:
    rng = np.random.default_rng(zlib.crc32(f"{entry.name} {sample.name}".encode()))
    values = []
    for i, spec in enumerate(sample.inputs):
        if isinstance(spec, tuple):
            values.append(np.asarray(DOMAINS[_domain(entry, i)](rng, spec)))
        elif isinstance(spec, opsamples.Drawn):
            values.append(np.asarray(DOMAINS[spec.domain](rng, spec.shape)))
        elif isinstance(spec, opsamples.Tensors):
            draw = DOMAINS[_domain(entry, i)]
            values.append(opsamples.Tensors(tuple(draw(rng, s) for s in spec.shapes)))
        elif isinstance(spec, np.ndarray):
            values.append(spec)  # integer indices or a mask stay as they are
        elif isinstance(spec, list):
            values.append(np.asarray(spec, dtype=float if _is_float(spec) else None))
        else:
            values.append(spec)  # a Python number as the operand
    return Built(entry, sample, tuple(values))


def _is_float(spec):
    return np.asarray(spec).dtype.kind in "fiu" and np.asarray(spec).dtype.kind != "b"


def _inputs_of(entry):
    return [p for p in entry.schema.params[: entry.schema.n_inputs]]


def _optional(entry):
    """The optional parameters with a value for the kind's samples: the domain's, else
    PARAMETERS's."""
    given = _domain_params(entry)
    found = {}
    for p in entry.schema.params[entry.schema.n_inputs :]:
        if p.variadic or p.required:
            continue
        if p.name in given:
            found[p.name] = given[p.name]
        elif p.name in PARAMETERS and p.name != "dim":
            found[p.name] = PARAMETERS[p.name]
    return found


def _required(entry):
    given = _domain_params(entry)
    return {
        p.name: given.get(p.name, PARAMETERS.get(p.name))
        for p in entry.schema.params[entry.schema.n_inputs :]
        if p.required
    }


def n_inputs(entry) -> int:
    """How many inputs the samples give: the domain's names (clamp's bounds are
    parameters there), else the schema's tensor inputs."""
    names = [d for d in (entry.domain or ()) if isinstance(d, str)]
    return len(names) if names else entry.schema.n_inputs


def _elementwise(entry, n):
    base = shape(2, 3)
    req = _required(entry)
    both = {**req, **_optional(entry)}
    found = [Sample("2-d", [base] * n, req)]
    if both != req:
        found.append(Sample("positional", [base] * n, both))
    found += [
        Sample("keywords", [base] * n, both, keywords=True),
        Sample("0-d", [()] * n, req),
        Sample("one element", [(1,)] * n, req),
        Sample("empty", [(0,)] * n, req),
        Sample("1-d", [(3,)] * n, req),
    ]
    if n == 2:
        found += [
            Sample("broadcast", [(2, 1, 3), (4, 1)], req),
            Sample("broadcast 0-d", [(2, 3), ()], req),
            Sample("broadcast empty", [(2, 0), (1,)], req),
            Sample("broadcast rows", [(2, 3), (3,)], req),
            Sample("broadcast columns", [(2, 3), (2, 1)], req),
            Sample("broadcast outer", [(3, 1), (1, 4)], req),
            Sample("broadcast column and row", [(3, 1), (2,)], req),
        ]
        kinds = [p.type for p in _inputs_of(entry)]
        if "Number" in kinds[1]:
            found.append(Sample("number other", [(2, 3), 0.75], req))
            found.append(Sample("1-d, number other", [(3,), 0.75], req))
        if "Number" in kinds[0]:
            found.append(Sample("number input", [0.75, (2, 3)], req))
            found.append(Sample("number input, 1-d", [0.75, (3,)], req))
    return found


def _reduction(entry):
    names = entry.schema.names
    req = _required(entry)
    found = [Sample("2-d", [(2, 3)], req), Sample("one element", [(1,)], req)]
    if "dim" in names:
        several = "int[]" in next(p.type for p in entry.schema.params if p.name == "dim")
        found += [
            Sample("dim -1", [(2, 3)], {**req, "dim": -1}),
            Sample("dim 0", [(2, 3)], {**req, "dim": 0, **_optional(entry)}),
            Sample("keywords", [(2, 3)], {**req, "dim": 1, **_optional(entry)}, keywords=True),
            Sample("0-d dim 0", [()], {**req, "dim": 0}),
            Sample("0-d dim -1", [()], {**req, "dim": -1}),
            Sample("empty dim 0", [(0, 2)], {**req, "dim": 0}),
        ]
        if several:
            found.append(Sample("dims", [(2, 3, 2)], {**req, "dim": [0, -1]}))
        if req.get("dim") is None:
            found += [Sample("0-d", [()], req), Sample("empty", [(0,)], req)]
    else:
        found += [Sample("0-d", [()], req), Sample("empty", [(0,)], req)]
    return [s for s in found if all(v is not None for k, v in s.params.items() if k in req)]


#: The samples of each kind, from the entry: ``kind -> entry -> [Sample]``.
BY_KIND = {
    "elementwise": lambda e: _elementwise(e, n_inputs(e)),
    "binary": lambda e: _elementwise(e, n_inputs(e)),
    "reduction": _reduction,
}
#: The kinds whose calls are listed op by op (``opsamples``).
LISTED = ("shape", "linalg", "loss", "constructor", "conversion", "random", "other")


def kink_points(entry) -> tuple:
    """Where ``entry`` is not differentiable or is singular: its ``kink_at`` check's
    points and its ``special`` ones."""
    check = entry.kink_at
    return tuple(getattr(check, "points", ())) + tuple(entry.special)


def _special_points(entry):
    seen, points = set(), []
    for p in (*kink_points(entry), *UNIVERSAL):
        key = repr(p) if not isinstance(p, float) or not math.isnan(p) else "nan"
        if key not in seen:
            seen.add(key)
            points.append(p)
    return points


def _point_name(p):
    if isinstance(p, str):
        return f"at {p}"
    return "at " + ("-0" if p == 0 and math.copysign(1, p) < 0 else f"{p:g}")


def _on_point(built: Built, point, inputs: range, params) -> Built | None:
    """``built`` with one entry of each input in ``inputs`` moved onto ``point``."""
    values = [np.array(v, dtype=float) if isinstance(v, np.ndarray) else v for v in built.values]
    for i in inputs:
        flat = values[i].reshape(-1)
        if point == "tie":
            flat[1] = flat[0]
        elif point == "bound":
            bound = next((v for v in params.values() if v is not None), None)  # clamp's
            if bound is None:
                return None
            flat[1] = bound
        elif point == "zeros":
            flat[:] = 0.0
        else:
            flat[1] = 0.0 if point == "origin" else point
    return Built(built.entry, built.sample, tuple(values))


def _specials(entry, n):
    """One sample per special point, one per differentiable input it can sit in, and
    the extreme scales."""
    req = {**_required(entry), **_domain_params(entry)}
    req = {k: v for k, v in req.items() if k in entry.schema.names}
    base = Sample("special", [(2, 3)] * n, req, special=True)
    built = _materialize(entry, base)
    found = []
    for point in _special_points(entry):
        where = (
            [range(n)]
            if point in ("origin", "tie") and n > 1
            else [range(i, i + 1) for i in range(n)]
        )
        for inputs in where:
            suffix = "" if n == 1 or len(inputs) > 1 else f" ({entry.schema.names[inputs[0]]})"
            moved = _on_point(built, point, inputs, req)
            if moved is not None:
                sample = Sample(_point_name(point) + suffix, base.inputs, req, special=True)
                found.append(Built(entry, sample, moved.values))
    for scale in SCALES:
        sample = Sample(f"scale {scale:g}", base.inputs, req, special=True)
        values = tuple(v * scale if i == 0 else v for i, v in enumerate(built.values))
        found.append(Built(entry, sample, values))
    return found


def samples_of(entry) -> list[Built]:
    """Every sample of ``entry``: its kind's, then its own (an own sample replaces the
    kind's of the same name), then one per special point."""
    by_kind = BY_KIND.get(entry.kind)
    own = list(entry.samples or ())
    n = n_inputs(entry)
    kind = by_kind(entry) if by_kind and n else [Sample(*s) for s in opsamples.of(entry)]
    names = {s.name for s in own}
    chosen = [s for s in kind if s.name not in names] + own
    built = [_materialize(entry, s) for s in chosen]
    if entry.differentiable and n and by_kind and kind:
        built += [b for b in _specials(entry, n) if b.name not in names]
    return built


def differences(entry, sample: str, transform: str) -> tuple[Difference, ...]:
    """The declared differences of ``entry`` that show at ``sample`` under ``transform``."""
    return tuple(d for d in entry.differs if sample in d.samples and transform in d.transforms)
