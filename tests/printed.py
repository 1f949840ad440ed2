"""What a command printed against what a page or ``--help`` says it prints.

Exact, but for two things that are not gradcli's and differ from machine to machine:
- a number of size at most 1e-12 on both sides: the round-off of a quantity that is
  zero in exact arithmetic (a gradient's norm at a minimum is 8.88e-16 on one machine
  and 9.93e-16 on another, as NumPy's SIMD loops and the BLAS kernel follow the CPU);
- SciPy's count of evaluations in an optimizer's report, which follows that round-off
  (25 on one machine, 22 on another, for the same parameters to 10 digits).
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_COUNT = re.compile(r"(?:\bevaluations (\d+)$|\b(\d+) evaluations\b)")
ROUND_OFF = 1e-12


def same_line(got: str, expected: str) -> bool:
    """Whether ``got`` is ``expected`` but for round-off numbers and evaluation counts."""
    if got == expected:
        return True
    got_count, expected_count = _COUNT.search(got), _COUNT.search(expected)
    if got_count and expected_count:  # any count, the rest of the line exact
        return _COUNT.sub("#", got) == _COUNT.sub("#", expected)
    if _NUMBER.split(got) != _NUMBER.split(expected):  # the text between the numbers
        return False
    pairs = zip(_NUMBER.findall(got), _NUMBER.findall(expected))
    return all(a == b or max(abs(float(a)), abs(float(b))) <= ROUND_OFF for a, b in pairs)


def assert_prints(got: list[str], expected: list[str], what: str = "") -> None:
    """``got`` line by line as ``expected`` (see the module's doc); exact where not."""
    if len(got) == len(expected) and all(map(same_line, got, expected)):
        return
    assert got == expected, what
