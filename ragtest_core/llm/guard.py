"""Stop early when the model cannot do the job: the first calls of a prompt kind all come back unusable.

A model that never returns the JSON a stage asks for would otherwise be asked again and again. The guard counts,
per call label, the structured calls whose reply could not be used (unparseable after the repair round, or
refused). When the first `UNFIT_AFTER` calls of a label have all failed, that label is stopped: the call that saw the
last failure and every later call of the label raise `ModelUnfitError` (a permanent error: the stage stops), naming
the model and quoting one raw reply. One usable reply of a label disarms the guard for it.
"""

from __future__ import annotations

import threading
from collections import Counter

from ragtest_core.errors import LLMPermanentError

#: Unusable replies in a row, from the first call of a label on, that stop the label.
UNFIT_AFTER = 20


class ModelUnfitError(LLMPermanentError):
    """The model's replies to one prompt kind were all unusable: asking more would only spend calls."""


class FitnessGuard:
    """Per call label: calls that failed before the first usable reply; a tripped label raises at once."""

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id
        self.failures: Counter[str] = Counter()
        self.usable: set[str] = set()
        self.tripped: dict[str, ModelUnfitError] = {}
        self._sample: dict[str, str] = {}
        self._lock = threading.Lock()

    def check(self, label: str) -> None:
        """Raise the label's `ModelUnfitError` when it was stopped."""
        error = self.tripped.get(label)
        if error is not None:
            raise ModelUnfitError(str(error))

    def succeeded(self, label: str) -> None:
        with self._lock:
            self.usable.add(label)

    def failed(self, label: str, raw_reply: str, why: str) -> None:
        """Count an unusable reply; raise `ModelUnfitError` when it completes the first `UNFIT_AFTER` failures."""
        with self._lock:
            if label in self.usable:
                return
            self.failures[label] += 1
            self._sample.setdefault(label, f"{why}; raw reply: {raw_reply[:300]!r}")
            if self.failures[label] >= UNFIT_AFTER and label not in self.tripped:
                self.tripped[label] = ModelUnfitError(
                    f"stopped {label!r}: the first {self.failures[label]} replies of {self.model_id} to this prompt "
                    f"could not be used (unparseable or refused), so this model cannot do the job. One of them: "
                    f"{self._sample[label]}. Try a stronger model (--llm), or the offline path (no --llm)."
                )
        self.check(label)
