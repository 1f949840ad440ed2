"""The progress bar of a many-point run, on standard error: rows done, rows per
second and the time left. Only on a terminal (a log file gets no bar), and only
once a run has taken ``DELAY`` seconds: a short run prints nothing."""

from __future__ import annotations

import sys
import time

DELAY = 1.0


class Progress:
    """``update(rows, done)``: ``done`` of ``total`` (rows, or bytes of a file whose
    rows are not counted before reading; None when even that is unknown)."""

    def __init__(self, total: int | None, stream=None, delay: float | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.total = total
        self.delay = DELAY if delay is None else delay
        self.enabled = _is_terminal(self.stream)
        self.started = time.perf_counter()
        self.bar = None

    def update(self, rows: int, done: int | None) -> None:
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.started
        if self.bar is None:
            if elapsed < self.delay:
                return
            self._start()
        rate = rows / elapsed if elapsed > 0 else 0.0
        self.bar.update(self.task, completed=done or 0, rows=rows, rate=rate)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        self.bar = Bar(
            BarColumn(),
            TextColumn("{task.fields[rows]:,} rows"),
            TextColumn("{task.fields[rate]:,.0f} rows/s"),
            TimeRemainingColumn(),
            console=Console(file=self.stream, highlight=False),
        )
        self.task = self.bar.add_task("points", total=self.total, rows=0, rate=0.0)
        self.bar.start()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
