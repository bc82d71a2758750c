"""What decides a judge's scores besides its models: its settings, and a fingerprint two runs can compare.

`judge_settings("local")` lists every parameter of the local judge: the public constants of the modules it scores
with (`ragtest_core.textunits`, `ragtest_core.support`, `ragtest_core.relevance`, `evaluation.local_scoring`,
`evaluation.thresholds`), the support function's fitted and prior parameters, the calibration map, where the
centring mean comes from, and the sha256 of each shipped parameter file. The LLM judge's settings are its prompt
templates and the centring mean its answer relevancy uses. A change to any of them changes the fingerprint, so
runs scored under different settings are never compared as if they were alike. Manifests record the whole dict.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from evaluation import local_scoring, prompts, thresholds
from evaluation.local_judge import LocalJudgeSettings, sha256_of
from ragtest_core import relevance, support, textunits
from ragtest_core.embeddings import DEFAULT_MODEL
from ragtest_core.schema import stable_id

_LOCAL_MODULES: tuple[ModuleType, ...] = (textunits, support, relevance, local_scoring, thresholds)
_LLM_MODULES: tuple[ModuleType, ...] = (prompts, thresholds)
_PLAIN = (int, float, str, bool, tuple)


def module_constants(module: ModuleType) -> dict[str, Any]:
    """The module's upper-case constants of plain types (numbers, text, tuples; sets as sorted lists), by name."""
    return {
        name: sorted(value) if isinstance(value, frozenset) else value
        for name, value in sorted(vars(module).items())
        if name.isupper() and not name.startswith("_") and isinstance(value, (*_PLAIN, frozenset))
    }


def settings_of(
    judge: str, local: LocalJudgeSettings | None = None, embedding_model: str = DEFAULT_MODEL
) -> dict[str, Any]:
    """Every setting that decides the judge's scores (see the module docstring)."""
    modules = _LLM_MODULES if judge == "llm" else _LOCAL_MODULES
    values: dict[str, Any] = {
        "embedding_model": embedding_model,
        "constants": {module.__name__: module_constants(module) for module in modules},
    }
    if judge == "llm":
        values["centring_mean_sha256"] = sha256_of(relevance.CENTRING_MEAN_FILE)
    else:
        values.update((local or LocalJudgeSettings()).describe())
    return values


def judge_settings(
    judge: str, local: LocalJudgeSettings | None = None, embedding_model: str = DEFAULT_MODEL
) -> dict[str, Any]:
    """{"judge": name, "fingerprint": a short hash of the settings, "settings": every setting (see `settings_of`)}.

    `local`: the local judge's settings when they are not the shipped ones (a user's centring corpus)."""
    values = settings_of(judge, local, embedding_model)
    text = json.dumps(values, sort_keys=True, default=str)
    return {"judge": judge, "fingerprint": stable_id(judge, text), "settings": values}
