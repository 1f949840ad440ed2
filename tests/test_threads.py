"""The BLAS pools' threads fitted to the work (engine/threads.py): one thread for a run
and for a product of middle size, more for a large product when cores are idle, and
nothing changed when the user set the threads; read back through threadpoolctl's own
account of the loaded libraries."""

from __future__ import annotations

import numpy as np
import pytest
import threadpoolctl

import gradcli
from gradcli.engine import threads


def blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


@pytest.fixture
def unchosen(monkeypatch):
    for name in threads.USER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl controls is loaded")


def test_a_run_computes_on_one_thread_and_puts_the_pools_back(unchosen):
    before = blas_threads()
    with threads.run():
        assert set(blas_threads()) == {1}
        with threads.run():  # nested: the outer run's limit holds
            assert set(blas_threads()) == {1}
        assert set(blas_threads()) == {1}
    assert blas_threads() == before


def test_a_middle_sized_product_takes_one_thread_and_puts_the_pool_back(unchosen):
    before = blas_threads()
    seen = []
    with threads.for_product(threads.LARGE_PRODUCT - 1):
        seen = blas_threads()
    assert set(seen) == {1}
    assert blas_threads() == before


def test_a_large_product_takes_a_thread_for_each_idle_core(unchosen, monkeypatch):
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    widest = threads.pool_default()
    with threads.run():
        with threads.for_product(threads.LARGE_PRODUCT):
            inside = blas_threads()
        assert set(blas_threads()) == {1}
    assert set(inside) == {min(widest, 1 + len(threads.os.sched_getaffinity(0)))}
    # A machine whose cores are all busy: one thread, however large the product.
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (64.0, 64.0, 64.0))
    assert threads.spare_threads() == 1


def test_a_user_who_set_the_threads_keeps_them(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert threads.chosen_by_user()
    before = blas_threads()
    with threads.run():
        assert blas_threads() == before
        with threads.for_product(threads.LARGE_PRODUCT):
            assert blas_threads() == before
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert threads.chosen_by_user()


def test_a_small_product_is_left_alone():
    assert threads.for_product(threads.SMALL_PRODUCT - 1) is threads.for_product(0)


def test_the_product_is_numpys_whatever_the_threads(unchosen):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((300, 400)), rng.standard_normal((400, 200))
    product = gradcli.tensor(a) @ gradcli.tensor(b)
    np.testing.assert_allclose(product.numpy(), a @ b, rtol=1e-12, atol=1e-12)


def test_a_run_that_calls_scipy_holds_scipys_own_pool_too():
    # SciPy's LAPACK is a second OpenBLAS, loaded only when scipy.linalg is first
    # imported: a fresh interpreter sees it loaded inside the run, and held there.
    import subprocess
    import sys

    script = (
        "import threadpoolctl\n"
        "from gradcli.engine import threads\n"
        "with threads.run(scipy=True):\n"
        "    inside = {i['filepath']: i['num_threads'] for i in threadpoolctl.threadpool_info()"
        " if i['user_api'] == 'blas'}\n"
        "print(sorted(inside.values()), any('scipy.libs' in p for p in inside))\n"
    )
    environment = {
        k: v for k, v in __import__("os").environ.items() if k not in threads.USER_VARIABLES
    }
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=environment
    )
    assert done.returncode == 0, done.stderr
    counts, has_scipy = done.stdout.split("] ")
    assert set(counts.strip("[").split(", ")) == {"1"}
    if has_scipy.strip() != "True":
        pytest.skip("this SciPy shares NumPy's BLAS library")
