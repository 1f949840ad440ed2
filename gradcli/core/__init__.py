"""The core of the library, under ``gradcli.api``: what one evaluation and many are.

``evaluation`` is one evaluation (a program compiled, its inputs bound, its
dtype, seed and limit); ``computing`` the computing commands on it (``api.gradient``,
``api.jacobian``, ...), with ``assembled`` the whole Jacobian or Hessian over all
inputs; ``many_points`` a command at every point of a batch (``api.points``);
``result`` the results as data; ``bindings`` what a user's text binds
(``NAME=VALUE``, ``--over`` grids) and ``values`` a binding's value;
``option_names`` the option names the library words its hints with;
``point_files/`` the files of many points and their chunked runs.

For the readers and writers of every layer above: ``files`` (what stands at a path
a user names), ``bounded`` (what a reader may take), ``atomic`` (every file written
whole). Nothing here is imported by ``import gradcli``.
"""
