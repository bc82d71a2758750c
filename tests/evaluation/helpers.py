"""Small frames shared by the evaluation tests."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ragtest_core.llm.client import LLMClient
from tests.stubs.scripted import ScriptedChatModel

MakeClient = Callable[[Callable[[str], str]], tuple[LLMClient, ScriptedChatModel]]


def one_row(**overrides: object) -> pd.DataFrame:
    row: dict[str, object] = {
        "question": "Where is the Eiffel Tower and when was it built?",
        "answer": "The Eiffel Tower is in Paris. It was built in 1889. It is painted blue.",
        "contexts": [
            "The Eiffel Tower is a wrought-iron lattice tower in Paris, France.",
            "Bananas are rich in potassium.",
            "The tower was built from 1887 to 1889 for the World's Fair.",
        ],
        "ground_truth": "The Eiffel Tower is in Paris. It was built in 1889.",
    }
    row.update(overrides)
    return pd.DataFrame([row])
