"""Errors the user can act on. The CLI prints their message, never a traceback."""

from __future__ import annotations


class RagtestError(Exception):
    """A problem with inputs or configuration, explained in words the user can act on."""


class SourceUnavailableError(RagtestError):
    """A document source (Wikipedia, a page cache, a file) could not be read."""


class MissingColumnsError(RagtestError):
    """A dataset lacks a column that a stage or metric needs."""


class LLMError(RagtestError):
    """An LLM call failed for good (after retries, or with a permanent error)."""


class LLMPermanentError(LLMError):
    """An LLM error that retrying cannot fix (bad key, unknown model, context too long): the run stops."""


class LLMOutputError(LLMError):
    """The model answered, but its reply could not be parsed into the expected structure."""
