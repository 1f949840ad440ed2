"""``gradcli div``, ``curl`` and ``laplacian``: vector calculus at a point, thin Click
commands over ``gradcli.analysis.vector_calculus``."""

from __future__ import annotations

from ..core import bindings as _bindings
from .analysis import REPORT_OPTIONS, analysis_command, run_report, strict_status
from .common import cli
from .options import option as _option

_COORDINATES = _option(
    "wrt", multiple=True, metavar="X,Y,Z",
    help="The coordinates, in order [default: every input, alphabetically].",
)  # fmt: skip


def _vector(name: str, source, wrt, options) -> int:
    from ..analysis import vector_calculus

    compute = getattr(vector_calculus, name)
    report = run_report(compute, source, options, wrt=_bindings.names_of(wrt))
    return strict_status(report, options)


@analysis_command(cli, "div", _COORDINATES, shared=REPORT_OPTIONS)
def div_command(source, wrt, **options):
    """The divergence of the field SOURCE (one entry per coordinate) at the
    bound point: the trace of its exact Jacobian.

    \b
    Example:
      $ gradcli div "[x*y, y*z, z*x]" --x 1 --y 2 --z 3 --format plain
      div 6
      coordinates x y z
    """
    return _vector("div", source, wrt, options)


@analysis_command(cli, "curl", _COORDINATES, shared=REPORT_OPTIONS)
def curl_command(source, wrt, **options):
    """The rotation of the field SOURCE (three entries, three coordinates) at
    the bound point: its curl, from the exact Jacobian.

    \b
    Example:
      $ gradcli curl "[x*y, y*z, z*x]" --x 1 --y 2 --z 3 --format plain
      curl -2 -3 -1
      coordinates x y z
    """
    return _vector("curl", source, wrt, options)


@analysis_command(cli, "laplacian", _COORDINATES, shared=REPORT_OPTIONS)
def laplacian_command(source, wrt, **options):
    """The Laplacian of a scalar SOURCE at the bound point: the trace of its
    exact Hessian.

    \b
    Example:
      $ gradcli laplacian "x**2*y + z**3" --x 1 --y 2 --z 3 --format plain
      laplacian 22
      coordinates x y z
    """
    return _vector("laplacian", source, wrt, options)
