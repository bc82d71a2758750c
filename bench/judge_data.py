"""The labelled sets the local judge is measured (and its parameters fitted) on, built from ../shared/data.

Row format everywhere: {"question", "answer", "contexts": [...], "ground_truth"?}. How each set was used is labelled
where it is reported (`bench.judge_validity`: [fit], [tune], [dev]); in short: BEGIN wow fitted the support model
(`bench/calibration/fit_support.py`), BEGIN cmu and tc chose its design (`bench/support_ablation.py`), WikiEval's own
pairings tuned earlier designs, and the gen-RC sets fitted the answer-relevancy calibration
(`bench/calibration/fit_answer_relevancy.py`). The other pairings here are built from those rows (another row's
answer or context, a swapped fact, a fragment of the reference) with labels no design was fitted on.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path
from typing import Any

from evaluation.meta_eval import load_wikieval
from ragtest_core.textunits import sentences, unit

DATA = Path(os.environ.get("RAGTEST_SHARED_DATA") or Path(__file__).resolve().parents[1].parent / "shared" / "data")
Row = dict[str, Any]


def wikieval(data: Path = DATA) -> list[Row]:
    return load_wikieval(data / "wikieval" / "wikieval.jsonl")


def begin(data: Path = DATA, source: str | None = None) -> list[Row]:
    """BEGIN dev rows (Generic excluded): label 1 = Fully attributable, 0 = Not fully attributable; the previous
    turn is the question, the knowledge passage the one context."""
    rows = []
    for line in (data / "begin" / "begin_dev.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["label"] == "Generic" or (source and r["source"] != source):
            continue
        rows.append(
            {
                "question": r["message"],
                "answer": r["response"],
                "contexts": [r["knowledge"]],
                "label": int(r["label"] == "Fully attributable"),
                "source": r["source"],
            }
        )
    return rows


def fiqa(data: Path = DATA) -> list[Row]:
    rows = []
    for line in (data / "fiqa" / "fiqa.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        rows.append(
            {
                "question": r["user_input"],
                "answer": r["response"].strip(),
                "contexts": r["retrieved_contexts"],
                "ground_truth": " ".join(r["reference"]),
            }
        )
    return rows


def derangement(n: int, seed: int) -> list[int]:
    """A seeded permutation with no fixed point (row i is paired with another row's text)."""
    rng = random.Random(seed)
    while True:
        order = list(range(n))
        rng.shuffle(order)
        if all(i != j for i, j in enumerate(order)):
            return order


def _row(question: str, answer: str, contexts: list[str]) -> Row:
    return {"question": question, "answer": answer, "contexts": list(contexts)}


def fiqa_pairs(data: Path = DATA, seed: int = 0) -> list[tuple[Row, Row]]:
    """Each FiQA question with its own response (preferred) vs another row's response. [dev]"""
    rows = fiqa(data)
    other = derangement(len(rows), seed)
    return [
        (_row(r["question"], r["answer"], r["contexts"]), _row(r["question"], rows[other[i]]["answer"], r["contexts"]))
        for i, r in enumerate(rows)
    ]


def wikieval_pairs(data: Path = DATA) -> dict[str, list[tuple[Row, Row]]]:
    """WikiEval's human pairings (answer as the reference for the retrieval metrics). [in-sample]"""
    rows = wikieval(data)

    def side(r: Row, answer: str, contexts: str) -> Row:
        return {**_row(r["question"], r[answer], r[contexts]), "ground_truth": r["answer"]}

    return {
        "faithfulness": [(side(r, "answer", "context_v1"), side(r, "ungrounded_answer", "context_v1")) for r in rows],
        "answer_relevance": [(side(r, "answer", "context_v1"), side(r, "poor_answer", "context_v1")) for r in rows],
        "context_relevance": [(side(r, "answer", "context_v1"), side(r, "answer", "context_v2")) for r in rows],
    }


def wikieval_offtopic_pairs(data: Path = DATA, seed: int = 0) -> list[tuple[Row, Row]]:
    """Each WikiEval question with its answer vs another row's answer. [in-sample]"""
    rows = wikieval(data)
    other = derangement(len(rows), seed)
    return [
        (
            _row(r["question"], r["answer"], r["context_v1"]),
            _row(r["question"], rows[other[i]]["answer"], r["context_v1"]),
        )
        for i, r in enumerate(rows)
    ]


def _addition_keys(answer: str, question: str) -> frozenset[str]:
    return frozenset(k for s in sentences(answer) for k in unit(s).keys) - unit(question).keys


def wikieval_rc_pairs(data: Path = DATA, seed: int = 0) -> list[tuple[Row, Row]]:
    """Reading-comprehension proxy: the context_v1 sentence that grounds most of what the human-preferred answer
    adds beyond the question (share >= 0.3) vs a sentence of the same context grounding at most half as much. The
    label comes from the answer, not the question, so question-sentence similarity is not circular. [dev*]"""
    rng = random.Random(seed)
    pairs = []
    for r in wikieval(data):
        adds = _addition_keys(r["answer"], r["question"])
        found = [s for c in r["context_v1"] for s in sentences(c) if len(unit(s).keys) >= 4]
        if len(found) < 2 or not adds:
            continue
        share = [len(unit(s).keys & adds) / len(adds) for s in found]
        best = max(range(len(found)), key=lambda i: share[i])
        others = [i for i in range(len(found)) if share[i] <= 0.5 * share[best] and i != best]
        if share[best] < 0.3 or not others:
            continue
        j = rng.choice(others)
        pairs.append(
            (_row(r["question"], found[best], r["context_v1"]), _row(r["question"], found[j], r["context_v1"]))
        )
    return pairs


def generated_rc(folder: Path, exclude: tuple[str, ...] = ("Python",), seed: int = 1) -> list[tuple[Row, Row, Row]]:
    """The calibration's fit set: simple questions of `ragtest generate --offline` test sets (one JSONL per
    article in `folder`; the Python article excluded: the demo's), each as (question + its source sentence,
    + another sentence of the same chunk, + a sentence of another article). [fit]"""
    rng = random.Random(seed)
    per_article: dict[str, list[str]] = {}
    items = []
    for file in sorted(folder.glob("*.jsonl")):
        if any(e in file.name for e in exclude):
            continue
        for line in file.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("question_type") != "simple":
                continue
            found = [s for c in r["reference_contexts"] for s in sentences(c) if len(unit(s).keys) >= 3]
            source = [s for s in found if r["ground_truth"] in s]
            others = [s for s in found if r["ground_truth"] not in s]
            if not source:
                continue
            per_article.setdefault(file.stem, []).extend(found)
            if others:
                items.append((file.stem, r["question"], source[0], rng.choice(others), r["reference_contexts"]))
    out = []
    for article, question, positive, negative, contexts in items:
        pool = [s for a, found in per_article.items() if a != article for s in found]
        out.append(
            (
                _row(question, positive, contexts),
                _row(question, negative, contexts),
                _row(question, rng.choice(pool), contexts),
            )
        )
    return out


# -- synthetic contradictions ------------------------------------------------------------------------------------

_SWAPPABLE = {
    "year": re.compile(r"^\d{4}$"),
    "number": re.compile(r"^(?:\d+(?:\.\d+)?|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|hundred)$"),
    "month": re.compile(r"^[A-Z][a-z]+$"),
    "name": re.compile(r"^[A-Z][a-z]{2,}$"),
}


def _key_words(text: str) -> list[tuple[str, str, str]]:
    """(surface word, key, kind) of the swappable key tokens of a text."""
    return [
        (w.text, w.key, w.kind)
        for s in sentences(text)
        for w in unit(s).words
        if w.kind in _SWAPPABLE and _SWAPPABLE[w.kind].match(w.text)
    ]


def swap_pairs(rows: list[Row], mode: str, seed: int = 0) -> list[tuple[Row, Row]]:
    """(supported row, the same row with one key token swapped). A year, number, month or name of the answer that
    the context states is replaced by one of the same kind that the context does not contain (mode "external":
    taken from other rows' contexts) or that the same context states elsewhere (mode "internal": every word of
    the swapped answer is still in the context). One swap per row at most, seeded."""
    rng = random.Random(seed)
    pool: dict[str, list[str]] = {}
    for r in rows:
        for c in r["contexts"]:
            for text, _, kind in _key_words(c):
                pool.setdefault(kind, []).append(text)
    pairs = []
    for r in rows:
        context = " ".join(r["contexts"])
        context_keys = {k for s in sentences(context) for k in unit(s).keys}
        answer_keys = {k for s in sentences(r["answer"]) for k in unit(s).keys}
        question_keys = unit(r["question"]).keys if r.get("question") else frozenset()
        candidates = [(t, k, kind) for t, k, kind in _key_words(r["answer"]) if k in context_keys - question_keys]
        if not candidates:
            continue
        text, _, kind = rng.choice(candidates)
        digits = text[:1].isdigit()
        if mode == "external":
            options = [
                t
                for t in pool.get(kind, [])
                if unit(t).keys.isdisjoint(context_keys | answer_keys)
                and (kind != "number" or t[:1].isdigit() == digits)
            ]
        else:
            options = [
                t for t, k, found in _key_words(context) if found == kind and k not in answer_keys | question_keys
            ]
        if not options:
            continue
        new = rng.choice(sorted(set(options)))
        swapped = re.sub(rf"(?<![\w]){re.escape(text)}(?![\w])", new, r["answer"], count=1)
        if swapped != r["answer"]:
            base = {"question": r["question"], "contexts": r["contexts"]}
            pairs.append(({**base, "answer": r["answer"]}, {**base, "answer": swapped}))
    return pairs


def begin_attributable(data: Path, source: str) -> list[Row]:
    return [r for r in begin(data, source) if r["label"] == 1]


def wikieval_supported(data: Path = DATA) -> list[Row]:
    return [_row(r["question"], r["answer"], r["context_v1"]) for r in wikieval(data)]


def generated_python(folder: Path, seed: int = 7, size: int = 20) -> list[Row]:
    """The offline test set of the Python article (`ragtest.generate`, seed 7, 20 questions: the article the
    answer-relevancy calibration leaves out), made once into `folder` and read back."""
    path = folder / f"python-offline-{size}-seed{seed}" / "testset.jsonl"
    if not path.exists():
        import ragtest

        config = ragtest.make_config(
            topic="Python (programming language)",
            wiki_cache=str(DATA / "wikipedia"),
            offline=True,
            size=size,
            seed=seed,
        )
        ragtest.generate(config, path.parent, show_progress=False)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def fragment_pairs(folder: Path) -> list[tuple[Row, Row]]:
    """Each generated question with its complete reference sentence (preferred) vs the short answer span inside
    it (a fragment of it: "2009", "Guido van Rossum"). [dev]"""
    return [
        (_row(r["question"], r["ground_truth"], []), _row(r["question"], r["answer_span"], []))
        for r in generated_python(folder)
        if r.get("answer_span") and r["answer_span"] != r["ground_truth"]
    ]


def fiqa_reference_pairs(data: Path = DATA, seed: int = 0) -> list[tuple[Row, Row]]:
    """Each FiQA row with its own response (preferred) vs another row's response, both judged against the row's
    reference and contexts. [dev]"""
    rows = fiqa(data)
    other = derangement(len(rows), seed)
    return [(r, {**r, "answer": rows[other[i]]["answer"]}) for i, r in enumerate(rows)]


def makes_a_claim(rows: list[Row]) -> list[bool]:
    """Per row: the local judge finds a claim in the answer (not a refusal such as "I'm not sure.")."""
    from evaluation.local_judge import text_claims
    from evaluation.refusal import is_refusal

    return [not is_refusal(r["answer"]) and bool(text_claims(r["answer"])) for r in rows]


def wikieval_context_pairs(data: Path = DATA, seed: int = 0) -> dict[str, list[tuple[Row, Row]]]:
    """Retrieval sets with the human-preferred answer as the reference: the row's context_v1 vs another row's
    context_v1 (recall: the right context holds the reference's facts), and [context_v1, another row's context]
    vs the same two contexts in the other order (precision: the useful context ranked first). [dev]"""
    rows = wikieval(data)
    other = derangement(len(rows), seed)

    def side(r: Row, contexts: list[str]) -> Row:
        return {**_row(r["question"], r["answer"], contexts), "ground_truth": r["answer"]}

    recall, order = [], []
    for i, r in enumerate(rows):
        own, foreign = list(r["context_v1"]), list(rows[other[i]]["context_v1"])
        recall.append((side(r, own), side(r, foreign)))
        order.append((side(r, own + foreign), side(r, foreign + own)))
    return {"recall": recall, "order": order}
