"""``fit`` keeps the models it compiled (``analysis/fit_residuals.py``'s ``COMPILED``): a
second fit of one model to the same data compiles nothing, and gives what a fresh fit
gives, bit for bit; other data, another model or other bound values are never served
what was kept for the first. The fits are anchored on NIST's certified values."""

from __future__ import annotations

import threading

import nist
import numpy as np
import pytest

from gradcli.analysis.fit_residuals import COMPILED
from gradcli.analysis.fitting import fit


@pytest.fixture(autouse=True)
def emptied():
    COMPILED.clear()
    yield
    COMPILED.clear()


def exactly(report) -> tuple:
    """Everything a fit reports, numbers as float hex."""

    def hexes(a):
        return tuple(float(v).hex() for v in np.ravel(a))

    return (
        {n: (np.shape(v), hexes(v)) for n, v in report.parameters.items()},
        {n: hexes(v) for n, v in report.standard_errors.items()},
        float(report.rss).hex(),
        hexes(report.covariance),
        hexes(report.fitted),
        report.evaluations,
        report.message,
        report.converged,
        report.warnings,
    )


def fresh(*args, **kwargs):
    """The fit with nothing kept before it, and nothing kept after."""
    COMPILED.clear()
    try:
        return fit(*args, **kwargs)
    finally:
        COMPILED.clear()


@pytest.fixture(scope="module")
def misra():
    problem = nist.read("Misra1a")
    return problem, {"x": problem.x, "y": problem.y}


def test_a_second_fit_from_either_start_is_the_fresh_fit(misra):
    problem, data = misra
    first = fit(problem.model, data=data, params=problem.starts[0])
    assert (COMPILED.hits, COMPILED.misses, len(COMPILED)) == (0, 1, 1)
    for start in problem.starts:  # multi-start: the same model, other starting values
        fit(problem.model, data=data, params=problem.starts[0])
        hits = COMPILED.hits
        again = fit(problem.model, data=data, params=start)
        assert COMPILED.hits == hits + 1
        assert exactly(again) == exactly(fresh(problem.model, data=data, params=start))
    # NIST's certified values, to 6 digits (tests/test_using_fit.py asks the same).
    for name in problem.params:
        value, error = (float(first.parameters[name]), float(first.standard_errors[name]))
        assert nist.digits(value, problem.certified[name]) >= 6
        assert nist.digits(error, problem.certified_sd[name]) >= 6
    assert nist.digits(first.rss, problem.rss) >= 6


def test_other_data_or_another_model_is_fitted_afresh(misra):
    problem, data = misra
    fit(problem.model, data=data, params=problem.starts[1])
    # One predictor value changed by one unit in the last place: other columns.
    moved = data["x"].copy()
    moved[3] = np.nextafter(moved[3], np.inf)
    start = problem.starts[1]
    cases = [
        (problem.model, {"x": moved, "y": data["y"]}, None, start),
        ("b1*(1-exp(-b2*x)) + 0", data, None, start),
        ("b1*(1-exp(-b2*x)) + c", data, {"c": 0.5}, start),
        ("b1*(1-exp(-b2*x)) + c", data, {"c": 0.25}, start),
        # A parameter of another shape: a vector of one entry.
        (problem.model, data, None, {"b1": start["b1"], "b2": [start["b2"]]}),
    ]
    found = []
    for model, columns, bindings, params in cases:
        misses = COMPILED.misses
        found.append(fit(model, bindings, data=columns, params=params))
        assert COMPILED.misses == misses + 1, (model, bindings, params)
    for (model, columns, bindings, params), report in zip(cases, found):
        expected = fresh(model, bindings, data=columns, params=params)
        assert exactly(report) == exactly(expected), (model, bindings, params)


def test_columns_changed_in_place_after_a_fit_are_not_the_kept_ones(misra):
    problem, data = misra
    x = data["x"].copy()
    fit(problem.model, data={"x": x, "y": data["y"]}, params=problem.starts[1])
    x *= 2  # the caller's array, changed where it is
    again = fit(problem.model, data=data, params=problem.starts[1])  # the first x's values
    assert COMPILED.hits == 1
    assert exactly(again) == exactly(fresh(problem.model, data=data, params=problem.starts[1]))
    assert nist.digits(float(again.parameters["b1"]), problem.certified["b1"]) >= 6


def test_another_response_reuses_the_model_and_fits_its_own_rows(misra):
    problem, data = misra
    fit(problem.model, data=data, params=problem.starts[1])
    # y doubled: the model and its columns are the same, so it is kept; the fit is of
    # the new rows (b1 doubles, b2 stays: 2*b1*(1-exp(-b2*x)) fits 2y exactly as before).
    doubled = {"x": data["x"], "y": 2 * data["y"]}
    found = fit(problem.model, data=doubled, params={"b1": 500.0, "b2": 5e-4})
    assert COMPILED.hits == 1
    assert exactly(found) == exactly(
        fresh(problem.model, data=doubled, params={"b1": 500.0, "b2": 5e-4})
    )
    np.testing.assert_allclose(
        float(found.parameters["b1"]), 2 * problem.certified["b1"], rtol=1e-6
    )
    np.testing.assert_allclose(float(found.parameters["b2"]), problem.certified["b2"], rtol=1e-6)


def test_the_store_is_bounded_and_keeps_no_large_data(misra, monkeypatch):
    problem, data = misra
    for k in range(COMPILED.entries + 3):
        fit(f"b1*(1-exp(-b2*x)) + {k}", data=data, params=problem.starts[1])
    assert len(COMPILED) == COMPILED.entries
    COMPILED.clear()
    monkeypatch.setattr(COMPILED, "largest", data["x"].nbytes - 1)
    fit(problem.model, data=data, params=problem.starts[1])
    assert len(COMPILED) == 0


def test_fits_in_threads_share_the_store_and_give_the_fresh_fits(misra):
    problem, data = misra
    expected = [exactly(fresh(problem.model, data=data, params=s)) for s in problem.starts]
    found, errors = {}, []

    def fitting(k):
        try:
            for _ in range(5):
                report = fit(problem.model, data=data, params=problem.starts[k % 2])
                found.setdefault(k, []).append(exactly(report))
        except Exception as error:  # a thread's error fails the test below
            errors.append(error)

    threads = [threading.Thread(target=fitting, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k, reports in found.items():
        assert reports == [expected[k % 2]] * 5
