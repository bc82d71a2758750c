"""Question types and their distribution: parsing, renormalising over what a writer supports, exact counts.

- simple: one fact from one chunk.
- reasoning: the answer needs an inference over facts of the context.
- multi_context: the answer needs at least two blocks (root and a neighbour); the gold ids name both.
- conditional: the question carries a condition or constraint.
- unanswerable: a plausible on-topic question the corpus does not answer; the reference answer is a refusal.
- distracting: the question mentions a related but irrelevant detail from a neighbour; the answer is the root's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal, get_args

from ragtest_core.errors import RagtestError

QuestionType = Literal["simple", "reasoning", "multi_context", "conditional", "unanswerable", "distracting"]
QUESTION_TYPES: tuple[str, ...] = get_args(QuestionType)
DEFAULT_DISTRIBUTION: dict[str, float] = {
    "simple": 0.5,
    "multi_context": 0.25,
    "reasoning": 0.125,
    "conditional": 0.125,
}
REFUSALS = {
    "en": "The corpus does not contain this information.",
    "zh": "语料库中没有这方面的信息。",
    "ja": "コーパスにはこの情報が含まれていません。",
    "ko": "말뭉치에는 이 정보가 없습니다.",
}


def refusal(language: str) -> str:
    """The reference answer of an unanswerable question, in the source's language."""
    return REFUSALS.get(language, REFUSALS["en"])


def parse_distribution(spec: str | Mapping[str, float] | None) -> dict[str, float]:
    """`"simple=0.5,multi_context=0.5"` or a mapping -> a validated mapping (weights need not sum to 1)."""
    if spec is None:
        return dict(DEFAULT_DISTRIBUTION)
    if isinstance(spec, str):
        pairs: dict[str, float] = {}
        for part in (p.strip() for p in spec.split(",") if p.strip()):
            name, sep, value = part.partition("=")
            try:
                pairs[name.strip()] = float(value) if sep else 1.0
            except ValueError as exc:
                raise RagtestError(f"bad question type weight {part!r}: use name=weight, e.g. simple=0.5") from exc
        spec = pairs
    if unknown := sorted(set(spec) - set(QUESTION_TYPES)):
        raise RagtestError(f"unknown question type(s) {unknown}; choose from {', '.join(QUESTION_TYPES)}")
    if any(weight < 0 for weight in spec.values()) or sum(spec.values()) <= 0:
        raise RagtestError("question type weights must be >= 0 and not all 0")
    return {name: float(spec[name]) for name in QUESTION_TYPES if spec.get(name, 0) > 0}


def renormalise(distribution: Mapping[str, float], supported: Iterable[str]) -> tuple[dict[str, float], list[str]]:
    """The distribution over supported types only (summing to 1), and the warnings for the dropped types."""
    allowed = set(supported)
    kept = {name: weight for name, weight in distribution.items() if name in allowed}
    dropped = sorted(name for name in distribution if name not in allowed)
    if not kept:
        raise RagtestError(
            f"the writer supports none of the question types asked for ({', '.join(sorted(distribution))}); "
            f"it supports: {', '.join(sorted(allowed))}"
        )
    total = sum(kept.values())
    warnings = [
        f"question type {name!r} is not supported by this writer; the distribution was renormalised over "
        f"{', '.join(sorted(kept))}"
        for name in dropped
    ]
    return {name: weight / total for name, weight in kept.items()}, warnings


def allocate(size: int, distribution: Mapping[str, float]) -> dict[str, int]:
    """Exact counts per type summing to `size` (largest remainder; ties by type order)."""
    total = sum(distribution.values())
    if size <= 0 or total <= 0:
        return {name: 0 for name in distribution}
    shares = {name: size * weight / total for name, weight in distribution.items()}
    counts = {name: int(share) for name, share in shares.items()}
    order = sorted(distribution, key=lambda n: (-(shares[n] - counts[n]), QUESTION_TYPES.index(n)))
    for name in order[: size - sum(counts.values())]:
        counts[name] += 1
    return counts
