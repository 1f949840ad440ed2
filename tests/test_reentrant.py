"""The library is reentrant: a computation owns its dtype and its random numbers.

Two threads computing different programs, in different dtypes with different
seeds, get exactly what each gets alone; and neither touches the process's
default dtype or random generator.
"""

from __future__ import annotations

import threading

import numpy as np

import gradcli
from gradcli import api

# Each draws random numbers, and the first computes in float32, the second in float64.
JOBS = {
    "float32": lambda: api.gradient(
        "sum(randn(4) * x**2) + mean(rand(3)) * x", {"x": 1.5}, dtype="float32", seed=1
    ),
    "float64": lambda: api.hessian(
        "sum(exp(x * rand(2))) + x / 3", {"x": 0.3}, dtype="float64", seed=2
    ),
}


def _arrays(result):
    from gradcli.core.result import leaves

    return {".".join(path): array for path, array in leaves(result.as_tree())}


def test_two_threads_get_what_each_gets_alone():
    alone = {name: _arrays(job()) for name, job in JOBS.items()}
    assert alone["float32"]["value"].dtype == np.float32
    assert alone["float64"]["value"].dtype == np.float64
    rounds = 30
    barrier = threading.Barrier(len(JOBS))
    seen = {name: [] for name in JOBS}
    failures = []

    def work(name):
        try:
            barrier.wait()
            for _ in range(rounds):
                seen[name].append(_arrays(JOBS[name]()))
        except Exception as err:  # reported below, with the thread's name
            failures.append((name, err))

    threads = [threading.Thread(target=work, args=(name,)) for name in JOBS]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    for name, results in seen.items():
        assert len(results) == rounds
        for arrays in results:
            assert arrays.keys() == alone[name].keys()
            for key, array in arrays.items():
                assert array.dtype == alone[name][key].dtype, (name, key)
                np.testing.assert_array_equal(array, alone[name][key], err_msg=f"{name} {key}")


def test_a_computation_leaves_the_process_state_alone():
    gradcli.manual_seed(123)
    expected = gradcli.rand(3)
    gradcli.manual_seed(123)
    before = gradcli.get_default_dtype()
    api.evaluate("randn(2) * x", {"x": 1}, dtype="float64", seed=9)
    assert gradcli.get_default_dtype() == before
    np.testing.assert_array_equal(gradcli.rand(3).numpy(), expected.numpy())


def test_grad_mode_is_per_thread():
    inside = []

    def other_thread():
        inside.append(gradcli.is_grad_enabled())

    with gradcli.no_grad():
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        assert not gradcli.is_grad_enabled()
    assert inside == [True]


def test_a_generator_passed_in_draws_its_own_numbers():
    a = gradcli.randn(3, generator=gradcli.Generator().manual_seed(5))
    gradcli.manual_seed(0)
    b = gradcli.randn(3, generator=gradcli.Generator().manual_seed(5))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(
        a.numpy(), gradcli.randn(3, generator=gradcli.Generator().manual_seed(6)).numpy()
    )


def test_two_threads_have_their_own_limit_on_a_result_size():
    """--max-elements is the evaluation's: a thread with a small limit refuses what a
    thread with a large one, running at the same time, computes."""
    from gradcli.errors import GradcliError

    rounds = 30
    barrier = threading.Barrier(2)
    outcomes = {"small": [], "large": []}
    failures = []

    def small():
        barrier.wait()
        for _ in range(rounds):
            fits = api.evaluate("sum(ones(5) * x)", {"x": 2}, max_elements=10)
            try:
                api.evaluate("sum(ones(50) * x)", {"x": 2}, max_elements=10)
                outcomes["small"].append(("computed", float(fits.value)))
            except GradcliError as err:
                assert "more than the limit of 10" in str(err)
                outcomes["small"].append(("refused", float(fits.value)))

    def large():
        barrier.wait()
        for _ in range(rounds):
            outcomes["large"].append(float(api.evaluate("sum(ones(50) * x)", {"x": 2}).value))

    def run(work):
        try:
            work()
        except Exception as err:  # reported below
            failures.append(err)

    threads = [threading.Thread(target=run, args=(work,)) for work in (small, large)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert outcomes["large"] == [100.0] * rounds  # 50 * 2, under the default limit
    assert outcomes["small"] == [("refused", 10.0)] * rounds  # 5 * 2 fits; 50 numbers do not
    from gradcli.engine import limits

    assert limits.MaxElements.value == limits.DEFAULT_MAX_ELEMENTS
