"""Scoring RAG outputs (the RAGAS metrics and more), by an LLM judge or the offline local judge, with confidence
intervals, and measuring the judges against human labels.

Users score through `ragtest.evaluate` (one way in); what is listed here is for writing a metric of one's own and
for checking a judge against human labels:

    from evaluation import Metric, Sample, LocalJudge, register_metric
    @register_metric
    class AnswerLength(Metric): ...                        # then metrics=["answer_length"] (--metrics)

    from evaluation import label_agreement, ppi_mean
    label_agreement(scored_frame, label_rows)             # the judge against human labels, per metric
    ppi_mean(labels, judge_on_labelled, judge_on_others)  # the humans' mean from a biased judge plus a few labels

The app's plumbing lives in the submodules that own it: the scoring engine (`engine.evaluate_dataset`), the built-in
metric classes (`metrics`), the statistics (`intervals`, `stats`, `compare_stats`, `label_stats`), judge identity.
"""

from evaluation.label_agreement import label_agreement
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import JudgeFreeMetric, Metric
from evaluation.ppi import ppi_mean
from evaluation.registry import available_metrics, get_metric, register_metric, unregister_metric
from evaluation.sample import Sample

__all__ = [
    "JudgeFreeMetric",
    "LLMJudge",
    "LocalJudge",
    "Metric",
    "Sample",
    "available_metrics",
    "get_metric",
    "label_agreement",
    "ppi_mean",
    "register_metric",
    "unregister_metric",
]
