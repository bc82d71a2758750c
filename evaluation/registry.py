"""Metrics by name. The built-in metrics are registered here; `register_metric` adds a user's metric class.

Retrieval metrics take a cut-off in the name: "hit_rate@10", "ndcg@3" (plain "hit_rate"/"ndcg": every retrieved
context, or the run's `retrieval_k`). "all" selects every registered metric.
"""

from __future__ import annotations

from evaluation.metric import NO_DEFINITION, Metric, MetricExplanation
from evaluation.metrics import BUILTIN_METRICS
from evaluation.metrics.retrieval import CUT_OFF_METRICS, RetrievalMetric, at_k
from ragtest_core.errors import RagtestError

_REGISTRY: dict[str, type[Metric]] = {}

#: The metrics `evaluate_dataset` scores when none are named.
DEFAULT_METRICS: tuple[str, ...] = (
    "faithfulness",
    "answer_relevancy",
    "context_relevance",
    "context_precision",
    "context_recall",
)


def register_metric(metric_class: type[Metric], *, replace: bool = False) -> type[Metric]:
    """Make a `Metric` subclass available by its `name` (usable as a class decorator)."""
    name = getattr(metric_class, "name", "")
    if not isinstance(metric_class, type) or not issubclass(metric_class, Metric):
        raise RagtestError(f"{metric_class!r} is not a Metric subclass")
    if not name:
        raise RagtestError(f"{metric_class.__name__} needs a non-empty `name`")
    if name in _REGISTRY and _REGISTRY[name] is not metric_class and not replace:
        raise RagtestError(f"a metric named {name!r} is already registered; pass replace=True to override it")
    _REGISTRY[name] = metric_class
    return metric_class


def unregister_metric(name: str) -> None:
    """Remove a registered metric (the built-in ones can be registered again)."""
    _REGISTRY.pop(name, None)


def available_metrics() -> list[str]:
    """Names of every registered metric, sorted."""
    return sorted(_REGISTRY)


#: The name that selects every registered metric.
ALL = "all"


def get_metric(name: str, retrieval_k: int | None = None) -> Metric:
    """A new instance of the metric registered as `name` (a plain hit_rate or ndcg cut at `retrieval_k`)."""
    metric_class = _REGISTRY.get(name)
    if retrieval_k is not None and metric_class is not None and issubclass(metric_class, CUT_OFF_METRICS):
        return at_k(metric_class, retrieval_k, named=False)()
    base, _, k = name.partition("@")
    if k and base in _REGISTRY and issubclass(_REGISTRY[base], RetrievalMetric) and k.isdigit() and int(k) > 0:
        return at_k(_REGISTRY[base], int(k))()  # type: ignore[arg-type]
    try:
        return _REGISTRY[name]()
    except KeyError:
        raise RagtestError(f"unknown metric {name!r}; available: {', '.join(available_metrics())}") from None


def metric_threshold(name: str) -> float:
    """The score at or above which `name` reads as "yes" (`Metric.threshold` for a metric not registered here)."""
    return float((_registered_class(name) or Metric).threshold)


def expand_selection(metrics: object) -> list[object]:
    """The selection as a list: None -> the five RAGAS metrics; "all" -> every registered metric."""
    if metrics is None:
        return list(DEFAULT_METRICS)
    items: list[object] = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)  # type: ignore[call-overload]
    if ALL in items:
        items = [*_REGISTRY, *(item for item in items if item != ALL and item not in _REGISTRY)]
    return items


def resolve_metrics(metrics: object, retrieval_k: int | None = None) -> list[Metric]:
    """Metric instances from names and/or instances (None: the five RAGAS metrics; "all": every registered one);
    names must be unique. `retrieval_k` cuts plain hit_rate and ndcg at k (default: every retrieved context)."""
    resolved: list[Metric] = []
    for item in expand_selection(metrics):
        if isinstance(item, str):
            resolved.append(get_metric(item, retrieval_k))
        elif isinstance(item, Metric):
            if not item.name:
                raise RagtestError(f"{type(item).__name__} needs a non-empty `name`")
            resolved.append(item)
        else:
            raise RagtestError(f"expected a metric name or Metric instance, got {item!r}")
    names = [m.name for m in resolved]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise RagtestError(f"metric(s) selected twice: {', '.join(duplicates)}")
    if not resolved:
        raise RagtestError("no metrics selected")
    return resolved


def _registered_class(name: str) -> type[Metric] | None:
    """The class registered as `name`, or as its base name ("hit_rate" for "hit_rate@10"); None when neither is."""
    return _REGISTRY.get(name) or _REGISTRY.get(name.partition("@")[0])


def metric_scale(name: str) -> str | None:
    """The `scale` (binary, rank or graded) of the metric registered as `name` ("hit_rate@10" included); None for
    a name not registered here (a user's metric scored in another process)."""
    metric_class = _registered_class(name)
    return metric_class.scale if metric_class is not None else None


def higher_is_better(name: str) -> bool:
    """Whether a higher score of the metric registered as `name` is better (True for a name not registered here)."""
    return (_registered_class(name) or Metric).higher_is_better


def metric_explanation(name: str) -> MetricExplanation:
    """The definition and scale note the metric registered as `name` declares on its class ("hit_rate@10"
    included: hit_rate's), read without building the metric; a name not registered here, or a metric that declares
    none, gets `NO_DEFINITION`. What the reports print beside a score and the docs' metrics table list."""
    metric_class = _registered_class(name) or Metric
    return MetricExplanation(
        name,
        " ".join(metric_class.definition.split()) or NO_DEFINITION,
        " ".join(metric_class.scale_note.split()),
        metric_class.higher_is_better,
    )


for _builtin in BUILTIN_METRICS:
    register_metric(_builtin)
