"""The offline question writer: no LLM, two strategies over one English toolkit.

- documentation structure (`testgen.writers.docs`): a chunk of a structured document (`Chunk.heading_path` set)
  gives how-to, FAQ, concept, option, instruction and default questions from its headings, items and statements;
- sentences (`testgen.writers.sentences`): any chunk's sentences turned into wh-questions by fixed rules (English;
  Chinese and Japanese by a few patterns of `cjk`; other languages are skipped and counted); in documentation each
  turned sentence also passes the documentation checks (`docs.sentence_checks`) and waits for tier 1.

Supports "simple" (one fact of the root chunk) and "multi_context" (a comparison or bridge across the root and a
neighbour, `sentences.combine`; in documentation, across sections joined by the corpus graph, `multihop`).
Reasoning, conditional, unanswerable and distracting questions need an LLM to be written honestly; the writer says
so (`supported_types`, `UNSUPPORTED_REASON`). Deterministic for a seed. What its own checks refuse is counted as
`rejected_<reason>` in the writer's stats, and by strategy.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from ragtest_core.text import split_sentences
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.filters import DEFAULT_MAX_WORDS
from testgen.question_types import QuestionType
from testgen.structure import PATH_SEPARATOR, prose_lines
from testgen.writers.base import REJECTED_PREFIX, Draft, QuestionWriter, Turned
from testgen.writers.docs import (
    SENTENCE_TIER,
    STRATEGIES,
    DocFact,
    PageIndex,
    doc_draft,
    doc_facts,
    docs_problem,
    heading_parts,
    needs_section,
    release_notes,
    section_name_fact,
    sentence_case,
    specific_problem,
    split_prose,
    strategy_problem,
)
from testgen.writers.english import Casing, Skip, grammar_problem
from testgen.writers.multihop import Claim, hop_drafts, pairable
from testgen.writers.sentences import (
    DEFINITION_RULES,
    Fact,
    combine,
    combined_draft,
    resolve,
    sentence_draft,
    topic_of,
    turn_all,
    turn_cjk,
    turned_problem,
)

if TYPE_CHECKING:
    from testgen.store import ChunkStore

SUPPORTED = frozenset({"simple", "multi_context"})
UNSUPPORTED_REASON = (
    "the extractive writer writes only simple and multi_context questions; reasoning, conditional, unanswerable "
    "and distracting questions need an LLM writer (--llm)"
)
_LANGUAGES = ("en", "zh", "ja")
#: Documents whose casing a writer keeps when it reads documents on demand (`learn`).
CASING_DOCUMENTS = 64
#: Multi-hop drafts one thing may take part in, in one set.
MOST_COMPARED = 3


def _subject(question: str) -> str:
    """What a documentation question is about: its inline code, else X of "What is X?"."""
    code = re.search(r"`[^`]+`", question)
    named = re.match(r"^What (?:is|are) (?P<subject>.+)\?$", question)
    return code.group() if code else named.group("subject") if named else ""


def _claim_kind(rule: str) -> str:
    return "definition" if rule in DEFINITION_RULES else f"sentence_{rule}"


def _casing(chunks: Iterable[Chunk]) -> Casing:
    """A document's casing from its prose only: headings are title-cased, and code (blocks and inline) and cited
    section titles ("see “Writing Data”") are not evidence of how a word is cased in a sentence."""
    parts = []
    for chunk in chunks:
        text = chunk.text
        if chunk.heading_path is not None:
            text = re.sub(r"`[^`]*`|“[^”]*”", "·", "\n".join(prose_lines(chunk.text)))  # code; cited titles
        parts.append(text)
    return Casing("\n".join(parts))


class ExtractiveWriter(QuestionWriter):
    """Offline questions from the root chunk (its documentation facts first, then its turned sentences), or across
    the root and a neighbour."""

    name = "extractive"
    supported_types = SUPPORTED
    unsupported_reason = UNSUPPORTED_REASON

    def __init__(self, seed: int = 0, max_words: int = DEFAULT_MAX_WORDS) -> None:
        self.seed = seed
        self.max_words = max_words
        self._stats: Counter[str] = Counter()
        #: A document's casing by its id (None: not known), from `prepare` or `learn`.
        self._doc_casing: Callable[[str], Casing | None] | None = None
        self._facts: dict[str, list[Fact]] = {}
        self._doc_facts: dict[str, list[DocFact]] = {}
        self._pages = PageIndex()
        #: How often each thing was compared in this set's multi-hop drafts, and what each hop question is about.
        self._compared: Counter[str] = Counter()
        self._about: dict[str, list[str]] = {}

    @property
    def stats(self) -> Counter[str]:
        """Counts: sentences seen and turned, skips by reason, unsupported languages and types."""
        return self._stats

    def prepare(self, chunks: Sequence[Chunk]) -> None:
        """Learn each document's casing (which capitalised words are names) from all of its chunks, the headings
        of the documentation and how many of its pages use a phrase."""
        texts: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            texts.setdefault(chunk.doc_id, []).append(chunk)
        self._doc_casing = {doc_id: _casing(parts) for doc_id, parts in texts.items()}.get
        self._pages = PageIndex.of_chunks(chunks)

    def learn(self, store: ChunkStore) -> None:
        """Learn a document's casing when one of its chunks is first written from (the store's `document_chunks`:
        the same casing as `prepare` gives, without the whole corpus in memory; the last `CASING_DOCUMENTS`
        documents' casings are kept), and what `prepare` learns about documentation without reading it: its
        headings (the store's chunk keys name each chunk's section), how many documents use a phrase (the store's
        `documents_containing`), and how many structured documents (pages) it has."""
        self._doc_casing = lru_cache(maxsize=CASING_DOCUMENTS)(lambda doc_id: _casing(store.document_chunks(doc_id)))
        self._compared.clear()
        self._about.clear()
        keys = [key for key in store.chunk_keys() if key.heading_path]
        headings = {part.strip() for key in keys for part in (key.heading_path or "").split(PATH_SEPARATOR)}
        self._pages = PageIndex(
            {heading.lower() for heading in headings if heading},
            count_pages=store.documents_containing,
            pages=len({key.source for key in keys}),
        )

    def _casing_of(self, chunk: Chunk) -> Casing:
        known = self._doc_casing(chunk.doc_id) if self._doc_casing is not None and chunk.doc_id else None
        return known if known is not None else Casing(chunk.text)

    def can_write(self, root: Chunk, question_type: QuestionType = "simple") -> bool:
        """Whether this root chunk gives the rules anything to turn: the generator skips a root that gives none
        without counting it against the stop rules, so sparse documentation is searched for the chunks that do
        give questions. A `multi_context` root may pair two neighbours' facts: it is always tried, except in
        documentation, where its question follows the corpus graph and needs a fact of its own (`multihop.pairable`)."""
        if question_type not in SUPPORTED or root.language not in _LANGUAGES:
            return False
        if question_type == "multi_context":  # documentation: a root with a fact a multi-hop question can use
            return root.heading_path is None or any(pairable(claim) for claim in self._claims(root, 1))
        return bool(self._chunk_facts(root)) or bool(self.documentation_facts(root))

    def can_join(self, root: Chunk, partner: Chunk) -> bool:
        """Whether a multi-hop question (`multihop`) joins a documentation root and this graph partner."""
        claims = self._fresh(self._claims(root, 1) + self._claims(partner, 2))
        return root.heading_path is None or bool(hop_drafts(claims, [root.text, partner.text], self.max_words))

    def _fresh(self, claims: list[Claim]) -> list[Claim]:
        """The claims about things not yet compared `MOST_COMPARED` times in this set (a few sibling sections would
        otherwise fill the multi-hop share with comparisons of the same things)."""
        return [claim for claim in claims if self._compared[claim.subject] < MOST_COMPARED]

    async def write(self, context: Context, n: int, question_type: QuestionType = "simple") -> list[Draft]:
        if question_type not in SUPPORTED:
            self._stats[f"unsupported_type_{question_type}"] += 1
            return []
        if context.language not in _LANGUAGES:
            self._stats["unsupported_language"] += 1
            return []
        rng = random.Random(f"{self.seed}:{context.root.chunk_id}:{question_type}")
        if question_type == "multi_context":
            return self._multi_context(context, n, rng)
        facts = list(self._block_facts(context, 1))
        rng.shuffle(facts)
        drafts: list[Draft] = [doc_draft(fact) for fact in self.documentation_facts(context.root)]
        seen: set[str] = {draft.question.lower() for draft in drafts}
        for fact in facts:
            if fact.turned.question.lower() not in seen:
                seen.add(fact.turned.question.lower())
                tier = SENTENCE_TIER if context.root.heading_path is not None else 0
                drafts.append(sentence_draft(fact, context.language, tier))
        return drafts[:n]

    def documentation_facts(self, chunk: Chunk) -> list[DocFact]:
        """The documentation strategies' facts of a structured chunk, best strategy first (memoised per chunk)."""
        if chunk.heading_path is None or chunk.language != "en":
            return []
        if chunk.chunk_id not in self._doc_facts and release_notes(chunk.heading_path):
            self._stats["skip_release_notes"] += 1
            self._doc_facts[chunk.chunk_id] = []
        if chunk.chunk_id not in self._doc_facts:
            casing = self._casing_of(chunk)
            kept: dict[str, DocFact] = {}
            for fact in doc_facts(chunk.text, casing, self.max_words, opening=chunk.section_part == 0):
                self._stats[f"strategy_{fact.strategy}_drafted"] += 1
                problem = strategy_problem(fact, self.max_words) or self._pages.ambiguous_task(fact)
                problem = problem or needs_section(fact, heading_parts(chunk)[-1])
                if problem is not None:
                    self._reject(problem, strategy=fact.strategy)
                    continue
                kept.setdefault(fact.question.lower(), fact)
            self._doc_facts[chunk.chunk_id] = sorted(kept.values(), key=lambda f: STRATEGIES.index(f.strategy))
        return self._doc_facts[chunk.chunk_id]

    def _multi_context(self, context: Context, n: int, rng: random.Random) -> list[Draft]:
        """Bridge and comparison questions across the root and a neighbour; none when no pair of facts fits."""
        facts = [fact for number in range(1, len(context.blocks) + 1) for fact in self._block_facts(context, number)]
        hops = self._hops(context) if context.along_graph else []
        made = []
        for combined in combine(facts, self.max_words):
            problem = grammar_problem(combined.question, " ".join(combined.evidence))
            if problem is not None:
                self._reject("ungrammatical", problem, strategy="combined")
                continue
            made.append(combined)
        self._stats["multi_context_pairs"] += len(made) + len(hops)
        if not made and not hops:
            self._stats["multi_context_none"] += 1  # no bridge or comparison fits this context
        rng.shuffle(made)
        rng.shuffle(hops)
        unique = list({m.question.lower(): m for m in made}.values())
        chosen: list[Draft] = []
        for draft in [*hops, *(combined_draft(m) for m in unique)]:
            about = self._about.get(draft.question, [])
            if len(chosen) == n:
                break
            if any(self._compared[subject] >= MOST_COMPARED for subject in about):
                continue
            self._compared.update(about)
            chosen.append(draft)
        return chosen

    def _claims(self, chunk: Chunk, block: int) -> list[Claim]:
        """What a block gives a multi-hop question: its documentation facts and its turned sentences."""
        heading = chunk.heading_path or ""
        named = section_name_fact(chunk.text) if heading and chunk.section_part == 0 else None
        documented = [*self.documentation_facts(chunk), *([named] if named else [])]
        fields = [(f.question, f.span, f.reference, f.strategy, _subject(f.question)) for f in documented] + [
            (f.turned.question, f.turned.answer, f.sentence, _claim_kind(f.turned.rule), f.turned.subject)
            for f in self._chunk_facts(chunk)
        ]
        return [Claim(block, *field, heading) for field in fields]

    def _hops(self, context: Context) -> list[Draft]:
        """Multi-hop drafts across the root and its graph partners (`multihop`), from each block's claims."""
        blocks = enumerate(context.blocks, start=1)
        claims = self._fresh([claim for number, chunk in blocks for claim in self._claims(chunk, number)])
        subjects = {claim.reference: claim.subject for claim in claims}
        drafts = []
        for draft in hop_drafts(claims, [chunk.text for chunk in context.blocks], self.max_words):
            problem = grammar_problem(draft.question, " ".join(draft.evidence))
            if problem is not None and draft.strategy == "multihop_bridge":
                self._reject("ungrammatical", problem, strategy=draft.strategy)
                continue
            self._about[draft.question] = [subjects[e] for e in draft.evidence if subjects.get(e)]
            drafts.append(draft)
        return drafts

    def _reject(self, reason: str, detail: str = "", strategy: str = "sentence") -> None:
        """A question the writer made and its own checks refused: counted as a rejection by reason (and by
        strategy, as `strategy_<name>_rejected`)."""
        self._stats[f"{REJECTED_PREFIX}{reason}"] += 1
        self._stats[f"strategy_{strategy}_rejected"] += 1
        if detail:
            self._stats[f"{reason}:{detail.split(':')[0]}"] += 1

    def _block_facts(self, context: Context, number: int) -> list[Fact]:
        """Every question the rules make from block `number` (memoised per chunk; stats count each sentence once)."""
        return [Fact(number, fact.turned, fact.sentence) for fact in self._chunk_facts(context.blocks[number - 1])]

    def _chunk_facts(self, chunk: Chunk) -> list[Fact]:
        """`facts` of a chunk, memoised (its stats count each sentence once)."""
        if chunk.chunk_id not in self._facts:
            self._facts[chunk.chunk_id] = self.facts(chunk)
        return self._facts[chunk.chunk_id]

    def facts(self, chunk: Chunk) -> list[Fact]:
        """The turned sentences of one chunk, in text order (block number 0: not yet placed)."""
        language = chunk.language
        casing = self._casing_of(chunk)
        topic = topic_of(chunk.source) if language == "en" and chunk.heading_path is None else None
        found: list[Fact] = []
        about_topic = False
        text = chunk.text
        coded: list[str] = []  # documentation sentences with their inline code marked
        if chunk.heading_path is not None:  # prose only, never cut inside code; inline code read as the words it is
            if release_notes(chunk.heading_path):
                self._stats["skip_release_notes"] += 1
                return []
            coded = [s for line in prose_lines(chunk.text) for s in split_prose(line)]
            sentences = [s.replace("`", "") for s in coded]
        else:
            sentences = split_sentences(text, language)
        for number, original in enumerate(sentences):
            self._stats["sentences"] += 1
            introduces = chunk.heading_path is not None and original.rstrip().endswith(":")
            if introduces:
                original = original.rstrip()[:-1].rstrip() + "."  # a statement introducing code or a list
            resolved = resolve(original, topic, about_topic)
            sentence = resolved or original
            about_topic = resolved is not None or (topic is not None and topic.named_in(original))
            if resolved is not None:
                self._stats["pronoun_resolved"] += 1
            try:
                turned = (
                    turn_all(sentence, casing, self.max_words) if language == "en" else turn_cjk(sentence, language)
                )
            except Skip as skip:
                self._stats[f"skip_{skip.reason}"] += 1
                continue
            if chunk.heading_path is not None and (problem := docs_problem(turned, sentence, self._pages.headings)):
                self._stats[f"skip_{problem}"] += 1
                continue
            kept = [t for t in turned if self._passes_checks(t, sentence, language)]
            if introduces:  # "Kubernetes is a minimal worker Deployment fragment:" + code: a label, no definition
                kept = [t for t in kept if t.rule not in DEFINITION_RULES]
            if chunk.heading_path is not None:  # one question a sentence, the most specific
                where = (coded[number], heading_parts(chunk)[-1], casing)
                kept = [sentence_case(t, casing) for t in kept]
                specific = [t for t in kept if self._specific_in_docs(t, *where)]
                kept = [max(specific, key=lambda t: len(t.question.split()))] if specific else []
            if kept:
                self._stats["turned"] += 1
            found.extend(Fact(0, t, sentence) for t in kept)
        return found

    def _specific_in_docs(self, turned: Turned, sentence: str, heading: str, casing: Casing) -> bool:
        """`docs.specific_problem`, its reason counted as a rejection."""
        problem = specific_problem(turned, sentence, heading, casing, self._pages)
        if problem is not None:
            self._reject(problem)
        return problem is None

    def _passes_checks(self, turned: Turned, sentence: str, language: str) -> bool:
        """`sentences.turned_problem` for English, its reason counted as a rejection."""
        problem = turned_problem(turned, sentence) if language == "en" else None
        if problem is not None:
            self._reject(*problem)
        return problem is None
