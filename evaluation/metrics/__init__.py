"""The built-in metrics: the five RAGAS metrics, answer correctness, citations, retrieval ranks, text overlap,
robustness and the claim-level diagnostics (RAGChecker)."""

from evaluation.metric import Metric
from evaluation.metrics.answer_correctness import AnswerCorrectness
from evaluation.metrics.answer_relevancy import AnswerRelevancy, AnswerRelevancyRaw
from evaluation.metrics.citations import CitationPrecision, CitationRecall
from evaluation.metrics.context_precision import ContextPrecision
from evaluation.metrics.context_recall import ContextRecall
from evaluation.metrics.context_relevance import ContextRelevance
from evaluation.metrics.diagnostics import DIAGNOSTIC_CLASSES
from evaluation.metrics.faithfulness import Faithfulness
from evaluation.metrics.retrieval import MRR, NDCG, AllGoldHit, HitRate
from evaluation.metrics.robustness import NegativeRejection, NoiseRobustness
from evaluation.metrics.text_overlap import Bleu, ExactMatch, RougeL, SemanticSimilarity, TokenF1

#: Every built-in metric, in the order summaries list them; the registry is built from this one list.
BUILTIN_METRICS: tuple[type[Metric], ...] = (
    Faithfulness,
    AnswerRelevancy,
    AnswerRelevancyRaw,
    ContextRelevance,
    ContextPrecision,
    ContextRecall,
    AnswerCorrectness,
    CitationRecall,
    CitationPrecision,
    HitRate,
    AllGoldHit,
    MRR,
    NDCG,
    ExactMatch,
    TokenF1,
    RougeL,
    Bleu,
    SemanticSimilarity,
    NegativeRejection,
    NoiseRobustness,
    *DIAGNOSTIC_CLASSES,
)
