"""The autograd engine: tensors, the op table and the reverse pass, on NumPy.

It imports nothing from the language, the command line or the renderers. Its
modules depend one way, in this order: ``state``, ``messages``, ``dtypes``,
``graph``, ``tensor``, ``schema``, ``applying``, ``optable``, ``ops`` (the table, by
kind), ``backward``, ``methods`` (which installs the table's methods on Tensor).
"""

import warnings

# PyTorch computes inf and nan silently (log(0), 0/0); NumPy's RuntimeWarnings from
# the engine's own calls would be noise in a PyTorch program. Only warnings raised
# in the engine's modules are filtered: the user's own NumPy calls still warn.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"gradcli\.engine\.")

from . import methods as _methods  # noqa: E402, F401  (Tensor's methods, from the op table)
