"""What an op's declaration names beside its rules: its own sample calls and its
deliberate differences from PyTorch (see ``opinfo``, which builds and runs them).

Plain records, as the op modules make them when they load: the machinery that
builds samples (``opinfo``, ``opsamples``) loads only where samples are asked
for (the tests, the fuzzers, ``gradcli functions``), not at start-up.
"""

from __future__ import annotations

from ..record import Record

#: The transformations the op-sample matrix runs (``tests/test_op_matrix.py``).
TRANSFORMS = ("value", "grad", "grad2", "jvp", "jacobian", "hessian", "batched")


class Difference(Record):
    """A deliberate difference from PyTorch: ``where`` it shows (words), ``what`` gradcli
    gives there, ``why``; ``samples`` and ``transforms`` name the op-sample matrix's cases
    where it shows (the matrix expects the two to differ there, and only there)."""

    where: str
    what: str
    why: str
    samples: tuple = ()
    transforms: tuple = ()
    accepts: bool = False  # gradcli accepts a call that PyTorch refuses (its TypeError)

    def __str__(self):
        return f"{self.where}: {self.what} ({self.why})"


class Sample(Record):
    """One sample call: ``inputs`` (shapes drawn from the entry's domain, or values), then
    ``params`` by name; ``keywords`` passes everything by keyword (``input=x``)."""

    name: str
    inputs: tuple
    params: dict = None  # None: none, made {} for each sample
    keywords: bool = False
    special: bool = False  # on a special point: kink, pole, ±0, ±inf, nan, an extreme scale

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        fields = self.__dict__
        fields["inputs"] = tuple(fields["inputs"])
        if fields["params"] is None:
            fields["params"] = {}


class Drawn(Record):
    """An input drawn from a named domain of ``opinfo.DOMAINS``, whatever the entry's."""

    domain: str
    shape: tuple


class Raw(Record):
    """An argument passed as it is (a nested list, a NumPy array, an index tuple)."""

    value: object


class Tensors(Record):
    """A list of tensors (``stack``'s input), one per shape, drawn from the entry's domain."""

    shapes: tuple
