"""The normal distribution's CDF, its log and its inverse (``ndtr``, ``log_ndtr``, ``ndtri``)
as functions of the language, through the real command: values and derivatives against
PyTorch 2.13's torch.special, their nodes against PyTorch's, ``diff``, ``taylor``, many
points and ``plot``, and a Black-Scholes call's vega against its closed form. (The op
matrix, ``test_op_matrix.py``, sweeps their samples; ``test_taylor_series.py`` their
series against mpmath.)"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="PyTorch 2.13 is the oracle of these tests")

PROGRAM = "ndtr(x) + 2*log_ndtr(x) + ndtri(y)"


def _torch_nodes(y):
    """The grad_fn names from the output to the leaf, first input first."""
    names, node = [], y.grad_fn
    while node is not None and type(node).__name__ != "AccumulateGrad":
        names.append(type(node).__name__)
        node = node.next_functions[0][0]
    return names


def test_a_program_calls_them_with_torchs_values_and_derivatives(gradcli_json):
    got = gradcli_json("hessian", PROGRAM, "--x", "-1.3", "--y", "0.2")
    x = torch.tensor(-1.3, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(0.2, dtype=torch.float64, requires_grad=True)
    S = torch.special
    out = S.ndtr(x) + 2 * S.log_ndtr(x) + S.ndtri(y)
    gx, gy = torch.autograd.grad(out, (x, y), create_graph=True)
    assert got["value"] == pytest.approx(out.item(), rel=1e-14)
    assert got["grad"]["x"] == pytest.approx(gx.item(), rel=1e-14)
    assert got["grad"]["y"] == pytest.approx(gy.item(), rel=1e-14)
    assert got["hessian"]["x"]["x"] == pytest.approx(torch.autograd.grad(gx, x)[0].item())
    assert got["hessian"]["y"]["y"] == pytest.approx(torch.autograd.grad(gy, y)[0].item())


def test_log_ndtr_far_in_the_tail_where_the_cdf_underflows(gradcli_json):
    # ndtr(-40) underflows to 0; log_ndtr's derivative there is phi(x)/Phi(x) ~ -x - 1/x.
    got = gradcli_json("grad", "log_ndtr(x)", "--x", "-40")
    x = torch.tensor(-40.0, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.special.log_ndtr(x), x)
    assert got["value"] == pytest.approx(torch.special.log_ndtr(x).item(), rel=1e-14)
    assert got["grad"]["x"] == pytest.approx(g.item(), rel=1e-12)
    assert got["grad"]["x"] == pytest.approx(40.02496884720726, rel=1e-12)  # mpmath.diff


@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "ndtri"])
def test_their_nodes_are_torchs(gradcli_json, name):
    graph = gradcli_json("graph", f"{name}(x)", "--x", "0.3")
    x = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    expected = _torch_nodes(getattr(torch.special, name)(x))
    assert [n["name"] for n in graph["nodes"] if n["leaf"] is None] == expected
    # PyTorch's ndtr is (1 + erf(x * M_SQRT1_2)) * 0.5 in C++: the Scalar overloads.
    assert (
        expected
        == {
            "ndtr": ["MulBackward1", "AddBackward1", "ErfBackward0", "MulBackward1"],
            "log_ndtr": ["SpecialLogNdtrBackward0"],
            "ndtri": ["SpecialNdtriBackward0"],
        }[name]
    )
    # One edge a node: no number operand listed, as PyTorch's next_functions.
    assert len(graph["edges"]) == len(expected)


def test_the_function_listing_finds_them_by_normal_and_cdf(gradcli):
    listing = gradcli("functions", "--format", "plain").stdout.splitlines()
    for word in ("normal", "cdf"):
        found = {line.split("(")[0] for line in listing if word in line.lower()}
        assert {"ndtr", "log_ndtr", "ndtri"} <= found, word
    assert "Phi(x)" in gradcli("functions", "ndtr", "--format", "plain").stdout


def test_diff_writes_them_through_erfc_and_erfinv_and_agrees(gradcli_json):
    got = gradcli_json("diff", PROGRAM, "--x", "0.4", "--y", "0.9")
    assert all(d["agrees"] is True for d in got["derivatives"].values())
    # d/dx (ndtr + 2 log_ndtr) = phi(x) (1 + 2/Phi(x)); d ndtri(y)/dy = 1/phi(ndtri(y)).
    phi = math.exp(-(0.4**2) / 2) / math.sqrt(2 * math.pi)
    cdf = (1 + math.erf(0.4 / math.sqrt(2))) / 2
    assert got["derivatives"]["x"]["value"] == pytest.approx(phi * (1 + 2 / cdf), rel=1e-13)
    q = 1.2815515655446004  # the 0.9 quantile, scipy.stats.norm.ppf(0.9)
    expected = math.sqrt(2 * math.pi) * math.exp(q * q / 2)
    assert got["derivatives"]["y"]["value"] == pytest.approx(expected, rel=1e-13)
    assert "erfinv(2*y - 1)" in got["derivatives"]["y"]["formula"]


BLACK_SCHOLES = """
const S = 100; const K = 95; const r = 0.05; const T = 0.5
d1 = (log(S/K) + (r + sigma**2/2)*T) / (sigma*sqrt(T))
d2 = d1 - sigma*sqrt(T)
S*ndtr(d1) - K*exp(-r*T)*ndtr(d2)
"""


def test_black_scholes_vega_is_its_closed_form(gradcli_json):
    S, K, r, T, sigma = 100.0, 95.0, 0.05, 0.5, 0.2
    d1 = (math.log(S / K) + (r + sigma**2 / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)

    def cdf(z):
        return math.erfc(-z / math.sqrt(2)) / 2

    phi = math.exp(-d1 * d1 / 2) / math.sqrt(2 * math.pi)
    got = gradcli_json("hessian", BLACK_SCHOLES, "--sigma", str(sigma))
    assert got["value"] == pytest.approx(S * cdf(d1) - K * math.exp(-r * T) * cdf(d2), rel=1e-13)
    assert got["grad"]["sigma"] == pytest.approx(S * phi * math.sqrt(T), rel=1e-13)  # vega
    # vomma = vega * d1 * d2 / sigma
    vomma = S * phi * math.sqrt(T) * d1 * d2 / sigma
    assert got["hessian"]["sigma"]["sigma"] == pytest.approx(vomma, rel=1e-12)


def test_taylor_at_many_points_and_plot(gradcli, gradcli_json):
    out = gradcli("taylor", "ndtri(p)", "--over", "p=0.025,0.5", "--order", "2", "--format", "csv")
    assert out.exit_code == 0, out.output
    rows = [line.split(",") for line in out.stdout.splitlines()[1:]]
    # At 1/2: ndtri = 0, ndtri' = sqrt(2 pi), and ndtri'' = 0 (odd about 1/2).
    assert [float(v) for v in rows[1][1:]] == pytest.approx(
        [0, 0, math.sqrt(2 * math.pi), 0], abs=1e-15
    )
    q = -1.959963984540054  # scipy.stats.norm.ppf(0.025)
    slope = math.sqrt(2 * math.pi) * math.exp(q * q / 2)  # ndtri' = 1/phi(q)
    assert float(rows[0][2]) == pytest.approx(q, rel=1e-14)
    assert float(rows[0][3]) == pytest.approx(slope, rel=1e-13)
    # ndtri'' / 2 = q ndtri'**2 / 2 (the derivative of 1/phi(ndtri(p))).
    assert float(rows[0][4]) == pytest.approx(q * slope**2 / 2, rel=1e-12)
    plot = gradcli_json("plot", "ndtri(p)", "--over", "p=0:1:5")
    assert plot["nonfinite"] == [0, 1]
    assert plot["df"][2] == pytest.approx(math.sqrt(2 * math.pi), rel=1e-15)
