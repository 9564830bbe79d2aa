"""Worker diagnostics: what a worker reports about itself when asked.

Pure Python; the ``diagnostics`` job kind runs this on a worker so that an operator can
prove, from the browser or the API, that a worker picks up jobs and writes results back.
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class WorkerReport:
    """Facts about the process that ran a job."""

    hostname: str
    pid: int
    python: str
    platform: str
    cpu_count: int
    echo: str

    def as_dict(self) -> dict:
        """Return the report as a JSON-ready dict."""
        return asdict(self)


def worker_report(echo: str = "") -> WorkerReport:
    """Describe the current process.

    Parameters
    ----------
    echo : str
        Text copied into the report, so a caller can match a report to its request.

    Returns
    -------
    WorkerReport

    Examples
    --------
    >>> worker_report("hello").echo
    'hello'
    """
    return WorkerReport(
        hostname=socket.gethostname(),
        pid=os.getpid(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        cpu_count=os.cpu_count() or 1,
        echo=echo,
    )
