"""A generate that falls short keeps its work, and a later one tops it up (docs/generation.md, "A set short of
`--size`"): the questions made are written and the manifest marks the set partial (`testset_partial`); the step then
stops with `ShortTestsetError` unless `--allow-fewer` accepts them. Beside a partial set, `<stem>.topup.json` keeps
what a top-up needs (`testgen.topup`); a later generate with the same question settings (`question_settings`) keeps
the questions on disk and writes only the missing ones, else it starts afresh and says why.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import testgen
from ragtest.config import GenerationConfig, RunConfig
from ragtest.run_state import RunState
from ragtest.settings import Setting, flag_of, iter_settings, written_value
from ragtest_core.datasets import read_rows, write_dataset
from ragtest_core.errors import LLMError, RagtestError
from ragtest_core.files import atomic_write_text
from ragtest_core.schema import TestSample
from testgen.topup import PriorWork, WalkLog

#: The manifest's stats entries: the partial record, and what a top-up kept (or why it started afresh).
PARTIAL_KEY = "testset_partial"
TOPUP_KEY = "testset_topup"
#: Settings outside the generation group that shape the questions (by keyword).
_SHAPING = ("embedding_model", "llm", "llm_temperature")


class ShortTestsetError(RagtestError):
    """The sources (or the LLM) gave fewer questions than `--size`: they were written and the set is marked
    partial; `run` writes its manifest and stops before answering."""


def topup_path(output: Path) -> Path:
    """Where a partial set keeps what a top-up needs: `testset.jsonl` -> `testset.topup.json`."""
    return output.with_name(f"{output.stem}.topup.json")


def _shaping_settings() -> list[Setting]:
    return [
        s
        for s in iter_settings(RunConfig)
        if (s.group == "generation" and s.name not in GenerationConfig.TOP_UP_FREE) or s.keyword in _SHAPING
    ]


def question_settings(config: RunConfig) -> dict[str, Any]:
    """The settings that shape a test set's questions, as JSON values (secrets redacted), by keyword."""
    values = {s.keyword: written_value(s, s.value_in(config)) for s in _shaping_settings()}
    return dict(json.loads(json.dumps(values, default=str)))


def prior_work(state: RunState, output: Path, store: testgen.ChunkStore) -> PriorWork | None:
    """The partial set at `output` to top up, or None (a fresh set; a note says why when a partial set is there)."""
    prior, note = _read_prior(state.config, output, store)
    if prior is not None:
        state.stats[TOPUP_KEY] = {"kept": len(prior.samples), "from": str(output)}
    elif note:
        state.stats[TOPUP_KEY] = {"kept": 0, "started_afresh": note}
    if note:
        print(f"ragtest: note: {note}", file=sys.stderr)
    return prior


def _read_prior(config: RunConfig, output: Path, store: testgen.ChunkStore) -> tuple[PriorWork | None, str]:
    path = topup_path(output)
    if not path.is_file():
        return None, ""
    where = f"the partial test set {output}"
    if not output.is_file():
        return None, f"{where} is gone (its {path.name} is left): starting afresh"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        walk = WalkLog.from_json(record["walk"])
        samples = tuple(TestSample.model_validate(row) for row in read_rows(output))
    except (OSError, ValueError, KeyError, TypeError, RagtestError) as exc:
        return None, f"{where} cannot be topped up ({type(exc).__name__}: {exc}): starting afresh"
    changed = _changed_settings(record.get("settings") or {}, question_settings(config))
    if changed:
        return None, f"{where} was made with other settings that shape questions ({changed}): starting afresh"
    size = config.generation.size
    if len(samples) >= size:
        return None, f"{where} holds {len(samples)} questions and --size asks {size}: starting afresh"
    prior = PriorWork(samples, walk)
    gone = prior.missing_from(store)
    if gone:
        return None, f"{where} stands on {len(gone)} chunk(s) no longer in the sources: starting afresh"
    return prior, f"topping up {where}: its {len(samples)} questions are kept, {size - len(samples)} more to write"


def _changed_settings(before: dict[str, Any], now: dict[str, Any]) -> str:
    flags = {s.keyword: s.flag for s in _shaping_settings()}
    return ", ".join(
        f"{flags.get(key, key)} {before.get(key)!r} -> {now.get(key)!r}"
        for key in sorted(set(before) | set(now))
        if before.get(key) != now.get(key)
    )


def write_testset(
    state: RunState, generator: testgen.TestsetGenerator, samples: list[TestSample], output: Path
) -> None:
    """Write the test set; when it fell short, mark it partial, keep what a top-up needs, and stop unless the
    config accepts fewer (an LLM failure always stops; a set with no question at all is not written)."""
    shortfall = generator.shortfall
    if shortfall is not None and not samples:
        raise (LLMError if shortfall.llm_failure else RagtestError)(shortfall.text())
    write_dataset([s.model_dump() for s in samples], output)
    if shortfall is None:
        topup_path(output).unlink(missing_ok=True)
        return
    allowed = state.config.generation.allow_fewer and shortfall.llm_failure is None
    sidecar = topup_path(output)
    record = {"asked": shortfall.size, "made": shortfall.made, "settings": question_settings(state.config)}
    # a failed LLM call wrote nothing from its root: with one, the roots are walked again (the cache keeps the rest)
    walk = WalkLog() if shortfall.llm_failure else generator.walk
    atomic_write_text(sidecar, json.dumps({**record, "walk": walk.to_json()}, separators=(",", ":")) + "\n")
    state.stats[PARTIAL_KEY] = {
        **shortfall.to_dict(),
        "kept_from_earlier": generator.stats.kept,
        "accepted": allowed,
        "rejections": dict(sorted(generator.stats.rejections.items())),
        "warnings": list(dict.fromkeys(generator.stats.warnings)),
        "top_up_record": str(sidecar),
    }
    if allowed:
        print(
            f"ragtest: note: accepted {shortfall.made} of the {shortfall.size} questions asked (--allow-fewer); "
            f"{output} is marked partial in its manifest",
            file=sys.stderr,
        )
        return
    where = f"wrote {shortfall.made} of the {shortfall.size} questions asked to {output}; the manifest marks the set"
    # an LLM failure is named first in `shortfall.text()`
    raise ShortTestsetError(f"{where} partial. {shortfall.text()} {_how_to_go_on(shortfall.made)}")


def _how_to_go_on(made: int) -> str:
    looser = ", ".join(
        flag_of(GenerationConfig, name) for name in sorted(GenerationConfig.TOP_UP_FREE - {"size", "allow_fewer"})
    )
    accept = flag_of(GenerationConfig, "allow_fewer")
    return (
        f"To accept these {made}: re-run the same command with {accept} (exit 0; the set stays marked partial). To "
        f"top them up: re-run it with more sources, or with a looser {looser}: the {made} questions on disk are kept "
        "and only the missing ones are written."
    )
