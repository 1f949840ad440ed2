"""The comparison of printed output with documented output (tests/printed.py)."""

from printed import same_line


def test_round_off_numbers_and_evaluation_counts_may_differ_nothing_else():
    row = "│ 3         │ 2.28571  │ -2.57143  │ -3.57143 │ {} │"
    assert same_line(row.format("9.93e-16"), row.format("8.88e-16"))
    assert same_line(
        "method: levenberg-marquardt, 22 evaluations", "method: levenberg-marquardt, 25 evaluations"
    )
    assert same_line("evaluations 22", "evaluations 25")
    assert not same_line(row.format("9.93e-12"), row.format("8.88e-16"))  # not round-off
    assert not same_line(row.replace("2.28571", "2.28572"), row)
    assert not same_line("iterations 22", "iterations 25")  # only SciPy's evaluations
    assert not same_line(
        "method: trust-exact, 22 evaluations", "method: levenberg-marquardt, 25 evaluations"
    )
    assert not same_line("|grad f|: 8.88e-16", "|grad f| 8.88e-16")
