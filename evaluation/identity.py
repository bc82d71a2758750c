"""What decides a judge's scores besides its models: one frozen settings object, and a fingerprint two runs can
compare.

`JudgeSettings` names every setting explicitly: the embedding model; the offline rules' parameters
(`ragtest_core.judge_params.PARAMS`, one frozen object the rules read); the word lists they score with; for the
local judge, the support model's fitted and prior parameters, the calibration map, where the centring mean comes
from and the sha256 of each shipped parameter file (`LocalJudgeSettings.describe`); for the LLM judge, its prompt
templates and the centring mean its answer relevancy uses. The fingerprint is a hash of the whole object, so runs
scored under different settings are never compared as if they were alike. Manifests record the whole object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from evaluation import prompts
from evaluation.local_judge import LocalJudgeSettings, sha256_of
from ragtest_core import judge_params, relevance, text, textunits
from ragtest_core.embeddings import DEFAULT_MODEL
from ragtest_core.schema import stable_id


def word_lists() -> dict[str, list[str]]:
    """The vocabularies the offline rules read, sorted: a changed list changes the fingerprint."""
    lists = {
        "stopwords": text.STOPWORDS,
        "fillers": textunits.FILLERS,
        "evaluative": textunits.EVALUATIVE,
        "months": textunits.MONTHS,
        "weekdays": textunits.WEEKDAYS,
    }
    return {name: sorted(words) for name, words in lists.items()}


@dataclass(frozen=True)
class JudgeSettings:
    """Every setting that decides one judge's scores (see the module docstring)."""

    judge: str
    embedding_model: str
    params: Mapping[str, Any]
    word_lists: Mapping[str, list[str]]
    #: The local judge: support model, calibration, centring mean, shipped files (`LocalJudgeSettings.describe`).
    local: Mapping[str, Any] | None = None
    #: The LLM judge: its instructions by call, and the centring mean of its answer relevancy.
    prompts: Mapping[str, str] | None = None
    centring_mean_sha256: str | None = None

    @classmethod
    def of(
        cls, judge: str, local: LocalJudgeSettings | None = None, embedding_model: str = DEFAULT_MODEL
    ) -> JudgeSettings:
        params, words = judge_params.PARAMS.as_dict(), word_lists()
        if judge == "llm":
            centring = sha256_of(relevance.CENTRING_MEAN_FILE)
            templates = dict(prompts.TEMPLATES)
            return cls(judge, embedding_model, params, words, prompts=templates, centring_mean_sha256=centring)
        return cls(judge, embedding_model, params, words, local=(local or LocalJudgeSettings()).describe())

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}

    @property
    def fingerprint(self) -> str:
        return stable_id(self.judge, json.dumps(self.as_dict(), sort_keys=True, default=str))


def judge_settings(
    judge: str, local: LocalJudgeSettings | None = None, embedding_model: str = DEFAULT_MODEL
) -> dict[str, Any]:
    """{"judge": name, "fingerprint": a short hash of the settings, "settings": every setting (`JudgeSettings`)}.

    `local`: the local judge's settings when they are not the shipped ones (a user's centring corpus)."""
    settings = JudgeSettings.of(judge, local, embedding_model)
    return {"judge": judge, "fingerprint": settings.fingerprint, "settings": settings.as_dict()}
