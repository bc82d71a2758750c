"""`--dry-run`: the LLM calls and tokens a run will need, estimated before anything is spent.

Part of the pipeline layer (like ragtest.pipeline, it may import the stage packages). Sources are loaded and
chunked (no LLM, no embedding); the prompts are rendered from the stages' own templates on real chunks:

- generate: the question writer's prompt (root chunk + K neighbours, plus the JSON schema instructions) for each
  context of the generator's first batch (max(4, ceil(size / questions per context) + 2) contexts);
- answer: the reference RAG's prompt on `rag_k` chunks per question;
- evaluate: every judge prompt of every selected metric per row (faithfulness: statements + verdicts;
  answer_relevancy, context_relevance, context_recall: one; context_precision: one per retrieved context),
  with answers and statements of typical size (two sentences).

Input tokens are the runtime's own estimate (about four characters a token); output tokens come from typical
reply sizes below. A run with a cache answers some calls for free: the estimate is the cost without a cache.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragtest.config import RunConfig
from ragtest.datasets import as_str_list
from ragtest.llm.parsing import schema_instructions
from ragtest.llm.usage import UsageTracker, estimate_tokens

#: Typical reply sizes in tokens (JSON overhead included), measured on small instruction-tuned models.
TYPICAL_QUESTION_TOKENS = 14
TYPICAL_ANSWER_SENTENCES = 2
WRITER_PAIR_TOKENS = 75  # {"question": ..., "answer": one or two sentences, "blocks": [..]}
VERDICT_OVERHEAD_TOKENS = 22  # {"statement": .., "reason": "...", "verdict": 1} minus the statement itself
SMALL_VERDICT_TOKENS = 20  # {"reason": "...", "verdict": 1}
RELEVANT_SENTENCE_TOKENS = 40


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


@dataclass
class RunEstimate:
    calls: dict[str, CallEstimate] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def item(self, label: str, phase: str) -> CallEstimate:
        return self.calls.setdefault(label, CallEstimate(label, phase))

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
                from ragtest.llm.usage import StageUsage

                values["cost_usd"] = usage.cost_usd(
                    StageUsage(input_tokens=item.input_tokens, output_tokens=item.output_tokens)
                )
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
            "notes": list(self.notes),
        }

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
        lines.extend(f"  note: {note}" for note in data["notes"])
        return "\n".join(lines)


def first_batch_contexts(size: int, per_context: int) -> int:
    """How many contexts a generator without question types writes for in its first round."""
    return max(4, -(-size // max(1, per_context)) + 2)


def writer_plan(size: int, per_context: int) -> list[str]:
    """The question type of each writer call of the generator's first round: per type with a target of `count`
    questions, ceil(count / per_context) contexts (TestsetGenerator._plan at a yield of 1)."""
    try:
        from testgen.question_types import DEFAULT_DISTRIBUTION, allocate
    except ImportError:
        return ["simple"] * first_batch_contexts(size, per_context)
    targets = allocate(size, DEFAULT_DISTRIBUTION)
    return [kind for kind, count in targets.items() if count > 0 for _ in range(-(-count // per_context))]


def generate_calls(size: int, per_context: int) -> int:
    """Writer calls plus one LLM-critic call per written question."""
    plan = writer_plan(size, per_context)
    return len(plan) * (1 + per_context)


def typical_answer(chunks: Sequence[Any], index: int) -> str:
    """Two sentences of real text: what a RAG answer or a reference answer usually looks like."""
    from ragtest.text import split_sentences

    text = chunks[index % len(chunks)].text if chunks else "An answer."
    return " ".join(split_sentences(text)[:TYPICAL_ANSWER_SENTENCES]) or text


def estimate_generate(estimate: RunEstimate, config: RunConfig, chunks: Sequence[Any]) -> None:
    from testgen.contexts import Context, draw_roots
    from testgen.writers.llm import LLMWriter, QAList

    gen = config.generation
    roots = draw_roots(chunks, gen.seed)
    plan = writer_plan(gen.size, gen.questions_per_context)[: len(roots)]
    spare = roots[len(plan) :] or roots
    instructions = schema_instructions(QAList)
    writer = make_writer(LLMWriter, gen.max_question_words)  # only its public prompt() is used: no client needed
    writes, critic = estimate.item("testgen", "generate"), estimate.item("testgen_critic", "generate")
    for index, (root, kind) in enumerate(zip(roots, plan, strict=False)):
        neighbours = tuple(spare[(index * gen.k_neighbours + j) % len(spare)] for j in range(gen.k_neighbours))
        context = Context(root=root, neighbours=neighbours)
        try:
            prompt = writer.prompt(context, gen.questions_per_context, kind)
        except TypeError:  # a writer without question types
            prompt = writer.prompt(context, gen.questions_per_context)
        writes.add(f"{prompt}\n\n{instructions}", WRITER_PAIR_TOKENS * gen.questions_per_context)
        for _ in range(gen.questions_per_context):
            critic_prompt = grounding_prompt(context, kind, typical_answer(chunks, index))
            if critic_prompt is not None:
                critic.add(critic_prompt, SMALL_VERDICT_TOKENS)
    if not critic.calls:
        del estimate.calls["testgen_critic"]
    estimate.notes.append(
        f"generate: {len(plan)} writer calls for {gen.size} questions (more if the filters reject many)"
    )


def grounding_prompt(context: Any, kind: str, answer: str) -> str | None:
    """The LLM critic's prompt for one written question (None when testgen has no LLM critic)."""
    try:
        from testgen.critic import GROUNDED_PROMPT, Grounding
    except ImportError:
        return None
    gold = context.blocks[:2] if kind == "multi_context" else context.blocks[:1]
    blocks = "\n\n".join(f"[{n}] {chunk.text}" for n, chunk in enumerate(gold, start=1))
    question = "What is said about " + " ".join(["word"] * 6) + "?"
    prompt = GROUNDED_PROMPT.format(question=question, answer=answer, blocks=blocks)
    return f"{prompt}\n\n{schema_instructions(Grounding)}"


def make_writer(writer_class: Any, max_words: int) -> Any:
    try:
        return writer_class(None, max_words=max_words)
    except TypeError:  # an LLMWriter without the max_words option
        return writer_class(None)


def estimate_answer(estimate: RunEstimate, questions: Iterable[str], k: int, chunks: Sequence[Any]) -> None:
    from rag_under_test.reference import ANSWER_PROMPT

    item = estimate.item("rag_answer", "answer")
    for index, question in enumerate(questions):
        passages = [chunks[(index * k + j) % len(chunks)].text for j in range(k)] if chunks else []
        numbered = "\n\n".join(f"[{i}] {text}" for i, text in enumerate(passages, start=1))
        item.add(
            ANSWER_PROMPT.format(context=numbered, question=question),
            estimate_tokens(typical_answer(chunks, index + 1)),
        )


def estimate_evaluate(estimate: RunEstimate, rows: Iterable[Mapping[str, Any]], metrics: Sequence[str]) -> None:
    """Every judge call for `rows` (question, answer, contexts, ground_truth; missing ones are typical)."""
    from evaluation import prompts as p
    from evaluation.sample import sentences_of

    def structured(label: str, prompt: str, schema: Any, output_tokens: int) -> None:
        estimate.item(label, "evaluate").add(f"{prompt}\n\n{schema_instructions(schema)}", output_tokens)

    for row in rows:
        question, answer = _text(row.get("question")), _text(row.get("answer"))
        contexts = as_str_list(row.get("contexts"))
        reference = _text(row.get("ground_truth")) or answer
        statements = sentences_of(answer) or [answer]
        if "faithfulness" in metrics:
            structured(
                "faithfulness.statements",
                p.statements_prompt(question, answer),
                p.Statements,
                estimate_tokens(answer) + 10,
            )
            verdict_out = sum(estimate_tokens(s) + VERDICT_OVERHEAD_TOKENS for s in statements)
            structured(
                "faithfulness.verdicts", p.faithfulness_prompt(contexts, statements), p.StatementVerdicts, verdict_out
            )
        if "answer_relevancy" in metrics:
            structured(
                "answer_relevancy.questions",
                p.question_generation_prompt(answer, contexts),
                p.GeneratedQuestions,
                p.QUESTIONS_TO_GENERATE * TYPICAL_QUESTION_TOKENS + 12,
            )
        if "context_relevance" in metrics:
            structured(
                "context_relevance.extract",
                p.context_relevance_prompt(question, contexts),
                p.RelevantSentences,
                RELEVANT_SENTENCE_TOKENS,
            )
        if "context_precision" in metrics:
            for context in contexts:
                structured(
                    "context_precision.verdict",
                    p.context_precision_prompt(question, reference, context, "ground_truth" not in row),
                    p.ContextVerdict,
                    SMALL_VERDICT_TOKENS,
                )
        if "context_recall" in metrics:
            sentences = sentences_of(reference) or [reference]
            structured(
                "context_recall.attribution",
                p.context_recall_prompt(question, contexts, sentences),
                p.Attributions,
                sum(estimate_tokens(s) + VERDICT_OVERHEAD_TOKENS for s in sentences),
            )


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
    from evaluation.registry import DEFAULT_METRICS

    return list(config.metrics or DEFAULT_METRICS)


def estimate_answer_rows(estimate: RunEstimate, rows: Sequence[Mapping[str, Any]], k: int) -> None:
    """The reference RAG's calls for a test set: its gold contexts stand in for the chunks it will retrieve."""

    @dataclass
    class Text:
        text: str

    chunks = [Text(c) for row in rows for c in as_str_list(row.get("reference_contexts"))]
    estimate_answer(estimate, [_text(row.get("question")) for row in rows], k, chunks)


def estimate_run(config: RunConfig, phases: Sequence[str] | None = None) -> RunEstimate:
    """The whole `ragtest run` (or only `phases`): generate, answer (reference RAG), evaluate (LLM judge)."""
    phases = phases or ("generate", "answer", "evaluate")
    import testgen
    from ragtest.pipeline import load_documents

    gen = config.generation
    chunking = testgen.ChunkingConfig(
        chunk_size=gen.chunk_size, chunk_overlap=gen.chunk_overlap, separators=tuple(gen.separators)
    )
    chunks = testgen.chunk_documents(load_documents(config), chunking)
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
        estimate_evaluate(estimate, typical_rows(gen.size, config.rag_k, chunks, question), metric_names(config))
    return estimate
