"""`--dry-run`: the LLM calls and tokens a run will need, estimated before anything is spent.

Sources are loaded and chunked (no LLM, no embedding); the calls are planned by the stages' own public planning
functions, which build them with the code that sends them:

- generate: `testgen.planning.plan_llm_calls`: the question writer's call (root chunk + K neighbours, plus the JSON
  schema instructions) for each context of the generator's first batch, and one LLM-critic call per expected question;
- answer: `rag_under_test.planning.plan_llm_calls`: the reference RAG's prompt on `rag_k` chunks per question;
- evaluate: `evaluation.planning.plan_llm_calls`: every judge call of every selected metric per row (each metric's
  `llm_prompts`), with answers of typical size (two sentences).

Input tokens are the runtime's own estimate (about four characters a token); output tokens come from typical
reply sizes below. A run with a cache answers some calls for free: the estimate is the cost without a cache.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import testgen
import testgen.planning
from evaluation import planning as judge_planning
from evaluation.registry import expand_selection
from rag_under_test import planning as rag_planning
from ragtest.config import RunConfig
from ragtest.documents import load_chunks
from ragtest_core.datasets import as_str_list
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.llm.usage import BATCH_PRICE_FACTOR, StageUsage, UsageTracker, estimate_tokens, no_price_note
from ragtest_core.text import split_sentences

#: Typical reply sizes in tokens (JSON overhead included), measured on small instruction-tuned models.
TYPICAL_QUESTION_TOKENS = 14
TYPICAL_ANSWER_SENTENCES = 2
WRITER_PAIR_TOKENS = 75  # {"question": ..., "answer": one or two sentences, "blocks": [..]}
VERDICT_OVERHEAD_TOKENS = 22  # {"statement": .., "reason": "...", "verdict": 1} minus the statement itself
SMALL_VERDICT_TOKENS = 20  # {"reason": "...", "verdict": 1}
RELEVANT_SENTENCE_TOKENS = 40
STATEMENTS_OVERHEAD_TOKENS = 10  # {"statements": [...]} around the restated answer
QUESTIONS_OVERHEAD_TOKENS = 12  # {"questions": [...], "noncommittal": 0}

#: Reply tokens per expected item of a call, by call label (others: SMALL_VERDICT_TOKENS an item).
ITEM_TOKENS = {
    "testgen": WRITER_PAIR_TOKENS,
    "answer_relevancy.questions": TYPICAL_QUESTION_TOKENS,
    "context_relevance.extract": RELEVANT_SENTENCE_TOKENS,
}
REPLY_OVERHEAD_TOKENS = {"answer_relevancy.questions": QUESTIONS_OVERHEAD_TOKENS}
#: Calls whose reply rewrites the echoed text (rather than judging each echoed item).
RESTATING_STAGES = frozenset({"statements.extract"})


@dataclass
class CallEstimate:
    label: str  # the runtime's call label, e.g. "faithfulness.verdicts"
    phase: str  # generate, answer or evaluate
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, prompt: str, output_tokens: int) -> None:
        self.calls += 1
        self.input_tokens += estimate_tokens(prompt)
        self.output_tokens += output_tokens


def output_tokens(call: PlannedCall) -> int:
    """Typical reply tokens of a planned call (JSON overhead included)."""
    if call.stage in RESTATING_STAGES:
        return sum(estimate_tokens(text) for text in call.echo) + STATEMENTS_OVERHEAD_TOKENS
    if call.echo:  # one verdict per echoed item, each restating it
        return sum(estimate_tokens(text) + VERDICT_OVERHEAD_TOKENS for text in call.echo)
    per_item = ITEM_TOKENS.get(call.stage, SMALL_VERDICT_TOKENS)
    return per_item * max(1, call.items) + REPLY_OVERHEAD_TOKENS.get(call.stage, 0)


@dataclass
class RunEstimate:
    calls: dict[str, CallEstimate] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Batch mode (`--llm-batch`): costs at the Batch API's price.
    batch: bool = False

    def item(self, label: str, phase: str) -> CallEstimate:
        return self.calls.setdefault(label, CallEstimate(label, phase))

    def add_planned(self, calls: Iterable[PlannedCall], phase: str) -> None:
        """Count calls planned by a stage: the message text as sent, typical reply sizes."""
        for call in calls:
            self.item(call.stage, phase).add(call.text(), output_tokens(call))

    def phase_calls(self, phase: str) -> int:
        return sum(c.calls for c in self.calls.values() if c.phase == phase)

    def total(self) -> CallEstimate:
        total = CallEstimate("total", "all")
        for item in self.calls.values():
            total.calls += item.calls
            total.input_tokens += item.input_tokens
            total.output_tokens += item.output_tokens
        return total

    def as_dict(self, usage: UsageTracker | None = None) -> dict[str, Any]:
        def entry(item: CallEstimate) -> dict[str, Any]:
            values: dict[str, Any] = {
                "calls": item.calls,
                "input_tokens": item.input_tokens,
                "output_tokens": item.output_tokens,
            }
            if usage is not None:
                online = StageUsage(calls=item.calls, input_tokens=item.input_tokens, output_tokens=item.output_tokens)
                values["cost_usd"] = usage.cost_usd(self._priced(item))
                if self.batch:
                    values["online_cost_usd"] = usage.cost_usd(online)
            return values

        phases: dict[str, CallEstimate] = {}
        for item in self.calls.values():
            total = phases.setdefault(item.phase, CallEstimate(item.phase, item.phase))
            total.calls += item.calls
            total.input_tokens += item.input_tokens
            total.output_tokens += item.output_tokens
        return {
            "stages": {label: entry(item) for label, item in self.calls.items()},
            "phases": {name: entry(item) for name, item in phases.items()},
            "total": entry(self.total()),
            "batch": self.batch,
            "notes": list(self.notes),
        }

    def _priced(self, item: CallEstimate) -> StageUsage:
        """The estimate as it will be billed: in batch mode, every call through the Batch API."""
        usage = StageUsage(calls=item.calls, input_tokens=item.input_tokens, output_tokens=item.output_tokens)
        if self.batch:
            usage.batch_calls, usage.batch_input_tokens = item.calls, item.input_tokens
            usage.batch_output_tokens = item.output_tokens
        return usage

    def report(self, usage: UsageTracker | None = None) -> str:
        data = self.as_dict(usage)
        lines = ["dry run: estimated LLM calls and tokens (nothing was sent)"]
        rows = [
            *data["stages"].items(),
            *((f"phase {k}", v) for k, v in data["phases"].items()),
            ("total", data["total"]),
        ]
        for name, values in rows:
            cost = values.get("cost_usd")
            lines.append(
                f"  {name:<28} calls={values['calls']:<5} in={values['input_tokens']:<8}"
                f" out={values['output_tokens']:<7}"
                f" cost={'n/a' if cost is None else f'${cost:.4f}'}"
            )
        online = data["total"].get("online_cost_usd")
        if self.batch:
            lines.append(
                f"  batch: every call through the provider's Batch API, priced at {BATCH_PRICE_FACTOR:.0%} of online"
                + ("" if online is None else f" (online: ${online:.4f})")
                + "; lines that fail are sent again online"
            )
        if data["total"].get("cost_usd") is None:
            missing = usage.price_note() if usage is not None else None
            lines.append(f"  {missing or no_price_note('')}")
        lines.extend(f"  note: {note}" for note in data["notes"])
        return "\n".join(lines)


def writer_plan(size: int, per_context: int, question_types: str | Mapping[str, float] | None = None) -> list[str]:
    """The question type of each writer call of the generator's first round (`testgen.planning.plan_types`)."""
    contexts = testgen.planning.plan_types(size, questions_per_context=per_context, question_types=question_types)
    return [kind for kind, count in contexts.items() for _ in range(count)]


def generate_calls(size: int, per_context: int, question_types: str | Mapping[str, float] | None = None) -> int:
    """Writer calls of the generator's first batch plus one LLM-critic call per context (its questions together)."""
    return len(writer_plan(size, per_context, question_types)) * 2


def typical_answer(chunks: Sequence[Any], index: int) -> str:
    """Two sentences of real text: what a RAG answer or a reference answer usually looks like."""
    text = chunks[index % len(chunks)].text if chunks else "An answer."
    return " ".join(split_sentences(text)[:TYPICAL_ANSWER_SENTENCES]) or text


def estimate_generate(estimate: RunEstimate, config: RunConfig, chunks: Sequence[Any]) -> None:
    """The writer and LLM-critic calls of the generator's first batch, as `testgen.planning.plan_llm_calls`
    plans them."""
    gen = config.generation
    calls = testgen.planning.plan_llm_calls(
        chunks,
        size=gen.size,
        seed=gen.seed,
        k_neighbours=gen.k_neighbours,
        questions_per_context=gen.questions_per_context,
        question_types=gen.question_types,
        critic=gen.critic != "offline",
        max_question_words=gen.max_question_words,
    )
    estimate.item("testgen", "generate")  # the writer's line comes first, even when nothing is planned
    estimate.add_planned(calls, "generate")
    writes = estimate.calls["testgen"].calls
    estimate.notes.append(f"generate: {writes} writer calls for {gen.size} questions (more if the filters reject many)")


def estimate_answer(estimate: RunEstimate, questions: Iterable[str], k: int, chunks: Sequence[Any]) -> None:
    """The reference RAG's calls (`rag_under_test.planning.plan_llm_calls`), `k` real chunks standing in for what it
    will retrieve, and a two-sentence reply each."""
    item = estimate.item("rag_answer", "answer")
    asked = []
    for index, question in enumerate(questions):
        passages = [chunks[(index * k + j) % len(chunks)].text for j in range(k)] if chunks else []
        asked.append((question, passages))
    for index, call in enumerate(rag_planning.plan_llm_calls(asked)):
        item.add(call.text(), estimate_tokens(typical_answer(chunks, index + 1)))


def estimate_evaluate(
    estimate: RunEstimate, rows: Iterable[Mapping[str, Any]], metrics: Sequence[str], repeats: int = 1
) -> None:
    """Every judge call for `rows` (question, answer, contexts, ground_truth), as `evaluation.planning.plan_llm_calls`
    plans them from each metric's own prompts; `--repeats N` sends each N times."""
    estimate.add_planned(judge_planning.plan_llm_calls(list(rows), list(metrics)) * repeats, "evaluate")


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def typical_rows(count: int, k: int, chunks: Sequence[Any], question: str) -> list[dict[str, Any]]:
    """Rows as the answer stage will write them: a question, a two-sentence answer, k retrieved chunks."""
    rows = []
    for index in range(count):
        contexts = [chunks[(index * k + j) % len(chunks)].text for j in range(k)] if chunks else []
        rows.append(
            {
                "question": question,
                "answer": typical_answer(chunks, index + 1),
                "contexts": contexts,
                "ground_truth": typical_answer(chunks, index),
            }
        )
    return rows


def metric_names(config: RunConfig) -> list[str]:
    """The metrics the run scores ("all" expanded to every registered metric)."""
    return [str(name) for name in expand_selection(config.metrics)]


def estimate_answer_rows(estimate: RunEstimate, rows: Sequence[Mapping[str, Any]], k: int) -> None:
    """The reference RAG's calls for a test set: its gold contexts stand in for the chunks it will retrieve."""

    @dataclass
    class Text:
        text: str

    chunks = [Text(c) for row in rows for c in as_str_list(row.get("reference_contexts"))]
    estimate_answer(estimate, [_text(row.get("question")) for row in rows], k, chunks)


def estimate_on_testset(config: RunConfig, rows: Sequence[Mapping[str, Any]]) -> RunEstimate:
    """`run --testset`: no generation; the reference RAG's calls for the test set, and the judge's, with each
    reference answer and its gold contexts standing in for the RAG's answer and retrieved contexts."""
    estimate = RunEstimate()
    if not config.rag:
        estimate_answer_rows(estimate, rows, config.rag_k)
    else:
        estimate.notes.append("answer: your adapter's own LLM calls are not counted")
    if config.resolved_judge() == "llm":
        stand_in = [
            {**row, "answer": row.get("ground_truth") or "", "contexts": as_str_list(row.get("reference_contexts"))}
            for row in rows
        ]
        estimate_evaluate(estimate, stand_in, metric_names(config), config.repeats)
    return estimate


def estimate_run(config: RunConfig, phases: Sequence[str] | None = None) -> RunEstimate:
    """The whole `ragtest run` (or only `phases`): generate, answer (reference RAG), evaluate (LLM judge)."""
    phases = phases or ("generate", "answer", "evaluate")
    gen = config.generation
    chunks = load_chunks(config)
    estimate = RunEstimate()
    if not chunks:
        estimate.notes.append("the sources gave no chunks")
        return estimate
    estimate_generate(estimate, config, chunks)
    question = "What is said about " + " ".join(["word"] * math.ceil(gen.max_question_words * 0.6)) + "?"
    if "answer" not in phases:
        return estimate
    if not config.rag:
        estimate_answer(estimate, [question] * gen.size, config.rag_k, chunks)
    else:
        estimate.notes.append("answer: your adapter's own LLM calls are not counted")
    if "evaluate" in phases and config.resolved_judge() == "llm":
        rows = typical_rows(gen.size, config.rag_k, chunks, question)
        estimate_evaluate(estimate, rows, metric_names(config), config.repeats)
    return estimate
