"""Failures of a job that the user caused and can fix.

A job fails with :class:`JobInputError` when the design or the job's parameters cannot be
simulated as they are (servers with different numbers of NIC links, a failed-links count
that cuts every path, more GPUs asked than the fabric has, ...). Its message is a plain
sentence naming the device or field at fault and what to do; the job row shows it as the
job's error. Any other exception is a bug: the row then says so without its text.
"""

from __future__ import annotations


class JobInputError(ValueError):
    """The design or the parameters cannot be run as they are.

    Attributes
    ----------
    message : str
        What is wrong, naming the device or field, and what to do.
    field : str
        The job parameter or design field at fault (``""`` for the design's topology).
    element_ids : tuple of str
        Elements at fault (``node:<name>``, ``link:<i>``), for the canvas.

    Examples
    --------
    >>> str(JobInputError("gpus: 8 asked, the fabric has 4", field="gpus"))
    'gpus: 8 asked, the fabric has 4'
    """

    def __init__(self, message: str, *, field: str = "", element_ids=()):
        super().__init__(message)
        self.message = message
        self.field = field
        self.element_ids = tuple(element_ids)


__all__ = ["JobInputError"]
