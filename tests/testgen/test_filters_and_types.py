"""Question rules, type distributions, the offline support check and offline multi-context questions."""

from __future__ import annotations

import pytest

from ragtest_core.embeddings import Embedder
from ragtest_core.errors import RagtestError
from ragtest_core.support import is_supported, support
from ragtest_core.textunits import content_keys
from testgen.filters import QuestionRules, copied_run, is_compound, is_specific
from testgen.question_types import allocate, parse_distribution, renormalise
from testgen.writers.english.clause import Casing
from testgen.writers.sentences.combine import Fact, combine
from testgen.writers.sentences.patterns import turn_all

CONTEXT = "Python 3.0, released in 2008, was a major revision of the language that is not completely compatible."


def recall(claim: str, text: str) -> float:
    """Share of the claim's content keys found in `text` (1.0 for a claim without any)."""
    wanted = content_keys(claim)
    return len(wanted & content_keys(text)) / len(wanted) if wanted else 1.0


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("When was Python 3.0 released?", None),
        ("When was Python 3.0 released", "no_question_mark"),
        ("According to the passage, when was Python 3.0 released?", "mentions_context"),
        ("In the provided text, what is Python?", "mentions_context"),
        ("What is Python and when was it released?", "compound_question"),
        ("Who created Python, and why did he name it so?", "compound_question"),
        ("What is one very long question that goes on for many more words?", "too_long"),
        ("What are Psyco and PyPy?", "compound_question"),
        ("What do supervised learning and anomaly detection require?", "compound_question"),
        ("How do Python 3.0 and Python 2.0 differ?", None),
        ("Which was released first, Python 2.0 or Python 3.0?", None),
        ("What does Python use?", "generic_question"),
        ("What does Python allow?", "generic_question"),
        ("Python 3.0, released in 2008, was a major revision?", "copies_context"),
    ],
)
def test_question_rules(question: str, reason: str | None) -> None:
    assert QuestionRules().reason(question, "2008", language="en", contexts=[CONTEXT]) == reason


@pytest.mark.parametrize(
    ("answer", "unfinished"),
    [
        # twisted's docs (held-out round 18): a sentence cut before its list, and one cut at "the .rpy file"
        ("Twisted Names provides a twistd DNS server plugin which can.", True),
        ("`__file__` is the name of the .", True),
        ("The `--log-file-mode` option logs file open mode:.", True),  # pytest's reference (development)
        ("The `TESTING` setting enables testing mode.", False),
        ("Use the file you want to write to.", False),
        ("The value is either `json` or `yaml`.", False),
    ],
)
def test_a_reference_cut_short_is_no_answer(answer: str, unfinished: bool) -> None:
    reason = QuestionRules().reason("What does Twisted Names provide?", answer)
    assert (reason == "unfinished_answer") is unfinished


def test_rule_helpers() -> None:
    assert is_specific("What is CPython?") and is_specific("What does Python use for exponentiation?")
    assert not is_specific("What does Python support?")
    assert is_compound("When was it released? Who made it?") and not is_compound("Which was first, Java or Python?")
    assert copied_run("When was Python 3.0 released?", [CONTEXT]) == 3
    assert QuestionRules(max_words=5).reason("When was Python version 3.0 released?", "2008") == "too_long"


def test_distribution_parsing_renormalising_and_exact_counts() -> None:
    assert parse_distribution("simple=0.5,multi_context=0.25,unanswerable=0.25") == {
        "simple": 0.5,
        "multi_context": 0.25,
        "unanswerable": 0.25,
    }
    with pytest.raises(RagtestError, match="unknown question type"):
        parse_distribution("simple=1,tricky=1")
    distribution, warnings = renormalise(
        {"simple": 0.5, "multi_context": 0.25, "reasoning": 0.25}, {"simple", "multi_context"}
    )
    assert distribution == pytest.approx({"simple": 2 / 3, "multi_context": 1 / 3})
    assert len(warnings) == 1 and "'reasoning' is not supported" in warnings[0]
    counts = allocate(50, distribution)
    assert (
        counts == {"simple": 33, "multi_context": 17}
        and sum(allocate(7, {"simple": 1, "reasoning": 1, "conditional": 1}).values()) == 7
    )


def test_offline_support_check(embedder: Embedder) -> None:
    """The generator's groundedness check is `ragtest_core.support`, the rule the local judge scores with."""
    assert is_supported("2008", [CONTEXT], embedder)
    (checked,) = support(["2010"], [CONTEXT], embedder)
    assert not checked.supported and checked.value < 0.1  # 2010 contradicts the stated 2008
    assert not is_supported("a snake found in Borneo", [CONTEXT], embedder)
    assert max(recall("released a major revision", s) for s in [CONTEXT]) == 1.0
    (paraphrase,) = support(["a big overhaul of the language"], [CONTEXT], embedder)
    assert paraphrase.semantic is not None or paraphrase.supported is False


def _facts(block: int, sentence: str, casing: Casing) -> list[Fact]:
    return [Fact(block, turned, sentence) for turned in turn_all(sentence, casing)]


def test_offline_multi_context_shapes() -> None:
    casing = Casing("PyPy Numba CPython Python")
    facts = [
        *_facts(1, "Python 2.0 was released in 2000.", casing),
        *_facts(1, "PyPy is a fast interpreter of Python.", casing),
        *_facts(1, "CPython is the reference implementation of Python.", casing),
        *_facts(2, "Python 3.0 was released in 2008.", casing),
        *_facts(2, "Numba is a JIT compiler.", casing),
        *_facts(2, "CPython was released in 1994.", casing),
    ]
    made = {c.question: c for c in combine(facts, max_words=10)}
    compared = made["Which was released first, Python 2.0 or Python 3.0?"]
    assert (compared.span, compared.blocks, compared.rule) == ("Python 2.0", (1, 2), "compare_date")
    assert compared.answer == (
        "Python 2.0 was released first: Python 2.0 was released in 2000, and Python 3.0 was released in 2008."
    )
    bridge = made["When was the reference implementation of Python released?"]
    assert (bridge.span, bridge.blocks, bridge.rule) == ("1994", (1, 2), "bridge")
    assert bridge.answer == "CPython is the reference implementation of Python. CPython was released in 1994."
    chosen = made["Which is a JIT compiler, Numba or PyPy?"]
    assert (chosen.span, chosen.blocks, chosen.rule) == ("Numba", (1, 2), "discriminate")
    assert chosen.answer == "Numba is a JIT compiler. PyPy is a fast interpreter of Python."
    assert not any(" and " in question for question in made)  # never two subjects joined: "What are PyPy and Numba?"
