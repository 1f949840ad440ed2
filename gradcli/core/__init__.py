"""The core of the library, under ``gradcli.api``: what one evaluation and many are.

``evaluation`` is one evaluation (a program compiled, its inputs bound, its
dtype, seed and limit); ``many_points`` a command at every point of a batch
(``api.points``); ``result`` the results as data; ``bindings`` what a user's
text binds (``NAME=VALUE``, ``--over`` grids); ``option_names`` the option
names the library words its hints with; ``point_files/`` the files of many
points and their chunked runs.

Below every layer, and importing nothing of gradcli but ``errors``: ``record``
(small immutable records), ``files`` (what stands at a path a user names),
``bounded`` (what a reader may take), ``atomic`` (every file written whole).
Nothing here is imported by ``import gradcli``.
"""
