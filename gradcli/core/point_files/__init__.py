"""Many points in one run: ``--points FILE`` and ``--over NAME=VALUES``.

Rows are read in chunks (``readers``, or ``grid`` for ``--over``), each chunk's
input columns become input arrays with the batch axis first (``columns``), a
``PointsTask`` computes them with ``api.points`` (``task``), and the result
columns are written in order (``writers``). ``run`` is that loop, with the
accounting of rows and the progress bar; where a chunk is computed is an
executor's business (``run.InProcess`` here, Dask elsewhere).

Nothing here is imported on the one-point path: pyarrow, which reads and writes
CSV and Parquet, loads only when a run has many points.
"""
