"""When the generator gives up on a question type, and what to tell the user when the corpus falls short.

`StopRules` are settings with defaults (the CLI flags `--zero-yield-patience`, `--low-yield-contexts`,
`--low-yield-rate`, `--max-questions-per-context`, `--tier-lookahead`, `--max-tier`, `--page-share`): a type that
gave no question from its first `zero_yield_patience` contexts, or fewer than `low_yield_rate` a context over its
first `low_yield_contexts`, stops early and its share goes to the other types; a context is asked at most
`max_questions_per_context` questions. Contexts count only when the writer could write from their root
(`can_write`): a barren root is passed over. Drafts of a later tier (`Draft.tier`) join after `tier_lookahead`
written contexts per requested question, or when the roots run out, up to `max_tier`; a documentation page past
`page_share` of the set gives more only from the next tier.
`advice` reads a run's stats and names what would actually help.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from testgen.stats import GenerationStats

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


def advice(stats: GenerationStats, rules: StopRules, writer: str) -> str:
    """What would help a run that fell short, from what stopped it."""
    tips: list[str] = []
    stopped = [w for w in stats.warnings if w.endswith("stopped early")]
    if stopped:
        tips.append(
            f"{len(stopped)} question type(s) stopped early under the stop rules: raise --zero-yield-patience "
            f"(now {rules.zero_yield_patience}) or --low-yield-contexts (now {rules.low_yield_contexts}), or set "
            f"--low-yield-rate 0 (now {rules.low_yield_rate}) to keep trying them"
        )
    used_up = stats.roots_drawn + stats.roots_barren >= stats.chunks_available
    if used_up:
        tips.append(
            f"every chunk was used as a root (up to {rules.max_questions_per_context} questions each): add sources, "
            "raise --max-questions-per-context, or lower --size"
        )
    if rules.max_tier is not None and stats.unused:
        tips.append(
            f"{stats.unused} draft(s) were left unused, past a full type or in tiers above --max-tier (now "
            f"{rules.max_tier}): raise it, or leave it unset to let every tier fill the set"
        )
    if rules.max_tier is not None and stats.page_deferred:
        tips.append(
            f"{stats.page_deferred} draft(s) waited a tier because their page had given its share of the set "
            f"(--page-share now {rules.page_share}): raise it"
        )
    if stats.rejections:
        reason, count = max(stats.rejections.items(), key=lambda item: (item[1], item[0]))
        option = _RELAX.get(reason)
        if option is not None and count >= max(3, stats.accepted // 4):
            tips.append(f"the most common rejection is {reason} ({count}): see {option}")
    if writer == "extractive" and stats.candidates < (stats.roots_drawn + stats.roots_barren) // 4:
        tips.append(
            "the offline writer found few sentences it can turn in this text: an LLM writer (--llm) writes from any "
            "prose"
        )
    if not tips:
        tips.append("add sources or lower --size")
    return " What would help: " + "; ".join(tips) + "."


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
