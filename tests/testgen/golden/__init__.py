"""The offline writer's golden outputs, kept as data: one JSON file per strategy (`sentences.json`, `docs.json`), each
a list of cases. A case names its `kind` (what it runs: a sentence turned by the rules, a heading read as a task, a
page drafted by the writer, ...), its inputs, `why` it is pinned (the corpus and round it came from) and the
`expected` output, which only the update command writes:

    python -m tests.testgen.golden update [FILE ...] [--dry-run]

rewrites `expected` from the current code and prints what changed as a unified diff, so re-tuning a rule is a
reviewed change of these files, not hand-edited asserts. `tests/testgen/test_golden.py` checks every case.
"""

from __future__ import annotations

import difflib
import json
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

from ragtest_core.text import split_sentences
from testgen.chunking import chunk_documents
from testgen.files import read_files
from testgen.filters import DEFAULT_MAX_WORDS
from testgen.structure import ChunkLine
from testgen.writers import ExtractiveWriter
from testgen.writers.docs.answers import opening_answer
from testgen.writers.docs.defaults import default_fact
from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.facts import code_heading_fact, faq_question, glossary_fact, name_heading_fact
from testgen.writers.docs.headings import task_phrase
from testgen.writers.docs.instructions import instruction_fact
from testgen.writers.docs.options import option_fact, option_reference
from testgen.writers.docs.text import clean_sentence
from testgen.writers.english.clause import Casing, Skip
from testgen.writers.english.grammar import definition_problem, grammar_problem
from testgen.writers.english.morphology import content_lemmas
from testgen.writers.sentences.patterns import turn_all
from testgen.writers.sentences.reference import reference_sentence
from testgen.writers.sentences.topic import resolve, topic_of
from tests.testgen.whole_corpus import prepare

FOLDER = Path(__file__).resolve().parent
#: The seven Wikipedia articles the sentence cases may quote (tests/data/wikipedia).
ARTICLES = FOLDER.parents[1] / "data" / "wikipedia"
Case = dict[str, Any]


def files() -> list[Path]:
    return sorted(FOLDER.glob("*.json"))


def load(path: Path) -> list[Case]:
    cases: list[Case] = json.loads(path.read_text(encoding="utf-8"))
    return cases


#: A [question, answer] pair (any list of two strings), written on one line so that a diff shows it whole.
_PAIR = re.compile(r'\[\s*("(?:[^"\\]|\\.)*"),\s*("(?:[^"\\]|\\.)*")\s*\]')


def dump(cases: Sequence[Case]) -> str:
    return _PAIR.sub(r"[\1, \2]", json.dumps(list(cases), ensure_ascii=False, indent=2)) + "\n"


def _fact(fact: DocFact | None) -> dict[str, str] | None:
    return None if fact is None else {"question": fact.question, "answer": fact.span, "reference": fact.reference}


def _turn(case: Case) -> dict[str, Any]:
    """A sentence (given, or the one of an article that starts with `start`) turned by the rules: every question
    with its answer span, or the reason it was skipped."""
    out: dict[str, Any] = {}
    sentence = case.get("sentence", "")
    casing_text = case.get("casing")
    if "article" in case:
        text = (ARTICLES / case["article"]).read_text(encoding="utf-8")
        sentence = next(line for line in split_sentences(text, "en") if line.startswith(case["start"]))
        if case.get("resolve"):  # "It is ..." after a sentence on the article's topic
            sentence = resolve(sentence, topic_of(case["article"]), True) or sentence
        out["sentence"] = sentence
        casing_text = text if casing_text == "article" else casing_text
    casing = None if casing_text is None else Casing(casing_text)
    try:
        turned = turn_all(sentence, casing, case.get("max_words", DEFAULT_MAX_WORDS))
    except Skip as skip:
        return {**out, "skip": skip.reason}
    return {**out, "questions": [[t.question, t.answer] for t in turned]}


def _prose(lines: Iterable[str]) -> list[ChunkLine]:
    """A section's body: its prose lines."""
    return [ChunkLine("prose", text) for text in lines]


def _item(case: Case) -> ChunkLine:
    return ChunkLine("item", case["text"], case["term"])


def _opening_answer(case: Case) -> str | None:
    """The how-to answer a section with this heading and these statements gives (None: no answer)."""
    task = task_phrase(case["heading"], Casing("")) or ""
    body = _prose(case["sentences"])
    return opening_answer(body, True, frozenset(content_lemmas(task)), task_verb=task.split()[0] if task else "")


def _page(case: Case) -> dict[str, str]:
    """Every question the offline writer drafts from one page (strategies first, then turned sentences):
    question -> reference."""
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / case["name"]
        page.write_text("\n".join(case["lines"]) + "\n", encoding="utf-8")
        chunks = chunk_documents(read_files(page).documents)
    writer = ExtractiveWriter()
    prepare(writer, chunks)
    found = {fact.question: fact.reference for chunk in chunks for fact in writer.documentation_facts(chunk)}
    found.update({fact.turned.question: fact.sentence for chunk in chunks for fact in writer.facts(chunk)})
    return found


#: What each kind of case runs.
KINDS: dict[str, Callable[[Case], Any]] = {
    "turn": _turn,
    "reference": lambda case: reference_sentence(case["sentence"], case["span"]),
    "grammar": lambda case: grammar_problem(case["question"], case["sentence"], case.get("subject", "")),
    "definition": lambda case: definition_problem(case["description"]),
    "task": lambda case: task_phrase(case["heading"], Casing(case.get("casing", ""))),
    "faq": lambda case: faq_question(case["heading"], Casing(case.get("casing", ""))),
    "instruction": lambda case: _fact(instruction_fact(case["sentence"])),
    "default": lambda case: _fact(
        default_fact(case["sentence"], case["heading"], Casing(case.get("casing", "")), case.get("max_words", 12))
    ),
    "option": lambda case: _fact(option_fact(_item(case), case["heading"], case.get("own_section", False))),
    "option_reference": lambda case: option_reference(case["subject"], case["description"]),
    "glossary": lambda case: _fact(glossary_fact(_item(case))),
    "code_heading": lambda case: _fact(code_heading_fact(case["leaf"], _prose(case["body"]), case["heading"])),
    "name_heading": lambda case: _fact(name_heading_fact(case["leaf"], _prose(case["body"]))),
    "opening_answer": _opening_answer,
    "clean_sentence": lambda case: clean_sentence(case["sentence"]),
    "page": _page,
}


def run(case: Case) -> Any:
    """What the current code gives for a case (as JSON would hold it)."""
    result = KINDS[case["kind"]](case)
    return json.loads(json.dumps(result, ensure_ascii=False))


def update(paths: Iterable[Path], write: bool = True, out: TextIO | None = None) -> int:
    """Recompute every case's `expected`; print a unified diff of each file that changes (and write it unless
    `write` is False). Returns how many cases changed."""
    changed = 0
    for path in paths:
        before = path.read_text(encoding="utf-8")
        cases = load(path)
        for case in cases:
            expected = run(case)
            changed += "expected" not in case or case["expected"] != expected
            case["expected"] = expected
        after = dump(cases)
        if after != before:
            diff = difflib.unified_diff(
                before.splitlines(keepends=True), after.splitlines(keepends=True), f"{path} (before)", f"{path} (now)"
            )
            print("".join(diff), end="", file=out)
            if write:
                path.write_text(after, encoding="utf-8")
    return changed
