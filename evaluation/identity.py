"""What decides a judge's scores besides its models: every setting, and a fingerprint two runs can compare.

`judge_settings` names every setting explicitly: the embedding model; the offline rules' parameters
(`ragtest_core.judge_params.PARAMS`, one frozen object the rules read); the word lists they score with; for the
local judge, the support model's fitted and prior parameters, the calibration map, where the centring mean comes
from and the sha256 of each shipped parameter file (`LocalJudgeSettings.describe`); for the LLM judge, its prompt
templates and the centring mean its answer relevancy uses. The fingerprint is a hash of them all, so runs
scored under different settings are never compared as if they were alike. Manifests record every setting.
"""

from __future__ import annotations

import json
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


def judge_settings(judge: str, local: LocalJudgeSettings | None = None) -> dict[str, Any]:
    """{"judge": name, "fingerprint": a short hash of the settings, "settings": every setting (the module
    docstring)}. `local`: the local judge's settings when they are not the shipped ones (a user's centring corpus)."""
    settings: dict[str, Any] = {
        "judge": judge,
        "embedding_model": DEFAULT_MODEL,
        "params": judge_params.PARAMS.as_dict(),
        "word_lists": word_lists(),
    }
    if judge == "llm":  # its instructions by call, and the centring mean of its answer relevancy
        settings |= {
            "prompts": dict(prompts.TEMPLATES),
            "centring_mean_sha256": sha256_of(relevance.CENTRING_MEAN_FILE),
        }
    else:
        settings["local"] = (local or LocalJudgeSettings()).describe()
    fingerprint = stable_id(judge, json.dumps(settings, sort_keys=True, default=str))
    return {"judge": judge, "fingerprint": fingerprint, "settings": settings}
