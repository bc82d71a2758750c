"""Token and cost accounting per call label, per pipeline phase and per metric, from the provider's usage metadata
(estimated when it is missing). Prices come from a small table that a JSON or TOML file can extend or override.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import tomllib

from ragtest_core.errors import RagtestError

#: USD per million tokens (input, output). Extend or override with `--prices FILE` or RAGTEST_PRICES=FILE.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-sonnet-4": (3.00, 15.00),
}
PRICES_ENV = "RAGTEST_PRICES"
#: What a provider's Batch API charges, as a share of its online price (OpenAI and Anthropic: half).
BATCH_PRICE_FACTOR = 0.5


def no_price_note(model_id: str) -> str:
    """What a usage or dry-run table adds under its `cost=n/a`: that no price is known, and how to give one."""
    model = model_id.rsplit("#", 1)[-1]  # an OpenAI-compatible server's model, after its URL
    example = f"{{{json.dumps(model or 'my-model')}: [0.5, 1.5]}}"  # the whole name: always the first tried
    return (
        f"cost=n/a: no price is known for {model or 'this model'}; give one with --prices FILE (or {PRICES_ENV}=FILE),"
        f" a JSON or TOML table of model name prefix -> [input, output] USD per million tokens, e.g. {example}"
    )


def estimate_tokens(text: str) -> int:
    """About four characters a token: the usual estimate when a provider reports no usage."""
    return max(1, (len(text) + 3) // 4)


def load_prices(path: str | Path | None = None) -> dict[str, tuple[float, float]]:
    """The default table updated from `path` (or $RAGTEST_PRICES): JSON or TOML mapping a model name prefix to
    `[input, output]` or `{input = .., output = ..}` in USD per million tokens (optionally under a `prices` key)."""
    source = path or os.environ.get(PRICES_ENV)
    if not source:
        return dict(DEFAULT_PRICES)
    file = Path(source)
    try:
        text = file.read_text(encoding="utf-8")
        data: Any = tomllib.loads(text) if file.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, ValueError) as exc:
        raise RagtestError(f"could not read the price table {file}: {exc}") from exc
    table = data.get("prices", data) if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise RagtestError(f"{file}: expected a table of model -> [input, output] USD per million tokens")
    return DEFAULT_PRICES | {str(model): _price_pair(file, str(model), value) for model, value in table.items()}


def _price_pair(file: Path, model: str, value: Any) -> tuple[float, float]:
    try:
        input_price, output_price = (value["input"], value["output"]) if isinstance(value, Mapping) else value
        return float(input_price), float(output_price)
    except (KeyError, TypeError, ValueError):
        raise RagtestError(
            f"{file}: the price of {model!r} must be [input, output] or {{input, output}} (USD per million tokens)"
        ) from None


@dataclass
class StageUsage:
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    rate_limited: int = 0
    failures: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    estimated_calls: int = 0
    #: Calls answered through a provider batch, and their tokens (part of the totals above, priced at the batch rate).
    batch_calls: int = 0
    batch_input_tokens: int = 0
    batch_output_tokens: int = 0
    #: Batch lines that failed (each then made online, or in a later batch).
    batch_failed_lines: int = 0

    def add(self, other: StageUsage) -> None:
        for item in fields(self):
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))


@dataclass
class CallTiming:
    """When requests were in flight: how many, their summed latency, the first start and the last end."""

    requests: int = 0
    busy_s: float = 0.0
    first_start: float | None = None
    last_end: float | None = None

    def add(self, started: float, ended: float) -> None:
        self.requests += 1
        self.busy_s += max(0.0, ended - started)
        self.first_start = started if self.first_start is None else min(self.first_start, started)
        self.last_end = ended if self.last_end is None else max(self.last_end, ended)

    @property
    def span_s(self) -> float:
        return 0.0 if self.first_start is None or self.last_end is None else self.last_end - self.first_start

    def utilisation(self, concurrency: int) -> float | None:
        """Achieved requests/s over what `concurrency` calls in flight could do at the mean latency:
        (requests / span) / (concurrency / (busy / requests)) = busy / (span * concurrency)."""
        measured = self.requests and self.span_s > 0 and concurrency > 0
        return self.busy_s / (self.span_s * concurrency) if measured else None

    def as_dict(self, concurrency: int) -> dict[str, Any]:
        utilisation = self.utilisation(concurrency)
        return {
            "requests": self.requests,
            "llm_span_s": round(self.span_s, 3),
            "mean_latency_s": round(self.busy_s / self.requests, 4) if self.requests else None,
            "requests_per_s": round(self.requests / self.span_s, 2) if self.span_s > 0 else None,
            "concurrency": concurrency,
            "utilisation": None if utilisation is None else round(utilisation, 3),
        }


@dataclass
class UsageTracker:
    """Counts calls, cache hits, retries and tokens per call label (e.g. "faithfulness.verdicts") and per pipeline
    phase (set `phase` while a stage runs); prices them from a table. Listeners hear about every change."""

    model_id: str = ""
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))
    stages: dict[str, StageUsage] = field(default_factory=dict)
    phases: dict[str, StageUsage] = field(default_factory=dict)
    phase: str | None = None
    #: The calls in flight the client may have at most (utilisation is measured against it).
    concurrency: int = 0
    #: Request timings per phase and over the whole run ("all").
    timings: dict[str, CallTiming] = field(default_factory=dict)
    listeners: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, stage: str, **deltas: int) -> None:
        """Add counts (`StageUsage` fields: `failures=1`, ...) to a call label and to the current phase."""
        change = StageUsage(**deltas)
        with self._lock:
            self.stages.setdefault(stage, StageUsage()).add(change)
            if self.phase is not None:
                self.phases.setdefault(self.phase, StageUsage()).add(change)
        for listener in list(self.listeners):
            listener()

    def record_call(
        self, stage: str, input_tokens: int, output_tokens: int, estimated: bool, batch: bool = False
    ) -> None:
        counts = {"calls": 1, "input_tokens": input_tokens, "output_tokens": output_tokens}
        if batch:
            counts |= {"batch_calls": 1, "batch_input_tokens": input_tokens, "batch_output_tokens": output_tokens}
        self.count(stage, estimated_calls=int(estimated), **counts)

    def merge(self, stages: Mapping[str, Mapping[str, int]]) -> None:
        """Add counts recorded elsewhere (the workers of a distributed run), per call label, to this tracker (and
        to its current phase)."""
        for stage, counts in stages.items():
            self.count(stage, **{name: int(value) for name, value in counts.items()})

    def record_request(self, started: float, ended: float) -> None:
        """One request's time in flight (time.monotonic() values), for utilisation."""
        with self._lock:
            for name in ("all", self.phase):
                if name is not None:
                    self.timings.setdefault(name, CallTiming()).add(started, ended)

    def utilisation(self, phase: str = "all") -> float | None:
        timing = self.timings.get(phase)
        return None if timing is None else timing.utilisation(self.concurrency)

    def total(self) -> StageUsage:
        total = StageUsage()
        with self._lock:
            for usage in self.stages.values():
                total.add(usage)
        return total

    def by_metric(self) -> dict[str, StageUsage]:
        """Labels `metric.step` summed per metric (the LLM judge labels its calls this way)."""
        metrics: dict[str, StageUsage] = {}
        for name, usage in sorted(self.stages.items()):
            if "." in name:
                metrics.setdefault(name.split(".", 1)[0], StageUsage()).add(usage)
        return metrics

    def cost_usd(self, usage: StageUsage) -> float | None:
        """The price of `usage`: online tokens at the table's price, batch tokens at `BATCH_PRICE_FACTOR` of it."""
        price = self._price()
        if price is None:
            return None
        online = (usage.input_tokens - usage.batch_input_tokens) * price[0]
        online += (usage.output_tokens - usage.batch_output_tokens) * price[1]
        batch = (usage.batch_input_tokens * price[0] + usage.batch_output_tokens * price[1]) * BATCH_PRICE_FACTOR
        return (online + batch) / 1_000_000

    def _price(self) -> tuple[float, float] | None:
        name = self.model_id.rsplit("#", 1)[-1]  # an OpenAI-compatible server's model, after its URL
        candidates, keys = (name, name.split(":", 1)[-1]), sorted(self.prices, key=len, reverse=True)  # then unprefixed
        return next((self.prices[key] for c in candidates for key in keys if c.startswith(key)), None)

    def price_note(self) -> str | None:
        """`no_price_note` when no price is known for the model (every cost is then n/a), else None."""
        return no_price_note(self.model_id) if self._price() is None else None

    def _priced(self, usage: StageUsage) -> dict[str, Any]:
        return {**asdict(usage), "cost_usd": self.cost_usd(usage)}

    def _timed(self, name: str) -> dict[str, Any]:
        timing = self.timings.get(name)
        return {} if timing is None else timing.as_dict(self.concurrency)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model_id,
            "price_per_million": list(price) if (price := self._price()) else None,
            "batch_price_factor": BATCH_PRICE_FACTOR,
            "stages": {name: self._priced(u) for name, u in sorted(self.stages.items())},
            "phases": {
                name: {**self._priced(self.phases.get(name, StageUsage())), **self._timed(name)}
                for name in [*self.phases, *(t for t in self.timings if t != "all" and t not in self.phases)]
            },
            "metrics": {name: self._priced(u) for name, u in self.by_metric().items()},
            "total": {**self._priced(self.total()), **self._timed("all")},
        }

    def report(self) -> str:
        """A short human-readable table of the counts: per call label, per phase, and the total."""
        data = self.as_dict()
        lines = [f"LLM usage ({data['model'] or 'no LLM'}):"]
        rows = [
            *data["stages"].items(),
            *((f"phase {k}", v) for k, v in data["phases"].items()),
            ("total", data["total"]),
        ]
        for name, usage in rows:
            cost = usage["cost_usd"]
            utilisation = usage.get("utilisation") if name.startswith("phase ") else None
            lines.append(
                f"  {name:<28} calls={usage['calls']:<5} cached={usage['cache_hits']:<5} retries={usage['retries']:<4}"
                f" in={usage['input_tokens']:<8} out={usage['output_tokens']:<7}"
                f" cost={'n/a' if cost is None else f'${cost:.4f}'}"
                + ("" if utilisation is None else f" utilisation={utilisation:.2f}")
            )
        if (note := self.price_note()) is not None:
            lines.append(f"  {note}")
        total = data["total"]
        if total["batch_calls"] or total["batch_failed_lines"]:
            online = self.cost_usd(StageUsage(input_tokens=total["input_tokens"], output_tokens=total["output_tokens"]))
            lines.append(
                f"  batch: {total['batch_calls']} of {total['calls']} calls through the provider's Batch API at the "
                f"batch price ({BATCH_PRICE_FACTOR:.0%} of online); {total['batch_failed_lines']} failed line(s) "
                "sent again" + ("" if online is None else f"; the same calls online would cost ${online:.4f}")
            )
        return "\n".join(lines)
