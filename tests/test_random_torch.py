"""Random numbers against PyTorch 2.13: from the same seed, the same numbers to the bit.

Each case seeds both libraries alike, draws, and compares every element and then
the generators' 5056-byte states (so a case that drew the right numbers from the
wrong number of words fails too).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gradcli
import gradcli.nn.functional as gF

torch = pytest.importorskip(
    "torch", reason="PyTorch 2.13 is the test oracle; install torch==2.13.0"
)
tF = torch.nn.functional

SEEDS = (0, 1, 7, 42, 2**40 + 3, -1)
SIZES = (0, 1, 2, 15, 16, 17, 100)
DTYPES = (("float32", gradcli.float32, torch.float32), ("float64", gradcli.float64, torch.float64))

# PyTorch's float32 normal fill from 16 numbers up is its AVX2 kernel on x86.
avx2 = pytest.mark.skipif(
    torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"),
    reason="PyTorch takes its AVX2 normal kernel only on x86 CPUs with AVX2",
)
# On Intel CPUs PyTorch's bernoulli_(p: float) draws from MKL's generator instead.
intel = "GenuineIntel" in (
    Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
)
not_mkl = pytest.mark.skipif(intel, reason="PyTorch's bernoulli_(float) uses MKL on Intel CPUs")


def same(ours, theirs):
    ours = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    theirs = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    assert ours.dtype == theirs.dtype
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs, strict=True)


def same_state():
    same(gradcli.get_rng_state(), torch.get_rng_state())


def seed_both(seed):
    gradcli.manual_seed(seed)
    torch.manual_seed(seed)


def both(draw):
    """``draw(lib)`` in each library from the same seed, compared, then their states."""

    def run(seed):
        seed_both(seed)
        ours = draw(gradcli)
        theirs = draw(torch)
        same(ours, theirs)
        same_state()

    return run


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name, ours, theirs", DTYPES, ids=[d[0] for d in DTYPES])
@avx2
def test_rand_randn_and_fills_match_torch(seed, size, name, ours, theirs):
    def draws(lib):
        dt = ours if lib is gradcli else theirs
        out = [lib.randn(size, dtype=dt), lib.rand(size, dtype=dt), lib.randn(1, 2, dtype=dt)]
        out.append(lib.empty(size, dtype=dt).normal_(1.5, 0.7))
        out.append(lib.empty(size, dtype=dt).uniform_(-1.3, 2.7))
        out.append(lib.randn(3, dtype=dt))  # after an odd count: the cached second sample
        return lib.cat([o.reshape(-1) for o in out])

    both(draws)(seed)


@pytest.mark.parametrize("seed", (0, 3))
@pytest.mark.parametrize("name, ours, theirs", DTYPES, ids=[d[0] for d in DTYPES])
@avx2
def test_large_draws_match_torch(seed, name, ours, theirs):
    def draws(lib):
        dt = ours if lib is gradcli else theirs
        return lib.cat([lib.randn(10**5 + 3, dtype=dt), lib.rand(10**5, dtype=dt)])

    both(draws)(seed)


def test_the_first_randn_of_the_issue():
    gradcli.manual_seed(0)
    assert gradcli.randn(3).tolist() == pytest.approx([1.5410, -0.2934, -2.1788], abs=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_integers_and_permutations_match_torch(seed):
    def draws(lib):
        out = [lib.randint(0, 10, (50,)), lib.randint(-5, 3, (4, 4)), lib.randint(7, (3,))]
        out.append(lib.randint(0, 2**33, (20,)))  # 64-bit words from a range of 2**32 up
        out += [lib.randperm(n) for n in (0, 1, 2, 17, 1000)]
        return lib.cat([o.reshape(-1) for o in out])

    both(draws)(seed)


@pytest.mark.parametrize("seed", (0, 5, 2**40 + 3))
@pytest.mark.parametrize("replacement", (False, True))
@pytest.mark.parametrize("name, ours, theirs", DTYPES, ids=[d[0] for d in DTYPES])
def test_multinomial_matches_torch(seed, replacement, name, ours, theirs):
    weights = np.array([[0.1, 0.2, 0.3, 0.4, 0.0], [0.5, 0.0, 0.25, 0.25, 3.0]])

    def draws(lib):
        dt = ours if lib is gradcli else theirs
        w = lib.tensor(weights, dtype=dt)
        out = [lib.multinomial(w, n, replacement) for n in (1, 3)]
        out.append(lib.multinomial(w[1], 2, replacement))
        out.append(lib.rand(200, dtype=dt).multinomial(100 if replacement else 50, replacement))
        return lib.cat([o.reshape(-1) for o in out])

    both(draws)(seed)


@pytest.mark.parametrize("seed", (0, 5, 2**40 + 3))
@pytest.mark.parametrize("name, ours, theirs", DTYPES, ids=[d[0] for d in DTYPES])
def test_bernoulli_of_a_tensor_of_probabilities_matches_torch(seed, name, ours, theirs):
    def draws(lib):
        dt = ours if lib is gradcli else theirs
        p = lib.linspace(0, 1, 101, dtype=dt)
        return lib.cat([lib.bernoulli(p), p.bernoulli(), lib.empty(101, dtype=dt).bernoulli_(p)])

    both(draws)(seed)


@not_mkl
@pytest.mark.parametrize("seed", (0, 5, 2**40 + 3))
@pytest.mark.parametrize("p", (0.1, 0.5, 0.77))
@pytest.mark.parametrize("name, ours, theirs", DTYPES, ids=[d[0] for d in DTYPES])
def test_bernoulli_of_a_number_and_dropout_match_torch(seed, p, name, ours, theirs):
    x = np.linspace(-1.0, 2.0, 1000)

    def draws(lib):
        dt = ours if lib is gradcli else theirs
        F = gF if lib is gradcli else tF
        t = lib.tensor(x, dtype=dt, requires_grad=True)
        y = F.dropout(t, p)
        assert type(y.grad_fn).__name__ == "MulBackward0"
        z = lib.dropout(t, p, True)
        return lib.cat([lib.empty(30, dtype=dt).bernoulli_(p), y, z, t.bernoulli(p)]).detach()

    both(draws)(seed)


def test_dropout_off_and_at_the_ends_as_torch():
    x = gradcli.ones(5, requires_grad=True)
    assert gF.dropout(x, 0.5, training=False) is x
    assert gF.dropout(x, 0.0) is x
    same(gF.dropout(x, 1.0), tF.dropout(torch.ones(5, requires_grad=True), 1.0))
    with pytest.raises(
        ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"
    ):
        gF.dropout(x, 1.5)


@pytest.mark.parametrize("seed", (0, 9))
@avx2
def test_normal_with_tensors_and_the_likes_match_torch(seed):
    def draws(lib):
        m = lib.arange(20, dtype=lib.float32)
        s = lib.linspace(0.5, 2, 20)
        out = [lib.normal(m, 2.0), lib.normal(0.5, s), lib.normal(m, s), lib.normal(m[:3], s[:3])]
        out.append(lib.normal(2.0, 3.0, size=(4, 5)))
        out += [lib.rand_like(m), lib.randn_like(m), lib.randn_like(m[:5].double()).float()]
        return lib.cat([o.reshape(-1) for o in out])

    both(draws)(seed)


@avx2
def test_a_generator_object_draws_as_torchs_and_leaves_the_process_generator_alone():
    seed_both(11)
    g, tg = gradcli.Generator(), torch.Generator()
    assert g.initial_seed() == tg.initial_seed() == 67280421310721
    assert g.manual_seed(3) is g
    tg.manual_seed(3)
    same(gradcli.randn(40, generator=g), torch.randn(40, generator=tg))
    same(gradcli.randperm(9, generator=g), torch.randperm(9, generator=tg))
    same(gradcli.randint(0, 5, (7,), generator=g), torch.randint(0, 5, (7,), generator=tg))
    same(g.get_state(), tg.get_state())
    same_state()  # the process's generators drew nothing
    same(gradcli.rand(5), torch.rand(5))


@avx2
def test_rng_states_restore_across_the_two_libraries():
    seed_both(4)
    gradcli.randn(3)
    torch.randn(3)  # the third leaves a cached sample in the state
    saved = torch.get_rng_state()
    same(gradcli.get_rng_state(), saved)
    later = torch.randn(20)
    gradcli.set_rng_state(gradcli.tensor(saved.numpy()))
    same(gradcli.randn(20), later)
    torch.set_rng_state(torch.from_numpy(gradcli.get_rng_state().numpy().copy()))
    same(gradcli.randn(5, dtype=gradcli.float64), torch.randn(5, dtype=torch.float64))


def test_seeds_as_torch_reads_them():
    for value in (0, -1, 2**64 - 1, 1.5, "3"):
        assert gradcli.manual_seed(value).initial_seed() == torch.manual_seed(value).initial_seed()
    for value in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            gradcli.manual_seed(value)
    drawn = gradcli.seed()
    assert isinstance(drawn, int) and gradcli.initial_seed() == drawn < 2**53


def test_bad_ranges_are_torchs_errors():
    with pytest.raises(
        RuntimeError,
        match=r"uniform_ expects to return a \[from, to\) range, but found from=2 > to=1",
    ):
        gradcli.empty(3).uniform_(2, 1)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        gradcli.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError, match="probability tensor contains"):
        gradcli.multinomial(gradcli.tensor([0.5, -1.0]), 1)
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        gradcli.set_rng_state(gradcli.zeros(10, dtype=gradcli.uint8))


@avx2
def test_the_languages_random_functions_draw_torchs_numbers_from_the_seed():
    """In float64, the command line's default, from ``--seed``."""
    from gradcli.engine.state import default_dtype_override
    from gradcli.language.program import evaluate_constant

    with default_dtype_override(np.float64):
        ours = [evaluate_constant("randn(20, 3)", seed=7), evaluate_constant("rand(4)", seed=0)]
    torch.manual_seed(7)
    same(ours[0], torch.randn(20, 3, dtype=torch.float64))
    torch.manual_seed(0)
    same(ours[1], torch.rand(4, dtype=torch.float64))
    with default_dtype_override(np.float32):
        ours = evaluate_constant("randn(2, 10)", seed=3)
    torch.manual_seed(3)
    same(ours, torch.randn(2, 10))
