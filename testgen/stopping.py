"""When the generator gives up on a question type, and what to tell the user when the corpus falls short.

`StopRules` are settings with defaults (the CLI flags `--zero-yield-patience`, `--low-yield-contexts`,
`--low-yield-rate`, `--max-questions-per-context`, `--tier-lookahead`, `--max-tier`, `--page-share`): a type that
gave no question from its first `zero_yield_patience` contexts, or fewer than `low_yield_rate` a context over its
first `low_yield_contexts`, stops early and its share goes to the other types; a context is asked at most
`max_questions_per_context` questions. Contexts count only when the writer could write from their root
(`can_write`): a barren root is passed over. Drafts of a later tier (`Draft.tier`) join after `tier_lookahead`
written contexts per requested question, or when the roots run out, up to `max_tier`; a documentation page past
`page_share` of the set gives more only from the next tier.
`advice` reads a run's stats and names what would actually help; a run that falls short records it, by reason, in
a `Shortfall` (raised as `ShortfallError`, with the samples made, unless the caller accepts fewer).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ragtest_core.errors import RagtestError
from ragtest_core.schema import TestSample
from testgen.question_types import QUESTION_TYPES
from testgen.stats import GenerationStats


class Walk(Protocol):
    """A question type's walk over the roots (`testgen.walkers.Walker`, which reads its defaults from here)."""

    @property
    def active(self) -> bool: ...

    def stop(self) -> None: ...


#: What relaxes each rejection reason (the option to change), for the shortfall message.
_RELAX = {
    "too_long": "--max-question-words",
    "question_too_long": "--max-question-words",
    "copies_context": "--max-copied-words",
    "near_duplicate": "--dedup-threshold (higher keeps more similar questions)",
    "not_grounded": "--critic offline, or a stronger --llm",
    "critic_failed": "a working critic LLM (or --critic offline)",
}


@dataclass(frozen=True)
class StopRules:
    """When a question type stops early, and how many questions one context may be asked."""

    zero_yield_patience: int = 20
    low_yield_contexts: int = 100
    low_yield_rate: float = 0.02
    max_questions_per_context: int = 4
    #: Contexts written per requested question before the next tier of drafts (`Draft.tier`) joins the open ones
    #: while roots remain (when the roots run out it joins at once).
    tier_lookahead: int = 10
    #: The last tier of drafts that may fill the set (None: every tier); a lower one trades yield for precision.
    max_tier: int | None = None
    #: The share of the set one documentation page may fill before its further drafts wait for the next tier
    #: (1: no limit): a reference page of settings gives many good drafts, a test set asks about the whole docs.
    page_share: float = 0.25

    def page_quota(self, size: int) -> int | None:
        """Questions one documentation page may give to a set of `size` before its drafts wait a tier."""
        return None if self.page_share >= 1.0 else max(1, math.ceil(self.page_share * size))

    def why_stop(self, produced: int, tried: int) -> str | None:
        """Why a question type that gave `produced` questions from `tried` contexts stops early (None: it goes on)."""
        if produced == 0 and tried >= self.zero_yield_patience:
            return f"no question from the first {tried} contexts"
        if tried >= self.low_yield_contexts and produced < self.low_yield_rate * tried:
            return f"only {produced} question(s) from the first {tried} contexts"
        return None

    def problems(self) -> list[str]:
        found = []
        if self.zero_yield_patience < 1:
            found.append(f"zero_yield_patience must be at least 1, got {self.zero_yield_patience}")
        if self.low_yield_contexts < 1:
            found.append(f"low_yield_contexts must be at least 1, got {self.low_yield_contexts}")
        if not 0.0 <= self.low_yield_rate <= 1.0:
            found.append(f"low_yield_rate must be in [0, 1], got {self.low_yield_rate}")
        if self.max_questions_per_context < 1:
            found.append(f"max_questions_per_context must be at least 1, got {self.max_questions_per_context}")
        if self.tier_lookahead < 1:
            found.append(f"tier_lookahead must be at least 1, got {self.tier_lookahead}")
        if self.max_tier is not None and self.max_tier < 0:
            found.append(f"max_tier must be at least 0, got {self.max_tier}")
        if not 0.0 < self.page_share <= 1.0:
            found.append(f"page_share must be in (0, 1], got {self.page_share}")
        return found


def stop_barren_types(
    walkers: Mapping[str, Walk],
    produced: Mapping[str, int],
    tried: Mapping[str, int],
    targets: Mapping[str, int],
    rules: StopRules,
    warnings: list[str],
) -> None:
    """Stop a type that gave nothing from its first `zero_yield_patience` contexts, or almost nothing from its
    first `low_yield_contexts` (the stop rules; a warning says so; its share goes to the other types)."""
    for kind, walker in walkers.items():
        if targets.get(kind, 0) <= produced.get(kind, 0) or not walker.active:
            continue
        why = rules.why_stop(produced.get(kind, 0), tried.get(kind, 0))
        if why is None:
            continue
        walker.stop()
        warnings.append(f"question type {kind!r}: {why}; stopped early")


def pass_on_shares(
    missing: Mapping[str, int],
    targets: dict[str, int],
    walkers: Mapping[str, Walk],
    strict_types: bool,
    warnings: list[str],
) -> None:
    """Move the missing count of types with no roots left to the open types (none when `strict_types`: the set
    then falls short)."""
    for kind, count in missing.items():
        if walkers[kind].active:
            continue
        open_kinds = [k for k in targets if walkers[k].active]
        if strict_types or not open_kinds:
            continue
        heir = max(open_kinds, key=lambda k: (targets[k], -QUESTION_TYPES.index(k)))
        targets[kind] -= count
        targets[heir] += count
        warnings.append(
            f"question type {kind!r}: the corpus gave only {targets[kind]} of {targets[kind] + count}; "
            f"{count} filled with {heir!r}"
        )


def advice(stats: GenerationStats, rules: StopRules, writer: str) -> str:
    """What would help a run that fell short, from what stopped it."""
    return " What would help: " + "; ".join(advice_by_reason(stats, rules, writer).values()) + "."


def advice_by_reason(stats: GenerationStats, rules: StopRules, writer: str) -> dict[str, str]:
    """What would help a run that fell short, keyed by what stopped it (for the manifest's partial record)."""
    tips: dict[str, str] = {}
    stopped = [w for w in stats.warnings if w.endswith("stopped early")]
    if stopped:
        tips["types_stopped_early"] = (
            f"{len(stopped)} question type(s) stopped early under the stop rules: raise --zero-yield-patience "
            f"(now {rules.zero_yield_patience}) or --low-yield-contexts (now {rules.low_yield_contexts}), or set "
            f"--low-yield-rate 0 (now {rules.low_yield_rate}) to keep trying them"
        )
    if stats.roots_drawn + stats.roots_barren + stats.roots_skipped >= stats.chunks_available:
        tips["corpus_used_up"] = (
            f"every chunk was used as a root (up to {rules.max_questions_per_context} questions each): add sources, "
            "raise --max-questions-per-context, or lower --size"
        )
    if rules.max_tier is not None and stats.unused:
        tips["tiers_closed"] = (
            f"{stats.unused} draft(s) were left unused, past a full type or in tiers above --max-tier (now "
            f"{rules.max_tier}): raise it, or leave it unset to let every tier fill the set"
        )
    if rules.max_tier is not None and stats.page_deferred:
        tips["page_share"] = (
            f"{stats.page_deferred} draft(s) waited a tier because their page had given its share of the set "
            f"(--page-share now {rules.page_share}): raise it"
        )
    if stats.rejections:
        reason, count = max(stats.rejections.items(), key=lambda item: (item[1], item[0]))
        option = _RELAX.get(reason)
        if option is not None and count >= max(3, stats.accepted // 4):
            tips[f"rejected_{reason}"] = f"the most common rejection is {reason} ({count}): see {option}"
    if writer == "extractive" and stats.candidates < (stats.roots_drawn + stats.roots_barren) // 4:
        tips["few_sentences_to_turn"] = (
            "the offline writer found few sentences it can turn in this text: an LLM writer (--llm) writes from any "
            "prose"
        )
    if not tips:
        tips["corpus_too_small"] = "add sources or lower --size"
    return tips


@dataclass(frozen=True)
class Shortfall:
    """Why a generation made fewer samples than asked: the counts, the stats' account, what would help (by
    reason) and, when the LLM calls failed, that failure."""

    size: int
    made: int
    message: str
    advice: dict[str, str]
    llm_failure: str | None = None

    @classmethod
    def of(cls, stats: GenerationStats, size: int, rules: StopRules, writer: Any, critic: Any) -> Shortfall:
        return cls(
            size=size,
            made=stats.accepted,
            message=stats.shortfall_message(size),
            advice=advice_by_reason(stats, rules, writer.name),
            llm_failure=llm_failure(writer, critic, stats.llm_calls),
        )

    def text(self) -> str:
        """The message a run that stops here prints: the LLM failure when there was one, else what would help."""
        if self.llm_failure is not None:
            return f"{self.llm_failure} {self.message}"
        return f"{self.message} What would help: {'; '.join(self.advice.values())}."

    def to_dict(self) -> dict[str, Any]:
        return {
            "asked": self.size,
            "made": self.made,
            "message": self.message,
            "advice": dict(self.advice),
            "llm_failure": self.llm_failure,
        }


class ShortfallError(RagtestError):
    """The corpus gave fewer samples than asked (`shortfall` says why); `samples` are the ones it did give."""

    def __init__(self, shortfall: Shortfall, samples: Sequence[TestSample]) -> None:
        super().__init__(shortfall.text())
        self.shortfall = shortfall
        self.samples = list(samples)


def llm_failure(writer: Any, critic: Any, calls: int) -> str | None:
    """ "the LLM failed: N of M calls to model X at URL failed; last error: ..." when the writer's or critic's LLM
    calls failed (None when none did)."""
    failed = int(writer.stats.get("failed_calls", 0)) + int(getattr(critic, "failed_calls", 0))
    last = getattr(writer, "last_error", None) or getattr(critic, "last_error", None)
    if not failed or last is None:
        return None
    llm = getattr(writer, "llm", None) or getattr(critic, "llm", None)
    return (
        f"the LLM failed: {failed} of {calls} call(s) to model {getattr(llm, 'model_id', '?')!r} at {llm_url(llm)} "
        f"failed; last error: {last}. Check that the model is served at that URL (--llm, --llm-base-url) and "
        "reachable."
    )


def llm_url(llm: Any) -> str:
    """Where an LLM client's model is served (its base URL), or the provider's default."""
    return str(getattr(llm, "endpoint", None) or "the provider's default URL")
