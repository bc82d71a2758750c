"""What to tell the user when the corpus falls short: what would help (`advice`, from a run's stats and its stop
rules, `testgen.settings.GenerationSettings`), and the `Shortfall` a short run records, raised as `ShortfallError`
(with the samples made) unless the caller accepts fewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ragtest_core.errors import RagtestError
from ragtest_core.schema import TestSample
from testgen.critic import Critic
from testgen.settings import GenerationSettings
from testgen.stats import GenerationStats
from testgen.writers.base import QuestionWriter

#: What relaxes each rejection reason (the option to change), for the shortfall message.
_RELAX = {
    "too_long": "--max-question-words",
    "question_too_long": "--max-question-words",
    "copies_context": "--max-copied-words",
    "near_duplicate": "--dedup-threshold (higher keeps more similar questions)",
    "not_grounded": "--critic offline, or a stronger --llm",
    "critic_failed": "a working critic LLM (or --critic offline)",
}


def advice_by_reason(stats: GenerationStats, rules: GenerationSettings, writer: str) -> dict[str, str]:
    """What would help a run that fell short, keyed by what stopped it (for the manifest's partial record)."""
    tips: dict[str, str] = {}
    if stopped := [w for w in stats.warnings if w.endswith("stopped early")]:
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
    def of(cls, stats: GenerationStats, rules: GenerationSettings, writer: QuestionWriter, critic: Critic) -> Shortfall:
        return cls(
            size=rules.size,
            made=stats.accepted,
            message=stats.shortfall_message(rules.size),
            advice=advice_by_reason(stats, rules, writer.name),
            llm_failure=llm_failure(writer, critic, stats.llm_calls),
        )

    def text(self) -> str:
        """The message a run that stops here prints: the LLM failure when there was one, else what would help."""
        if self.llm_failure is not None:
            return f"{self.llm_failure} {self.message}"
        return f"{self.message} What would help: {'; '.join(self.advice.values())}."

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {"asked": data.pop("size"), **data}


class ShortfallError(RagtestError):
    """The corpus gave fewer samples than asked (`shortfall` says why); `samples` are the ones it did give."""

    def __init__(self, shortfall: Shortfall, samples: Sequence[TestSample]) -> None:
        super().__init__(shortfall.text())
        self.shortfall = shortfall
        self.samples = list(samples)


def llm_failure(writer: QuestionWriter, critic: Critic, calls: int) -> str | None:
    """ "the LLM failed: N of M calls to model X at URL failed; last error: ..." when the writer's or critic's LLM
    calls failed (None when none did)."""
    failed = int(writer.stats.get("failed_calls", 0)) + critic.failed_calls
    last = writer.last_error or critic.last_error
    llm = writer.llm or critic.llm
    if not failed or last is None or llm is None:
        return None
    return (
        f"the LLM failed: {failed} of {calls} call(s) to model {llm.model_id!r} at {llm.breaker.endpoint} failed; "
        f"last error: {last}. Check that the model is served at that URL (--llm, --llm-base-url) and reachable."
    )
