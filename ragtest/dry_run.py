"""`--dry-run`: the LLM calls and tokens a run will need, estimated before anything is spent.

Sources are loaded and chunked (no LLM, no embedding); the calls are planned by the stages' own public planning
functions, which build them with the code that sends them:

- generate: `testgen.planning.plan_llm_calls`: the question writer's call (root chunk + K neighbours, plus the JSON
  schema instructions) for each context of the generator's first batch, and one LLM-critic call per expected question;
- answer: `rag_under_test.reference.plan_llm_calls`: the reference RAG's prompt on `rag_k` chunks per question;
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
from rag_under_test import reference as rag_planning
from ragtest.config import RunConfig
from ragtest.documents import load_sources
from ragtest_core.datasets import as_str_list, cell_text
from ragtest_core.llm.plan import PlannedCall
from ragtest_core.llm.usage import BATCH_PRICE_FACTOR, StageUsage, UsageTracker, estimate_tokens, no_price_note
from testgen.styles import LENGTHS, STYLES, parse_choices, planned_rewrites

# Typical reply sizes in tokens (JSON overhead included), measured on small instruction-tuned models.
VERDICT_OVERHEAD_TOKENS = 22  # {"statement": .., "reason": "...", "verdict": 1} minus the statement itself
SMALL_VERDICT_TOKENS = 20  # {"reason": "...", "verdict": 1}
STATEMENTS_OVERHEAD_TOKENS = 10  # {"statements": [...]} around the restated answer
#: Reply tokens per expected item of a call, by call label (others: SMALL_VERDICT_TOKENS an item): a writer's
#: {"question": ..., "answer": one or two sentences, "blocks": [..]}, a question, a relevant sentence.
ITEM_TOKENS = {"testgen": 75, "answer_relevancy.questions": 14, "context_relevance.extract": 40}
#: Tokens around the items: {"questions": [...], "noncommittal": 0}.
REPLY_OVERHEAD_TOKENS = {"answer_relevancy.questions": 12}
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

    def billed(self, batch: bool) -> StageUsage:
        """The estimate as it will be billed: in batch mode, every call through the Batch API."""
        usage = StageUsage(calls=self.calls, input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        if batch:
            usage.batch_calls, usage.batch_input_tokens = self.calls, self.input_tokens
            usage.batch_output_tokens = self.output_tokens
        return usage


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

    def report(self, usage: UsageTracker | None = None) -> str:
        items = list(self.calls.values())
        phases = dict.fromkeys(c.phase for c in items)
        rows = [*items, *(_summed(f"phase {p}", [c for c in items if c.phase == p]) for p in phases)]
        rows.append(_summed("total", items))
        costs = [None if usage is None else usage.cost_usd(row.billed(self.batch)) for row in rows]
        lines = ["dry run: estimated LLM calls and tokens (nothing was sent)"]
        for row, cost in zip(rows, costs, strict=True):
            lines.append(
                f"  {row.label:<28} calls={row.calls:<5} in={row.input_tokens:<8} out={row.output_tokens:<7}"
                f" cost={'n/a' if cost is None else f'${cost:.4f}'}"
            )
        if self.batch:
            online = None if usage is None else usage.cost_usd(rows[-1].billed(False))
            lines.append(
                f"  batch: every call through the provider's Batch API, priced at {BATCH_PRICE_FACTOR:.0%} of online"
                + ("" if online is None else f" (online: ${online:.4f})")
                + "; lines that fail are sent again online"
            )
        if costs[-1] is None:
            missing = usage.price_note() if usage is not None else None
            lines.append(f"  {missing or no_price_note('')}")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


def _summed(label: str, items: list[CallEstimate]) -> CallEstimate:
    sums = (sum(getattr(item, name) for item in items) for name in ("calls", "input_tokens", "output_tokens"))
    return CallEstimate(label, label, *sums)


def generate_calls(size: int, per_context: int, question_types: str | Mapping[str, float] | None = None) -> int:
    """Writer calls of the generator's first batch (`testgen.planning.plan_types`) plus one LLM-critic call per
    context (its questions together)."""
    contexts = testgen.planning.plan_types(size, questions_per_context=per_context, question_types=question_types)
    return 2 * sum(contexts.values())


def typical_answer(texts: Sequence[str], index: int) -> str:
    """Two sentences of real text: what a RAG answer or a reference answer usually looks like."""
    return testgen.planning.typical_answer(texts[index % len(texts)] if texts else "An answer.")


def retrieved(texts: Sequence[str], index: int, k: int) -> list[str]:
    """`k` real passages standing in for what the RAG will retrieve for question `index`."""
    return [texts[(index * k + j) % len(texts)] for j in range(k)] if texts else []


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
    styles = parse_choices(gen.query_styles, STYLES, "query style")
    estimate.add_planned(planned_rewrites(gen.size, styles, parse_choices(gen.query_lengths, LENGTHS, "")), "generate")
    writes = estimate.calls["testgen"].calls
    estimate.notes.append(f"generate: {writes} writer calls for {gen.size} questions (more if the filters reject many)")


def estimate_answer(estimate: RunEstimate, questions: Iterable[str], k: int, texts: Sequence[str]) -> None:
    """The reference RAG's calls (`rag_under_test.reference.plan_llm_calls`), `k` of `texts` standing in for what it
    will retrieve, and a two-sentence reply each."""
    item = estimate.item("rag_answer", "answer")
    asked = [(question, retrieved(texts, index, k)) for index, question in enumerate(questions)]
    for index, call in enumerate(rag_planning.plan_llm_calls(asked)):
        item.add(call.text(), estimate_tokens(typical_answer(texts, index + 1)))


def estimate_evaluate(
    estimate: RunEstimate, rows: Iterable[Mapping[str, Any]], metrics: Sequence[str], repeats: int = 1
) -> None:
    """Every judge call for `rows` (question, answer, contexts, ground_truth), as `evaluation.planning.plan_llm_calls`
    plans them from each metric's own prompts; `--repeats N` sends each N times."""
    estimate.add_planned(judge_planning.plan_llm_calls(list(rows), list(metrics)) * repeats, "evaluate")


def evaluate_calls(config: RunConfig, rows: Sequence[Mapping[str, Any]]) -> int:
    """The LLM judge's calls for `rows`, each sent `--repeats` times (the total of the evaluate progress bar)."""
    return len(judge_planning.plan_llm_calls(list(rows), metric_names(config))) * config.repeats


def typical_rows(count: int, k: int, texts: Sequence[str], question: str) -> list[dict[str, Any]]:
    """Rows as the answer stage will write them: a question, a two-sentence answer, k retrieved passages."""
    return [
        {
            "question": question,
            "answer": typical_answer(texts, index + 1),
            "contexts": retrieved(texts, index, k),
            "ground_truth": typical_answer(texts, index),
        }
        for index in range(count)
    ]


def metric_names(config: RunConfig) -> list[str]:
    """The metrics the run scores ("all" expanded to every registered metric)."""
    return [str(name) for name in expand_selection(config.metrics)]


def testset_questions(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """A test set's questions, and its gold contexts standing in for the chunks the reference RAG will retrieve."""
    texts = [c for row in rows for c in as_str_list(row.get("reference_contexts"))]
    return [cell_text(row.get("question")).strip() for row in rows], texts


def estimate_stages(
    estimate: RunEstimate,
    config: RunConfig,
    questions: Sequence[str],
    texts: Sequence[str],
    judged: list[dict[str, Any]],
) -> RunEstimate:
    """The reference RAG's calls for `questions` (none with --rag, whose own calls are not counted), then the LLM
    judge's on `judged`."""
    if config.rag:
        estimate.notes.append("answer: your adapter's own LLM calls are not counted")
    else:
        estimate_answer(estimate, questions, config.rag_k, texts)
    if config.resolved_judge() == "llm":
        estimate_evaluate(estimate, judged, metric_names(config), config.repeats)
    return estimate


def estimate_on_testset(config: RunConfig, rows: Sequence[Mapping[str, Any]]) -> RunEstimate:
    """`run --testset`: no generation; the reference RAG's calls for the test set, and the judge's, with each
    reference answer and its gold contexts standing in for the RAG's answer and retrieved contexts."""
    stand_in = [
        {**row, "answer": row.get("ground_truth") or "", "contexts": as_str_list(row.get("reference_contexts"))}
        for row in rows
    ]
    return estimate_stages(RunEstimate(), config, *testset_questions(rows), stand_in)


def estimate_run(config: RunConfig, generate_only: bool = False) -> RunEstimate:
    """The whole `ragtest run` (or `generate` alone): generate, answer (reference RAG), evaluate (LLM judge)."""
    gen = config.generation
    chunks = testgen.chunk_documents(load_sources(config).documents, gen)  # skipped files: on stderr
    estimate = RunEstimate()
    if not chunks:
        estimate.notes.append("the sources gave no chunks")
        return estimate
    estimate_generate(estimate, config, chunks)
    if generate_only:
        return estimate
    question = "What is said about " + " ".join(["word"] * math.ceil(gen.max_question_words * 0.6)) + "?"
    texts = [chunk.text for chunk in chunks]
    judged = typical_rows(gen.size, config.rag_k, texts, question)
    return estimate_stages(estimate, config, [question] * gen.size, texts, judged)
