"""What decides a judge's scores besides its models: its settings, as a fingerprint two runs can compare.

The local judge's settings are the public constants of the modules it scores with (its thresholds, the offline
support rule, the centring); the LLM judge's are its prompt templates. A change to any of them changes the
fingerprint, so runs scored under different settings are never compared as if they were alike.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from evaluation import centring, prompts, thresholds
from ragtest_core import support
from ragtest_core.schema import stable_id

_LOCAL_MODULES: tuple[ModuleType, ...] = (thresholds, support, centring)
_LLM_MODULES: tuple[ModuleType, ...] = (prompts, centring)
_PLAIN = (int, float, str, bool, tuple)


def module_constants(module: ModuleType) -> dict[str, Any]:
    """The module's upper-case constants of plain types (numbers, text, tuples), by name."""
    return {
        name: value
        for name, value in sorted(vars(module).items())
        if name.isupper() and not name.startswith("_") and isinstance(value, _PLAIN)
    }


def judge_settings(judge: str) -> dict[str, Any]:
    """{"judge": name, "fingerprint": a short hash of the settings that decide its scores}."""
    modules = _LLM_MODULES if judge == "llm" else _LOCAL_MODULES
    values = {module.__name__: module_constants(module) for module in modules}
    text = json.dumps(values, sort_keys=True, default=str)
    return {"judge": judge, "fingerprint": stable_id(judge, text)}
