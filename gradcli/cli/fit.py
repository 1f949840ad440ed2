"""``gradcli fit``: nonlinear least squares with the residuals' exact Jacobian, a thin
Click command over ``gradcli.analysis.fitting``."""

from __future__ import annotations

import re

from ..core import bindings as _bindings
from ..render.fit_image import check_output, write_fit_image
from .analysis import REPORT_OPTIONS, analysis_command, run_report
from .common import cli
from .options import option as _option
from .using import BOUNDS as _BOUNDS
from .using import converged as _converged

_NEXT_PARAMETER = re.compile(r",\s*(?=[A-Za-z_]\w*\s*=)")


def _parameters(texts) -> dict[str, str]:
    parts = [part for text in texts for part in _NEXT_PARAMETER.split(text)]
    return _bindings.named_texts(parts, "--params", "a starting value")


@analysis_command(
    cli,
    "fit",
    _option("points", required=True, metavar="FILE",
            help="The data: .csv with a header, .jsonl, .npz, .parquet (as --points reads)."),
    _option("params", multiple=True, required=True, metavar="B1=V,B2=V",
            help="The parameters fitted and their starting values."),
    _option("response", default="y", show_default=True, metavar="COLUMN",
            help="The column of observed values (--y would bind an input named y)."),
    _option("weights", metavar="COLUMN", help="A column of weights w: minimise sum w r^2."),
    _option("sigma", metavar="COLUMN",
            help="A column of standard deviations s: minimise sum (r/s)^2."),
    _BOUNDS,
    _option("output", "-o", metavar="FILE.png",
            help="Also draw the data, the model and the residuals into FILE (.png, .svg)."),
    shared=REPORT_OPTIONS,
)  # fmt: skip
def fit_command(source, points, params, response, weights, sigma, bounds, output, **options):
    """Nonlinear least squares: the parameters of the model SOURCE that fit the
    response column of the data best, every other input of the model being a
    column. scipy.optimize.least_squares (Levenberg-Marquardt; trust-region
    reflective with --bounds) gets the residuals' exact Jacobian at every row
    at once. Prints each parameter with its standard error (from s^2 (J^T J)^-1,
    as NIST certifies them), the residual sum of squares, s, the degrees of
    freedom and the correlations; --output FILE.png also draws the data, the
model and the residuals (with matplotlib). Exit status 1 when it does not
converge.

    \b
    Example:
      $ gradcli fit "b1*(1-exp(-b2*x))" --points samples/misra1a.csv \
          --params b1=500,b2=1e-4 --format plain --precision 10
      parameters.b1.value 238.9421292
      parameters.b1.standard_error 2.707007524
      parameters.b2.value 0.0005501564318
      parameters.b2.standard_error 7.266868844e-06
      rss 0.1245513889
      residual_sd 0.1018787633
      dof 12
      observations 14
      correlation.labels b1 b2
      correlation.matrix 1 -0.998776192 -0.998776192 1
      method levenberg-marquardt
      evaluations 22
      converged true
      message `xtol` termination condition is satisfied.
    """
    from ..analysis.fitting import fit
    from ..analysis.flat import parse_bounds

    if output is not None:
        output = check_output(output)  # before the fit: a picture it cannot draw fails first
    report = run_report(
        fit,
        source,
        options,
        data=points,
        params=_parameters(params),
        response=response,
        weights=weights,
        sigma=sigma,
        bounds=parse_bounds(bounds),
    )
    if output is not None:
        write_fit_image(report, output)
    return _converged(report, options, "fit")
