"""Agreement of metric scores with human preferences (meta-evaluation): pairwise accuracy, the share of pairs where
the human-preferred side scores higher (a tie counts one half; a side without a score counts below any score, so a
failure never wins). No pair: None, never NaN. Labels graded or yes/no: `evaluation.label_stats`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Score = float | None


def pairwise_accuracy(preferred: Sequence[Score], other: Sequence[Score]) -> float | None:
    """Share of pairs where `preferred` scores higher than `other` (tie = 1/2; None ranks lowest)."""
    if len(preferred) != len(other):
        raise ValueError("both sides need one score per pair")
    if not preferred:
        return None
    total = 0.0
    for a, b in zip(preferred, other, strict=True):
        left, right = (-math.inf if a is None else a), (-math.inf if b is None else b)
        total += 1.0 if left > right else 0.5 if left == right else 0.0
    return total / len(preferred)
