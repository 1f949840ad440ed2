"""One run of each command that computes, for the tests that go through every command
(``--get`` of every plain line, unknown options, JSON errors)."""

from __future__ import annotations

from tests.conftest import SAMPLES

# One run of each command that takes --get.
RUNS = {
    "eval": ["x**2", "--x", "3"],
    "grad": ["(x+2)**2 + y", "--x", "2", "--y", "1"],
    "jacobian": ["[r*cos(t), r*sin(t)]", "--r", "2", "--t", "0.5"],
    "hessian": ["x**2+y**2", "--x", "1", "--y", "1"],
    "vjp": ["[x[0]**2, x[1]]", "--x", "[2, 3]", "--grad-output", "[1, 0]"],
    "jvp": ["x**2 + y", "--x", "[1, 2]", "--y", "3", "--tangent", "x=[1, 1]"],
    "check": ["x**2*y", "--x", "1", "--y", "2"],
    "diff": ["x**3*y", "--x", "2", "--y", "1"],
    "propagate": ["x*y", "--x", "1", "--y", "2", "--sigma", "x=0.1"],
    "taylor": ["exp(x)", "--x", "0"],
    "plot": ["abs(x)", "--over", "x=-1:1:5"],
    "minimize": ["(x-1)**2 + y**2", "--x", "0", "--y", "1"],
    "solve": ["[x**2 + y**2 - 4, x - y]", "--x", "1", "--y", "2"],
    "critical": ["x**3 - 3*x + y**2", "--over", "x=-2:2", "--over", "y=-2:2"],
    "implicit": ["x**2 + x*y + y**2 = 7", "--x", "1", "--y", "2", "--solve-for", "y"],
    "fit": [
        "b1*(1-exp(-b2*x))",
        "--points",
        str(SAMPLES / "misra1a.csv"),
        "--params",
        "b1=500,b2=1e-4",
    ],  # fmt: skip
    "div": ["[x*y, y*z, z*x]", "--x", "1", "--y", "2", "--z", "3"],
    "curl": ["[x*y, y*z, z*x]", "--x", "1", "--y", "2", "--z", "3"],
    "laplacian": ["x**2*y + z**3", "--x", "1", "--y", "2", "--z", "3"],
}

# The commands that compute nothing from a SOURCE, each with arguments it takes.
OTHERS = {
    "graph": ["x**2", "--x", "1"],
    "functions": ["relu"],
    "repl": [],
    "run": [str(SAMPLES / "autograd_tutorial.py")],
}
