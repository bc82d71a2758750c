"""What one generation run did, for the run manifest: counts, rejections by reason, types, coverage, warnings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from testgen.writers.base import REJECTED_PREFIX

#: Counts by name, written sorted by name.
_SORTED = frozenset(
    {"rejections", "writer", "produced_types", "accepted_by_strategy", "rejected_by_strategy", "accepted_by_tier"}
)


@dataclass
class GenerationStats:
    chunks_available: int = 0
    sources: list[str] = field(default_factory=list)
    roots_drawn: int = 0
    #: Roots the writer could write nothing from (the offline writer's rules found no sentence to turn): passed over.
    roots_barren: int = 0
    contexts_without_neighbours: int = 0
    candidates: int = 0
    accepted: int = 0
    unused: int = 0
    rejections: Counter[str] = field(default_factory=Counter)
    writer: dict[str, int] = field(default_factory=dict)
    critic: str = ""
    llm_calls: int = 0
    distribution: dict[str, float] = field(default_factory=dict)
    requested_types: dict[str, int] = field(default_factory=dict)
    produced_types: dict[str, int] = field(default_factory=dict)
    coverage: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: Accepted questions and rejections (screen and writer) by the offline writer's strategy ("llm" otherwise).
    accepted_by_strategy: Counter[str] = field(default_factory=Counter)
    rejected_by_strategy: Counter[str] = field(default_factory=Counter)
    #: Accepted questions by their draft's tier ("0" first: `testgen.writers.base.Draft.tier`).
    accepted_by_tier: Counter[str] = field(default_factory=Counter)
    #: Drafts that waited a tier because their documentation page had given its share (`GenerationSettings.page_share`).
    page_deferred: int = 0
    #: A top-up (`testgen.topup`): samples kept from the partial set (counted in `accepted`, first), and roots an
    #: earlier run wrote for a type that were passed over, not written again.
    kept: int = 0
    roots_skipped: int = 0
    #: With personas: questions per persona; with query styles or lengths: rows per style and length, LLM rewrites
    #: and the rewrites that fell back to the offline transform (`testgen.styles.Restyler.stats`). Written only then.
    personas: dict[str, int] = field(default_factory=dict)
    styles: dict[str, int] = field(default_factory=dict)

    def add_writer_rejections(self, writer_stats: Mapping[str, int]) -> None:
        """The writer's own checks (grammar, definitions) as rejections and candidates, and by strategy."""
        for key, count in writer_stats.items():
            if key.startswith(REJECTED_PREFIX) and count:
                self.rejections[key.removeprefix(REJECTED_PREFIX)] += count
                self.candidates += count
            elif key.startswith("strategy_") and key.endswith("_rejected") and count:
                self.rejected_by_strategy[key.removeprefix("strategy_").removesuffix("_rejected")] += count

    def to_dict(self) -> dict[str, Any]:
        """The manifest's record: every field but `sources`, in field order (counts by name sorted), with the
        rejection rate and the documents without samples; personas and query styles only when asked for."""
        data: dict[str, Any] = {}
        for name, value in ((f.name, getattr(self, f.name)) for f in fields(self)):
            if name == "sources" or (name in ("personas", "styles") and not value):
                continue
            key = "query_styles" if name == "styles" else name
            data[key] = dict(sorted(value.items())) if name in _SORTED else value
            if name == "rejections":
                data["rejection_rate"] = round(sum(value.values()) / self.candidates, 4) if self.candidates else 0.0
            elif name == "coverage":
                data["documents_without_samples"] = [source for source in self.sources if source not in value]
        data["distribution"] = {k: round(v, 4) for k, v in self.distribution.items()}
        data["warnings"] = list(dict.fromkeys(self.warnings))
        return data

    def shortfall_message(self, size: int) -> str:
        rejected = sum(self.rejections.values())
        reasons = ", ".join(f"{reason} {count}" for reason, count in sorted(self.rejections.items())) or "none"
        warnings = f" Warnings: {'; '.join(dict.fromkeys(self.warnings))}." if self.warnings else ""
        barren = f" ({self.roots_barren} more passed over: nothing to turn)" if self.roots_barren else ""
        kept = (
            f" ({self.kept} kept from the partial set; {self.roots_skipped} contexts it wrote not written again)"
            if self.kept
            else ""
        )
        return (
            f"the corpus supplied only {self.accepted} of the {size} requested samples{kept}: {self.roots_drawn} "
            f"contexts{barren} from {self.chunks_available} chunks gave {self.candidates} candidate questions = "
            f"{self.accepted - self.kept} accepted + {rejected} rejected ({reasons}) + {self.unused} unused (their "
            f"type was full, or their tier was not opened). Types requested {self.requested_types}, produced "
            f"{self.produced_types}.{warnings}"
        )
