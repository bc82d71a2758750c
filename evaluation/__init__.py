"""Scoring RAG outputs (the RAGAS metrics and more), by an LLM judge or the offline local judge, with confidence
intervals, and measuring the judges against human labels.

from evaluation import evaluate_dataset
result = evaluate_dataset(frame, judge="local")       # or judge="llm", llm=client; metrics=available_metrics()
result.frame, result.summary                          # summary: mean, ci_low, ci_high, rows_scored, by_question_type

from evaluation.meta_eval import run_wikieval, format_table
print(format_table(run_wikieval("wikieval.jsonl")))

from evaluation import label_agreement, ppi_mean
label_agreement(scored_frame, label_rows)             # the judge against human labels, per metric
ppi_mean(labels, judge_on_labelled, judge_on_others)  # the humans' mean from a biased judge plus a few labels
"""

from evaluation import metrics
from evaluation.agreement import cohen_kappa, correlations, pairwise_accuracy
from evaluation.compare_stats import PairedStats, paired_breakdown, paired_stats
from evaluation.engine import EvaluationResult, aevaluate_dataset, evaluate_dataset, score_records
from evaluation.identity import judge_settings
from evaluation.intervals import Interval, difference_ci, mean_ci
from evaluation.label_agreement import LabelAgreement, label_agreement
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import JudgeFreeMetric, Metric
from evaluation.metrics import *  # noqa: F403 - the built-in metric classes, listed once in evaluation.metrics
from evaluation.planning import plan_llm_calls
from evaluation.ppi import PPIEstimate, ppi_mean
from evaluation.registry import (
    DEFAULT_METRICS,
    available_metrics,
    expand_selection,
    get_metric,
    register_metric,
    unregister_metric,
)
from evaluation.sample import Sample
from evaluation.stats import bootstrap_ci

__all__ = [
    "DEFAULT_METRICS",
    "EvaluationResult",
    "Interval",
    "JudgeFreeMetric",
    "LLMJudge",
    "LabelAgreement",
    "LocalJudge",
    "Metric",
    "PPIEstimate",
    "PairedStats",
    "Sample",
    "aevaluate_dataset",
    "available_metrics",
    "bootstrap_ci",
    "cohen_kappa",
    "correlations",
    "difference_ci",
    "evaluate_dataset",
    "expand_selection",
    "get_metric",
    "judge_settings",
    "label_agreement",
    "mean_ci",
    "paired_breakdown",
    "paired_stats",
    "pairwise_accuracy",
    "plan_llm_calls",
    "ppi_mean",
    "register_metric",
    "score_records",
    "unregister_metric",
    *metrics.__all__,
]
