"""The note before a derivative nobody sized: a Jacobian or Hessian over every input
(no --wrt) of more than ``LARGE_DERIVATIVE`` numbers names its largest input and what
the --wrt without it would hold."""

from __future__ import annotations

from .result import Diagnostic

LARGE_DERIVATIVE = 10**6


def large_derivative_note(s, derivative: str, count) -> None:
    """Said at once through ``s.announce`` when there is one, and kept in
    ``s.early_notes``. ``count(entries)``: how many numbers the derivative holds over
    that many input entries."""
    if not s.default_wrt or len(s.wrt) < 2:
        return  # asked for, or nothing to leave out
    sizes = {name: int(s.values[name].size) for name in s.wrt}
    total = sum(sizes.values())
    if count(total) <= LARGE_DERIVATIVE:
        return
    largest = max(s.wrt, key=sizes.get)
    rest = ",".join(n for n in s.wrt if n != largest)
    note = Diagnostic(
        "note",
        f"the {derivative} with respect to every input holds {count(total):,} numbers; "
        f"the largest input is {largest} ({sizes[largest]:,} of the {total:,} entries): "
        f"--wrt {rest} would hold {count(total - sizes[largest]):,}",
    )
    s.early_notes.append(note)
    if s.announce is not None:
        s.announce(note)
