"""The five RAGAS metrics."""

from evaluation.metrics.answer_relevancy import AnswerRelevancy
from evaluation.metrics.context_precision import ContextPrecision
from evaluation.metrics.context_recall import ContextRecall
from evaluation.metrics.context_relevance import ContextRelevance
from evaluation.metrics.faithfulness import Faithfulness

__all__ = ["AnswerRelevancy", "ContextPrecision", "ContextRecall", "ContextRelevance", "Faithfulness"]
