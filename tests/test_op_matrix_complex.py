"""The op-sample matrix in complex numbers: every entry × each of its samples with an
imaginary part added to its floating-point inputs × value, gradient and second
derivative of a real output, against PyTorch 2.13 in complex128 (``complex_matrix.py``).

Each case agrees at rtol 1e-9 (the dtype too), or both raise, or gradcli refuses by the
entry's name where the entry is declared unsupported below (``UNSUPPORTED``), or it
differs where a difference is declared (``DIFFERS``, and the real matrix's declarations
of a call that PyTorch refuses): there it must differ, so a declaration cannot outlive
its cause.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle of complex derivatives")

import complex_matrix  # noqa: E402  (needs torch)
import op_matrix  # noqa: E402

from gradcli.engine import opinfo, ops  # noqa: E402

pytestmark = [
    pytest.mark.usefixtures("float64"),
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.filterwarnings("ignore::UserWarning"),
]

#: The entries PyTorch runs with complex input that gradcli refuses by name, with why.
UNSUPPORTED = {
    "rand_like": "complex random numbers (PyTorch's stream of them)",
    "randn_like": "complex random numbers (PyTorch's stream of them)",
}
#: (entry, sample, transforms): where gradcli differs on purpose, and why.
DIFFERS = {
    ("var", "one~element 0-d 0-d~dim~0 0-d~dim~-1", "grad grad2"): "no degrees of freedom "
    "left: a nan gradient in both parts (PyTorch: a nan real part, a 0 imaginary one)",
    ("std", "one~element 0-d 0-d~dim~0 0-d~dim~-1", "grad grad2"): "as var",
    ("sum", "dim~0 keywords", "value grad grad2"): "a real dtype would drop the imaginary part: "
    "refused (PyTorch casts, with a warning)",
    ("mean", "dim~0 keywords", "value grad grad2"): "as sum",
    ("prod", "dim~0 keywords", "value grad grad2"): "as sum",
    ("isclose", "number~other 1-d,~number~other", "value"): "a complex tensor and a real "
    "number compare (PyTorch's isclose wants one dtype)",
    ("allclose", "number~other 1-d,~number~other", "value"): "as isclose",
}


def _declared(entry, sample, transform):
    for (op, samples, transforms), why in DIFFERS.items():
        at = [name.replace("~", " ") for name in samples.split()]
        if op == entry and sample in at and transform in transforms.split():
            return why
    return None


def _cases():
    for entry in ops.OPS.values():
        if not op_matrix.has_reference(entry) or entry.name in op_matrix.MPMATH:
            continue
        for built in op_matrix.samples_of(entry):
            if built.sample.special:
                continue  # ±0, inf and nan have conventions of their own in complex numbers
            complex_sample = complex_matrix.complexified(built)
            if complex_sample is None:
                continue
            for transform in complex_matrix.TRANSFORMS:
                yield pytest.param(
                    entry, complex_sample, transform,
                    id=f"{entry.name}-{built.name}-{transform}",
                )  # fmt: skip


CASES = list(_cases())
_FOUND: dict = {}


def _compare(built, transform):
    """``complex_matrix.compare``, once per case (the count below reads the value cases)."""
    key = (built.entry.name, built.name, transform)
    if key not in _FOUND:
        try:
            _FOUND[key] = complex_matrix.compare(built, transform)
        except op_matrix.NoReference as why:
            _FOUND[key] = why
    if isinstance(_FOUND[key], op_matrix.NoReference):
        raise _FOUND[key]
    return _FOUND[key]


@pytest.mark.parametrize("entry, built, transform", CASES)
def test_each_complex_sample_agrees_with_pytorch_complex128(entry, built, transform):
    try:
        outcome, detail = _compare(built, transform)
    except op_matrix.NoReference as why:
        pytest.skip(str(why))
    if opinfo.differences(entry, built.name, transform):
        return  # a call PyTorch refuses in real numbers too (the real matrix checks it)
    if entry.name in UNSUPPORTED and outcome != "agree":
        assert outcome in ("refused", "both raise") or detail.startswith("gradcli raises")
        return
    assert outcome != "refused", f"PyTorch takes complex {entry.name}: {detail}"
    declared = _declared(entry.name, built.name, transform)
    if declared:
        assert outcome == "differ", f"{entry.name} declares {declared} but agrees here"
    else:
        assert outcome in ("agree", "both raise"), detail


def test_the_declarations_name_entries_and_samples_of_the_matrix():
    names = {(p.values[0].name, p.values[1].name) for p in CASES}
    assert set(UNSUPPORTED) <= {e for e, _ in names}
    for op, samples, _ in DIFFERS:
        for sample in samples.split():
            assert (op, sample.replace("~", " ")) in names, (op, sample)


def test_every_unsupported_entry_refuses_somewhere_and_the_rest_take_complex_numbers():
    # The count the docs quote: the entries whose complex samples PyTorch runs, and gradcli
    # too. An unsupported one must still refuse one of them, or its declaration goes.
    outcomes: dict[str, set] = {}
    for param in CASES:
        entry, built, transform = param.values
        if transform != "value":
            continue
        try:
            outcome, detail = _compare(built, transform)
        except op_matrix.NoReference:
            continue
        refused = outcome == "refused" or (outcome == "differ" and "gradcli raises" in detail)
        outcomes.setdefault(entry.name, set()).add("refused" if refused else outcome)
    for name in UNSUPPORTED:
        assert "refused" in outcomes[name], name
    taking = {n for n, found in outcomes.items() if "agree" in found and n not in UNSUPPORTED}
    assert len(taking) >= 150, len(taking)
