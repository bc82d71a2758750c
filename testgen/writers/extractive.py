"""The offline question writer: no LLM, the strategies `docs` (a structured chunk's headings, items and statements)
and `sentences` (any chunk's sentences turned by fixed rules; in documentation they also pass the documentation
checks and wait for tier 1) over the English toolkit, and `multihop` across sections joined by the corpus graph.

Only "simple" and "multi_context" questions (`supported_types`): the other types need an LLM to be written honestly.
Deterministic for a seed. What its own checks refuse is counted as `rejected_<reason>` in its stats, and by strategy.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from ragtest_core.text import split_sentences
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.filters import DEFAULT_MAX_WORDS
from testgen.question_types import QuestionType
from testgen.structure import PATH_SEPARATOR, prose_lines
from testgen.writers.base import REJECTED_PREFIX, Draft, QuestionWriter
from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.facts import STRATEGIES, doc_facts, needs_section, section_name_fact, strategy_problem
from testgen.writers.docs.sentence_checks import PageIndex, docs_problem, heading_parts, specific_problem
from testgen.writers.docs.specific import release_notes, sentence_case
from testgen.writers.docs.text import split_prose
from testgen.writers.docs.tiers import SENTENCE_TIER, doc_draft
from testgen.writers.english.clause import Casing, Skip
from testgen.writers.english.grammar import grammar_problem
from testgen.writers.multihop.shapes import Claim, hop_drafts, pairable
from testgen.writers.sentences.cjk import turn_cjk
from testgen.writers.sentences.combine import Combined, Fact, combine
from testgen.writers.sentences.drafts import DEFINITION_RULES, combined_draft, sentence_draft, turned_problem
from testgen.writers.sentences.patterns import turn_all
from testgen.writers.sentences.topic import resolve, topic_of

if TYPE_CHECKING:
    from testgen.store import ChunkStore

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
    return Casing("\n".join(_prose_text(c) if c.heading_path is not None else c.text for c in chunks))


def _prose_text(chunk: Chunk) -> str:
    return re.sub(r"`[^`]*`|“[^”]*”", "·", "\n".join(prose_lines(chunk.text)))  # code; cited titles


class ExtractiveWriter(QuestionWriter):
    """Offline questions from the root chunk (its documentation facts first, then its turned sentences), or across
    the root and a neighbour."""

    name = "extractive"
    supported_types = frozenset({"simple", "multi_context"})
    unsupported_reason = (
        "the extractive writer writes only simple and multi_context questions; reasoning, conditional, unanswerable "
        "and distracting questions need an LLM writer (--llm)"
    )

    def __init__(self, seed: int = 0, max_words: int = DEFAULT_MAX_WORDS) -> None:
        self.seed = seed
        self.max_words = max_words
        #: Counts: sentences seen and turned, skips by reason, unsupported languages and types.
        self.stats: Counter[str] = Counter()
        #: A document's casing by its id (None: not known), from `learn`.
        self._doc_casing: Callable[[str], Casing | None] | None = None
        self._facts: dict[str, list[Fact]] = {}
        self._doc_facts: dict[str, list[DocFact]] = {}
        self._pages = PageIndex()
        #: How often each thing was compared in this set's multi-hop drafts, and what each hop question is about.
        self._compared: Counter[str] = Counter()
        self._about: dict[str, list[str]] = {}

    def learn(self, store: ChunkStore) -> None:
        """Learn a document's casing (which capitalised words are names) from all of its chunks when one of them is
        first written from (the last `CASING_DOCUMENTS` documents' casings are kept), and, from the store's chunk keys
        and `documents_containing`, the documentation's headings, pages and how many pages use a phrase."""
        self._doc_casing = lru_cache(maxsize=CASING_DOCUMENTS)(lambda doc_id: _casing(store.document_chunks(doc_id)))
        self._compared.clear()
        self._about.clear()
        keys = [key for key in store.chunk_keys() if key.heading_path]
        headings = {p.strip().lower() for key in keys for p in (key.heading_path or "").split(PATH_SEPARATOR)} - {""}
        self._pages = PageIndex(frozenset(headings), store.documents_containing, len({key.source for key in keys}))

    def _casing_of(self, chunk: Chunk) -> Casing:
        known = self._doc_casing(chunk.doc_id) if self._doc_casing is not None and chunk.doc_id else None
        return known if known is not None else Casing(chunk.text)

    def can_write(self, root: Chunk, question_type: QuestionType = "simple") -> bool:
        """Whether this root chunk gives the rules anything to turn (see `QuestionWriter.can_write`). A `multi_context`
        root may pair two neighbours' facts: it is always tried, except in documentation, where its question follows
        the corpus graph and needs a fact of its own (`multihop.pairable`)."""
        if question_type not in self.supported_types or root.language not in _LANGUAGES:
            return False
        if question_type == "multi_context":  # documentation: a root with a fact a multi-hop question can use
            return root.heading_path is None or any(pairable(claim) for claim in self._claims(root, 1))
        return bool(self.facts(root)) or bool(self.documentation_facts(root))

    def can_join(self, root: Chunk, partner: Chunk) -> bool:
        """Whether a multi-hop question (`multihop`) joins a documentation root and this graph partner."""
        claims = self._fresh(self._claims(root, 1) + self._claims(partner, 2))
        return root.heading_path is None or bool(hop_drafts(claims, [root.text, partner.text], self.max_words))

    def _fresh(self, claims: list[Claim]) -> list[Claim]:
        """The claims about things not yet compared `MOST_COMPARED` times in this set (a few sibling sections would
        otherwise fill the multi-hop share with comparisons of the same things)."""
        return [claim for claim in claims if self._compared[claim.subject] < MOST_COMPARED]

    async def write(self, context: Context, n: int, question_type: QuestionType = "simple") -> list[Draft]:
        if question_type not in self.supported_types:
            self.stats[f"unsupported_type_{question_type}"] += 1
            return []
        if context.language not in _LANGUAGES:
            self.stats["unsupported_language"] += 1
            return []
        rng = random.Random(f"{self.seed}:{context.root.chunk_id}:{question_type}")
        if question_type == "multi_context":
            return self._multi_context(context, n, rng)
        facts = list(self.facts(context.root))
        rng.shuffle(facts)
        tier = SENTENCE_TIER if context.root.heading_path is not None else 0
        drafts = {draft.question.lower(): draft for draft in map(doc_draft, self.documentation_facts(context.root))}
        for fact in facts:
            drafts.setdefault(fact.turned.question.lower(), sentence_draft(fact, context.language, tier))
        return list(drafts.values())[:n]

    def documentation_facts(self, chunk: Chunk) -> list[DocFact]:
        """The documentation strategies' facts of a structured chunk, best strategy first (memoised per chunk)."""
        if chunk.heading_path is None or chunk.language != "en":
            return []
        if chunk.chunk_id not in self._doc_facts and release_notes(chunk.heading_path):
            self.stats["skip_release_notes"] += 1
            self._doc_facts[chunk.chunk_id] = []
        if chunk.chunk_id not in self._doc_facts:
            kept: dict[str, DocFact] = {}
            for fact in doc_facts(chunk.text, self._casing_of(chunk), self.max_words, opening=chunk.section_part == 0):
                self.stats[f"strategy_{fact.strategy}_drafted"] += 1
                problem = strategy_problem(fact, self.max_words) or self._pages.ambiguous_task(fact)
                if self._kept(problem or needs_section(fact, heading_parts(chunk)[-1]), fact.strategy):
                    kept.setdefault(fact.question.lower(), fact)
            self._doc_facts[chunk.chunk_id] = sorted(kept.values(), key=lambda f: STRATEGIES.index(f.strategy))
        return self._doc_facts[chunk.chunk_id]

    def _multi_context(self, context: Context, n: int, rng: random.Random) -> list[Draft]:
        """Bridge and comparison questions across the root and a neighbour; none when no pair of facts fits."""
        facts = [replace(fact, block=number) for number, b in enumerate(context.blocks, 1) for fact in self.facts(b)]
        hops = self._hops(context) if context.along_graph else []
        made = [m for m in combine(facts, self.max_words) if self._grammatical(m, "combined")]
        self.stats["multi_context_pairs"] += len(made) + len(hops)
        if not made and not hops:
            self.stats["multi_context_none"] += 1  # no bridge or comparison fits this context
        rng.shuffle(made)
        rng.shuffle(hops)
        unique = list({m.question.lower(): m for m in made}.values())
        chosen: list[Draft] = []
        for draft in [*hops, *(combined_draft(m) for m in unique)]:
            about = self._about.get(draft.question, [])
            if len(chosen) < n and all(self._compared[subject] < MOST_COMPARED for subject in about):
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
            for f in self.facts(chunk)
        ]
        return [Claim(block, *field, heading) for field in fields]

    def _hops(self, context: Context) -> list[Draft]:
        """Multi-hop drafts across the root and its graph partners (`multihop`), from each block's claims."""
        claims = self._fresh([c for number, chunk in enumerate(context.blocks, 1) for c in self._claims(chunk, number)])
        subjects = {claim.reference: claim.subject for claim in claims}
        drafts = []
        for draft in hop_drafts(claims, [chunk.text for chunk in context.blocks], self.max_words):
            if draft.strategy != "multihop_bridge" or self._grammatical(draft, draft.strategy):
                self._about[draft.question] = [subjects[e] for e in draft.evidence if subjects.get(e)]
                drafts.append(draft)
        return drafts

    def _kept(self, problem: str | tuple[str, str] | None, strategy: str = "sentence") -> bool:
        """Whether a made question passed a check; its `problem` (a reason, or a reason and its detail) is counted."""
        if problem is None:
            return True
        reason, detail = (problem, "") if isinstance(problem, str) else problem
        self.stats[f"{REJECTED_PREFIX}{reason}"] += 1
        self.stats[f"strategy_{strategy}_rejected"] += 1
        if detail:
            self.stats[f"{reason}:{detail.split(':')[0]}"] += 1
        return False

    def _grammatical(self, made: Combined | Draft, strategy: str) -> bool:
        problem = grammar_problem(made.question, " ".join(made.evidence))
        return self._kept(None if problem is None else ("ungrammatical", problem), strategy)

    def facts(self, chunk: Chunk) -> list[Fact]:
        """The turned sentences of one chunk, in text order (block number 0: not yet placed), memoised per chunk
        (its stats count each sentence once)."""
        if chunk.chunk_id not in self._facts:
            self._facts[chunk.chunk_id] = self._turn_sentences(chunk)
        return self._facts[chunk.chunk_id]

    def _turn_sentences(self, chunk: Chunk) -> list[Fact]:
        language, casing, docs = chunk.language, self._casing_of(chunk), chunk.heading_path is not None
        topic = topic_of(chunk.source) if language == "en" and not docs else None
        found: list[Fact] = []
        about_topic = False
        if docs and release_notes(chunk.heading_path):
            self.stats["skip_release_notes"] += 1
            return []
        # documentation: prose only, never cut inside code (`coded` keeps inline code marked), read as the words it is
        coded = [s for line in prose_lines(chunk.text) for s in split_prose(line)] if docs else []
        sentences = [s.replace("`", "") for s in coded] if docs else split_sentences(chunk.text, language)
        for number, original in enumerate(sentences):
            self.stats["sentences"] += 1
            introduces = docs and original.rstrip().endswith(":")
            if introduces:
                original = original.rstrip()[:-1].rstrip() + "."  # a statement introducing code or a list
            resolved = resolve(original, topic, about_topic)
            sentence = resolved or original
            about_topic = resolved is not None or (topic is not None and topic.named_in(original))
            if resolved is not None:
                self.stats["pronoun_resolved"] += 1
            try:
                turned = (
                    turn_all(sentence, casing, self.max_words) if language == "en" else turn_cjk(sentence, language)
                )
            except Skip as skip:
                self.stats[f"skip_{skip.reason}"] += 1
                continue
            if docs and (problem := docs_problem(turned, sentence, self._pages.headings)):
                self.stats[f"skip_{problem}"] += 1
                continue
            kept = [t for t in turned if self._kept(turned_problem(t, sentence) if language == "en" else None)]
            if introduces:  # "Kubernetes is a minimal worker Deployment fragment:" + code: a label, no definition
                kept = [t for t in kept if t.rule not in DEFINITION_RULES]
            if docs:  # one question a sentence, the most specific
                where = (coded[number], heading_parts(chunk)[-1], casing, self._pages)
                kept = [sentence_case(t, casing) for t in kept]
                specific = [t for t in kept if self._kept(specific_problem(t, *where))]
                kept = [max(specific, key=lambda t: len(t.question.split()))] if specific else []
            if kept:
                self.stats["turned"] += 1
            found.extend(Fact(0, t, sentence) for t in kept)
        return found
