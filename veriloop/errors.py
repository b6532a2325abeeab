"""Errors a user can act on.

Every error here carries a message that says what was wrong and what to do about it. The
CLI prints it as one line and exits non-zero, with no traceback; graphs raise it as is, so
Studio and Python callers see the same sentence.
"""


class VeriloopError(Exception):
    """Base class: an error caused by input or environment, not by a bug."""


class InvalidInputError(VeriloopError, ValueError):
    """The question, method name or setting given is not usable."""


class ModelNotFoundError(VeriloopError):
    """A model file or the package that ships it is not installed."""


class ModelUnavailableError(VeriloopError):
    """A model server did not answer, or answered with an error, after retries."""


class DatasetError(VeriloopError):
    """A dataset or data file is missing or malformed (the message names file and line)."""
