"""The judges' remaining fixed thresholds. The local judge's parameters live with the code that uses them:
`ragtest_core.support` (graded support: the fitted logistic and the conflict factors), `ragtest_core.relevance`
(the fixed centring mean and the calibration map), `evaluation.local_scoring` (precision and citation cut-offs);
`evaluation.judge_settings("local")` lists them all, with the sha256 of each shipped parameter file.
"""

from __future__ import annotations

#: answer_relevancy (LLM judge): a generated question's centred cosine below this counts as this.
ANSWER_RELEVANCY_FLOOR = 0.0
