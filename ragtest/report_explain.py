"""What the reports and the console say so that a reader needs nothing else: each metric's definition and how its
scale reads (declared once, on the metric's class: `evaluation.registry.metric_explanation` reads it for the reports
and for the docs' metrics table), what each id printed is for, what the prediction-powered means correct, and how
the terminal tables print a number. The templates and the console print these texts; none keeps a copy.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragtest.report_rows import TOP_BAND, TOP_VALUE


@dataclass(frozen=True)
class IdNote:
    """An id the report prints: the words it is printed with, and what it is for."""

    label: str
    #: A few words, printed beside the id where space is short.
    short: str
    meaning: str


TESTSET_ID = IdNote(
    label="test set fingerprint",
    short="runs that show the same fingerprint scored the same questions",
    meaning=(
        "a hash of the test set's questions and reference answers (and sample ids), whatever their order: adding, "
        "removing or editing a question or its reference answer changes it. Runs that show the same fingerprint "
        "scored the same questions against the same references, so their scores compare row by row "
        "(ragtest compare)."
    ),
)
JUDGE_SETTINGS_ID = IdNote(
    label="judge settings id",
    short="runs with the same id were scored by the same rules",
    meaning=(
        "a hash of every setting besides the models that decides the judge's scores: its parameters, word lists and "
        "fitted calibration files (local judge) or its prompts (LLM judge). Runs with the same id were scored by the "
        "same rules; ragtest compare refuses runs whose ids differ. manifest.json lists the settings in full; a new "
        "ragtest version may change them."
    ),
)

#: How the rows to look at are chosen, for a reader (`ragtest.report_rows` has the rule in code).
ROWS_TO_LOOK_AT = (
    "Rows to look at are where to start reading, not a pass mark. A 0/1 metric lists every miss; mrr and ndcg "
    "their misses, then the hits below rank 1; any other metric the rows below its median on this run (its weaker "
    f"half), or, when that median is within {TOP_BAND:.2f} of the top score {TOP_VALUE:.0f}, the rows more than "
    f"{TOP_BAND:.2f} under it (turned round where lower is better). The line moves with the run: it says which rows "
    "are weakest here, not which are wrong."
)

#: What the prediction-powered means are and what they correct: the run report (HTML and Markdown) and the console.
PPI_CORRECTS = (
    "The prediction-powered mean (PPI++, Angelopoulos et al. 2023) corrects the judge's mean for the judge's bias "
    "measured on the rows people labelled (judge bias: the judge's mean there minus the labels'; negative: the "
    "judge reads lower than people): it estimates the mean people would give on every row, with a 95% interval "
    "valid whatever the judge, provided the labelled rows are a random sample of the run."
)

#: What the prediction-powered changes of `compare` are (both runs labelled).
PPI_CHANGE = (
    "Both runs have human labels: each mean is the prediction-powered (PPI++) estimate, which corrects the judge's "
    "bias measured on the labelled rows; the change is estimated on the rows labelled in both runs (paired) when "
    "there are enough of them, else from the two runs' estimates. A --fail-if rule on these metrics reads this "
    "interval."
)


def number(value: float | None, sign: bool = False) -> str:
    """A mean or a change as the terminal tables print it (three decimals; "n/a" when there is none)."""
    if value is None:
        return "n/a"
    return f"{value:+.3f}" if sign else f"{value:.3f}"


def interval(low: float | None, high: float | None, sign: bool = False) -> str:
    return f"[{number(low, sign)}, {number(high, sign)}]" if low is not None and high is not None else "-"
