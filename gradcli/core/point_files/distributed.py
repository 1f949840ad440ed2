"""Chunks computed by Dask: on this machine (``--dask``) or a running cluster (``--scheduler``).

The chunk loop does not care where a chunk is computed: ``DaskExecutor.map``
is the executor of ``gradcli.core.point_files.run`` with each chunk a Dask task calling
the ``PointsTask``, so the library runs inside the workers (each computation
owns its dtype and random numbers, so a worker gives what this process gives).
At most a few chunks per worker are in flight, and results come back in the
order of the chunks, for the client to write in order.

CSV and Parquet inputs (a file, a directory of files or a glob) are read in the
workers (CSV by gradcli's reader, Parquet by Dask's): ``gradcli.core.point_files.dask_files``.

Dask is an optional extra, imported only here and in ``dask_files``, and only when a run
uses it: ``pip install 'gradcli[dask]'``.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import importlib.util
import logging
import os
import socket
import struct
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from urllib.parse import urlsplit

import numpy as np

from ...errors import GradcliError
from .run import computed, learned

INSTALL = "pip install 'gradcli[dask]'"
# Chunks in flight per worker thread: enough to keep each busy while the client
# writes, few enough that memory stays a few chunks per worker.
IN_FLIGHT_PER_THREAD = 2


def require_dask(option: str = "--dask", *, load: bool = True) -> None:
    """Raise a clear error, with the install command, when Dask is missing; ``load``:
    import it (a second or more), else only find its packages, so that what a run checks
    before its cluster starts (the columns of its files) is not kept waiting."""
    try:
        if load:
            import dask.dataframe  # noqa: F401
            import distributed  # noqa: F401
        else:
            _find("dask", "distributed", "pyarrow")
    except ImportError as error:
        missing = error.name or "dask"
        raise GradcliError(
            f"{option} needs Dask, which is not installed ({missing} is missing): {INSTALL}"
        ) from None


def _find(*names: str) -> None:
    """Raise ImportError for the first of the packages that cannot be imported."""
    for name in names:
        if name in sys.modules:
            if sys.modules[name] is None:  # marked as missing
                raise ImportError(name=name)
        elif importlib.util.find_spec(name) is None:
            raise ImportError(name=name)


#: Where everything a cluster of this machine opens listens: this machine alone.
LOCAL_HOST = "127.0.0.1"


@contextlib.contextmanager
def dask_executor(
    scheduler: str | None = None,
    workers: int | None = None,
    dashboard: bool = False,
    logs: bool = False,
    checked: bool = False,
):
    """A ``DaskExecutor`` on a running cluster at ``scheduler``, or on a new
    ``LocalCluster`` of ``workers`` processes (default: one per core) that ends
    with the block.

    The local cluster's scheduler, nannies and workers listen on 127.0.0.1 only.
    Their HTTP servers (which Dask always opens) serve nothing unless
    ``dashboard``: then the scheduler's serves the dashboard, its logs, call
    stacks and worker pages, at ``executor.client.dashboard_link``, to this
    machine alone too (Dask's own default would serve them, without a password,
    on every interface). Dask's logging (and that of the event loop it runs on) is
    silent unless ``logs``: gradcli says what failed, in one line.
    """
    if scheduler is not None and not checked:  # checked: by the caller, before its reading
        check_scheduler(scheduler)  # at once, where Dask's client would wait out its timeout
    require_dask("--scheduler" if scheduler is not None else "--dask")

    import dask
    from distributed import Client, LocalCluster

    if scheduler is None:
        _check_open_files(workers)
    with contextlib.ExitStack() as stack:
        if not logs:
            stack.enter_context(_silent(logging))
        if scheduler is not None:
            try:
                client = stack.enter_context(Client(scheduler, timeout="10s"))
            except (OSError, TimeoutError, ValueError) as error:
                raise GradcliError(
                    f"cannot reach the Dask scheduler at {scheduler}: {error}"
                ) from None
        else:
            if not dashboard:  # read here by the scheduler, and by each worker it starts
                stack.enter_context(
                    dask.config.set(
                        {
                            "distributed.scheduler.http.routes": [],
                            "distributed.worker.http.routes": [],
                        }
                    )
                )
            try:
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        host=LOCAL_HOST,
                        # Any free port: another cluster of this machine may hold the usual one.
                        dashboard_address=f"{LOCAL_HOST}:0",
                        silence_logs=logging.CRITICAL,
                    )
                )
            except (OSError, RuntimeError, TimeoutError) as error:
                raise GradcliError(
                    f"--dask: the cluster of this machine did not start: {error}"
                ) from None
            client = stack.enter_context(Client(cluster))
        yield DaskExecutor(client)


@contextlib.contextmanager
def _silent(logging):
    """No logging within the block: Dask's loggers (``distributed.client`` has a level
    of its own) and the event loop's say what gradcli says in one line."""
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


def _check_open_files(workers: int | None) -> None:
    """Refuse a cluster of this machine the limit on open files cannot hold: under it,
    Dask's nannies fail to start, or (fewer still) the scheduler retries for ever."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    count = workers or os.cpu_count() or 1
    needed = max(64, 32 + 8 * count)
    if soft != resource.RLIM_INFINITY and soft < needed:
        raise GradcliError(
            f"--dask: the limit on open files is {soft} (ulimit -n), too few for a cluster of "
            f"this machine ({count} workers, their scheduler and connections need about "
            f"{needed}): raise it (ulimit -n 1024), or run without --dask"
        )


# Dask's schemes of a host and a port; others (inproc://, ucx://) are left to Dask.
_HOST_SCHEMES = ("tcp", "tls", "ws", "wss")
_DEFAULT_PORT = 8786  # Dask's, when the address has none
CONNECT_SECONDS = 3.0


def check_scheduler(address: str) -> None:
    """Raise at once when ``address`` cannot be a scheduler's: empty, a port out of
    range, a host that does not resolve, or nothing listening there."""

    def refuse(why: str):
        return GradcliError(f"cannot reach the Dask scheduler at {address}: {why}")

    text = address.strip()
    if not text:
        raise GradcliError("--scheduler needs an address, as in --scheduler tcp://host:8786")
    scheme, _, rest = text.rpartition("://") if "://" in text else ("tcp", "", text)
    if scheme not in _HOST_SCHEMES:
        return
    parts = urlsplit(f"{scheme}://{rest}")
    try:
        port = parts.port
    except ValueError:
        port_text = rest.rpartition(":")[2]
        if port_text.isdigit():
            raise refuse(f"port {port_text} is out of range (0 to 65535)") from None
        raise refuse(f"{port_text!r} is not a port number") from None
    host, port = parts.hostname, _DEFAULT_PORT if port is None else port
    if not host:
        raise refuse("the address has no host (tcp://host:8786)")
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise refuse(f"unknown host {host!r}") from None
    if scheme not in ("tcp", "tls"):
        return
    try:
        peer = socket.create_connection((host, port), timeout=CONNECT_SECONDS)
    except ConnectionRefusedError:
        raise refuse(f"connection refused: nothing listens on port {port} of {host}") from None
    except TimeoutError:
        raise refuse(f"no answer from {host}:{port} within {CONNECT_SECONDS:g} s") from None
    except OSError as error:
        raise refuse(error.strerror or str(error)) from None
    if scheme == "tcp":
        with peer:
            why = _not_a_scheduler(peer)
        if why is not None:
            raise refuse(f"{host}:{port} {why}: it is not a Dask scheduler")
    else:
        peer.close()


#: A scheduler's first message, its handshake, is a few hundred bytes.
_HANDSHAKE_BYTES = 2**20


def _not_a_scheduler(peer) -> str | None:
    """Why the peer of a new connection is no Dask scheduler, or None: a scheduler
    speaks first, with its handshake, whose first 8 bytes are its length (little
    endian), all within ``CONNECT_SECONDS``. Whatever says nothing (a silent listener,
    an HTTP server waiting for a request) or stops halfway would hold Dask's client
    until the peer closes; an HTTP answer, read as that length, asks for exabytes."""
    deadline = time.monotonic() + CONNECT_SECONDS

    def received(count: int) -> bytes | None:
        found = b""
        while len(found) < count:
            peer.settimeout(max(deadline - time.monotonic(), 0.001))
            more = peer.recv(min(count - len(found), 65536))
            if not more:
                return None
            found += more
        return found

    try:
        head = received(8)
        if head is None:
            return "closed the connection without a word"
        if head.startswith(b"HTTP"):
            return "answered as an HTTP server"
        (length,) = struct.unpack("<Q", head)
        if not 0 < length <= _HANDSHAKE_BYTES:
            return "answered in another protocol than Dask's"
        if received(length) is None:
            return "closed the connection within its first message"
    except TimeoutError:
        return f"accepted the connection but did not say who it is within {CONNECT_SECONDS:g} s"
    except OSError as error:
        return f"broke the connection ({error.strerror or error})"
    return None


class DaskExecutor:
    """Computes chunks as Dask tasks on ``client``'s cluster, results in order."""

    def __init__(self, client):
        self.client = client

    def in_flight(self) -> int:
        threads = sum(self.client.nthreads().values()) or 1
        return IN_FLIGHT_PER_THREAD * threads

    def map(self, task: Callable, chunks: Iterable[Mapping[str, np.ndarray]]) -> Iterator:
        """``task(chunk)`` for each chunk, computed by the workers, yielded in order."""
        futures = (self.client.submit(computed, task, chunk, pure=False) for chunk in chunks)
        for arrays, found in in_order(futures, self.in_flight()):
            learned(task, found)  # the notes of the worker's copy of the task
            yield arrays


def in_order(futures: Iterator, limit: int) -> Iterator:
    """The futures' results in order, with at most ``limit`` submitted and not yet taken."""
    pending = collections.deque()
    try:
        for future in futures:
            pending.append(future)
            if len(pending) >= limit:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())
    finally:
        for future in pending:  # an error or an early stop: drop what is still queued
            future.cancel()


def _result(future):
    """A future's result; the scheduler lost (its connection closed, the future cancelled
    for it), a one-line error rather than Dask's own."""
    from distributed.comm.core import CommClosedError

    try:
        return future.result()
    except concurrent.futures.CancelledError as error:
        why = getattr(error, "reason", None) or "the task was cancelled"
        raise GradcliError(f"the Dask scheduler was lost mid-run ({why})") from None
    except CommClosedError as error:  # not a task's own OSError, which is its error
        raise GradcliError(f"the Dask scheduler was lost mid-run ({error})") from None
