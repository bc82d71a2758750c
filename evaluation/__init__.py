"""Scoring RAG outputs with the five RAGAS metrics, by an LLM judge or the offline local judge.

from evaluation import evaluate_dataset
result = evaluate_dataset(frame, judge="local")       # or judge="llm", llm=client
result.frame, result.summary
"""

from evaluation.engine import EvaluationResult, aevaluate_dataset, evaluate_dataset
from evaluation.llm_judge import LLMJudge
from evaluation.local_judge import LocalJudge
from evaluation.metric import Metric
from evaluation.metrics import AnswerRelevancy, ContextPrecision, ContextRecall, ContextRelevance, Faithfulness
from evaluation.registry import DEFAULT_METRICS, available_metrics, get_metric, register_metric, unregister_metric
from evaluation.sample import Sample

__all__ = [
    "DEFAULT_METRICS",
    "AnswerRelevancy",
    "ContextPrecision",
    "ContextRecall",
    "ContextRelevance",
    "EvaluationResult",
    "Faithfulness",
    "LLMJudge",
    "LocalJudge",
    "Metric",
    "Sample",
    "aevaluate_dataset",
    "available_metrics",
    "evaluate_dataset",
    "get_metric",
    "register_metric",
    "unregister_metric",
]
