"""The offline writer's sentence rules with three ways of finding the verb, on English text it was not tuned on:
`python -m bench.sentence_rules_bench [--out DIR]`.

Arms:
- `lexicon`: today's rules; a verb is a form of one of the lexicon's verbs (testgen/writers/english/lexicon.py).
- `lemminflect`: any verb form lemminflect knows is a verb (its base and tense from lemminflect), the rest unchanged.
- `tagger`: as `lemminflect`, and whether a word is the clause's verb is read from HanTa's part-of-speech tags
  of the whole sentence (a finite verb or a modal) instead of the lexicon's neighbour rules.

Text: the contexts of WikiEval (Wikipedia, ../shared/data/wikieval) and FiQA (finance forum answers,
../shared/data/fiqa): the rules were tuned on the seven articles of ../shared/data/wikipedia, never on these.
Prints sentences, sentences turned and questions per arm, the skips by reason, and writes each arm's questions
(with their sentences) to DIR/<arm>.tsv, and the questions only one arm wrote to DIR/only_<arm>.tsv, for reading.

Measured (2,307 sentences): lexicon 87 sentences turned, 88 questions; tagger 84, 85; lemminflect 79, 80. Between
lexicon and tagger, four questions only the lexicon wrote and one only the tagger ("Who announced the city was
suffering?", a second verb read as the subject's). The clause parser keeps the lexicon; the lexicon's verb forms
come from lemminflect's inflections since issue 32 (the same 88 questions as the hand-written forms before).
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ragtest_core.text import split_sentences
from testgen.writers.english import clause, grammar
from testgen.writers.english.clause import Casing, Skip
from testgen.writers.english.lexicon import AUX_BE, FORMS, MODALS, VerbForm
from testgen.writers.english.tagger import tag_words
from testgen.writers.sentences import combine, patterns, reference, rules, spans
from testgen.writers.sentences.patterns import turn_all

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("RAGTEST_SHARED_DATA", ROOT.parent / "shared" / "data"))
_MODULES = (clause, combine, grammar, patterns, reference, rules, spans)
_FINITE_TAGS = frozenset({"VVZ", "VVD", "VBZ", "VBB", "VBD", "VM0", "VHZ", "VHD", "VHB", "VDZ", "VDD", "VDB"})


class LemminflectForms:
    """The lexicon's verb forms, and for any other word the verb form lemminflect knows it as (a mapping with the
    `get`, `[]` and `in` that the rules use)."""

    def __init__(self, known: dict[str, VerbForm]) -> None:
        self._known: dict[str, VerbForm | None] = dict(known)

    def get(self, word: str, default: Any = None) -> Any:
        if word not in self._known:
            self._known[word] = _lemminflect_form(word)
        found = self._known[word]
        return found if found is not None else default

    def __getitem__(self, word: str) -> VerbForm:
        found: VerbForm | None = self.get(word)
        if found is None:
            raise KeyError(word)
        return found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.get(word) is not None


def _lemminflect_form(word: str) -> VerbForm | None:
    from lemminflect import getAllLemmas, getInflection

    lower = word.lower()
    if not lower.isalpha() or lower in AUX_BE | MODALS | {"be", "been", "being", "has", "have", "had", "do", "does"}:
        return None
    for base in getAllLemmas(lower).get("VERB", ()):
        if lower in getInflection(base, tag="VBZ"):
            return VerbForm(base, "pres3")
        past, participle = lower in getInflection(base, tag="VBD"), lower in getInflection(base, tag="VBN")
        if past and participle:
            return VerbForm(base, "past_part")
        if past:
            return VerbForm(base, "past")
        if participle:
            return VerbForm(base, "part")
        if lower == base:
            return VerbForm(base, "pres")
    return None


def _tagged_is_verb(tokens: list[str], index: int) -> bool:
    """The clause's verb where the tagger reads a finite verb or a modal (the lexicon's forms still give tense)."""
    word = tokens[index].lower().rstrip(",")
    if word in AUX_BE or word in MODALS or word in ("has", "have", "had"):
        return True
    tags = tag_words(tuple(tokens))
    forms: Any = getattr(clause, "FORMS")  # noqa: B009
    return tags[index] in _FINITE_TAGS and forms.get(word) is not None


@contextmanager
def arm(name: str) -> Iterator[None]:
    saved: dict[Any, Any] = {module: getattr(module, "FORMS", None) for module in _MODULES}
    saved_is_verb = clause._is_verb
    try:
        if name in ("lemminflect", "tagger"):
            forms = LemminflectForms(FORMS)
            for module in _MODULES:
                if hasattr(module, "FORMS"):
                    setattr(module, "FORMS", forms)  # noqa: B010
        if name == "tagger":
            setattr(clause, "_is_verb", _tagged_is_verb)  # noqa: B010
        yield
    finally:
        for module, forms in saved.items():
            if forms is not None:
                setattr(module, "FORMS", forms)  # noqa: B010
        setattr(clause, "_is_verb", saved_is_verb)  # noqa: B010


def sentences() -> list[str]:
    texts: list[str] = []
    for line in (DATA / "wikieval" / "wikieval.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        texts.extend(row["context_v1"])
        texts.extend(row["context_v2"])
    for line in (DATA / "fiqa" / "fiqa.jsonl").read_text(encoding="utf-8").splitlines():
        texts.extend(json.loads(line)["retrieved_contexts"])
    seen: dict[str, None] = {}
    for text in texts:
        for sentence in split_sentences(text, "en"):
            seen.setdefault(" ".join(sentence.split()), None)
    return list(seen)


def run(name: str, items: Sequence[str], casing: Casing) -> tuple[list[tuple[str, str, str]], Counter[str]]:
    made: list[tuple[str, str, str]] = []
    skips: Counter[str] = Counter()
    with arm(name):
        for sentence in items:
            try:
                turned = turn_all(sentence, casing)
            except Skip as skip:
                skips[skip.reason] += 1
                continue
            kept = [t for t in turned if grammar.grammar_problem(t.question, sentence, t.subject) is None]
            if not kept:
                skips["ungrammatical"] += 1
            made.extend((t.question, t.answer, sentence) for t in kept)
    return made, skips


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("runs") / "sentence_rules_bench")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    items = sentences()
    casing = Casing("\n".join(items))
    args.out.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[tuple[str, str, str]]] = {}
    print(f"{len(items)} sentences (WikiEval contexts and FiQA contexts; not tuned on)")
    print(f"{'arm':12} {'turned':>7} {'rate':>6} {'questions':>9}  top skips")
    for name in ("lexicon", "lemminflect", "tagger"):
        made, skips = run(name, items, casing)
        results[name] = made
        turned = len({sentence for _, _, sentence in made})
        top = ", ".join(f"{reason} {count}" for reason, count in skips.most_common(4))
        print(f"{name:12} {turned:7d} {turned / len(items):6.3f} {len(made):9d}  {top}")
        _write(args.out / f"{name}.tsv", made)
    for name, made in results.items():
        others = {q for other, rows in results.items() if other != name for q, _, _ in rows}
        only = [row for row in made if row[0] not in others]
        random.Random(args.seed).shuffle(only)
        _write(args.out / f"only_{name}.tsv", only)
        print(f"questions only {name} wrote: {len(only)} (in {args.out / f'only_{name}.tsv'})")
    return 0


def _write(path: Path, rows: Sequence[tuple[str, str, str]]) -> None:
    path.write_text("".join(f"{q}\t{a}\t{s}\n" for q, a, s in rows), encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
