from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragtest_core.text import split_sentences, word_count
from testgen import ChunkingConfig, ExtractiveWriter, chunk_documents, load_files
from testgen.contexts import Context
from testgen.filters import QuestionRules, is_specific
from testgen.writers.patterns import Casing, Skip, turn_all, turn_sentence
from testgen.writers.topic import resolve, topic_of

PYTHON_FILE = "Python_(programming_language).txt"
ARTICLES = (
    "Artificial_intelligence.txt",
    "Brown_bear.txt",
    "Deep_learning.txt",
    "Java_(programming_language).txt",
    "Machine_learning.txt",
    "Polar_bear.txt",
    PYTHON_FILE,
)
#: questions the first writer emitted on these articles (issue 5): generic or broken.
BAD = {
    "What does Python use?",
    "What does Python allow?",
    "What does Python support?",
    "What do Releases receive two years of full support?",
    "What does Division between integers produce?",
}


@pytest.fixture(scope="module")
def python_text(wiki_dir: Path) -> str:
    return (wiki_dir / PYTHON_FILE).read_text(encoding="utf-8")


def _find(text: str, start: str) -> str:
    return next(s for s in split_sentences(text, "en") if s.startswith(start))


@pytest.mark.parametrize(
    ("start", "question", "answer"),
    [
        ("Python 3.0, released in 2008", "When was Python 3.0 released?", "2008"),
        ("Python 2.0 was released on 16 October 2000", "When was Python 2.0 released?", "16 October 2000"),
        ("Python is a high-level", "What is Python?", "a high-level, general-purpose programming language"),
        (
            "The name Python derives",
            "What does the name Python derive from?",
            "the British comedy series Monty Python's Flying Circus",
        ),
        ("Python uses the ** operator", "What does Python use for exponentiation?", "the ** operator"),
        ("CPython is the reference implementation", "What is the reference implementation of Python?", "CPython"),
        ("Division between integers", "What does division between integers produce?", "floating-point results"),
    ],
)
def test_real_sentences_become_wh_questions(python_text: str, start: str, question: str, answer: str) -> None:
    sentence = _find(python_text, start)
    turned = turn_sentence(sentence, Casing(python_text))
    assert (turned.question, turned.answer) == (question, answer)
    assert turned.answer in sentence


@pytest.mark.parametrize(
    ("sentence", "question", "answer"),
    [
        ("Java was designed by James Gosling at Sun Microsystems.", "Who designed Java?", "James Gosling"),
        ("The Eiffel Tower is located in Paris, France.", "Where is the Eiffel Tower located?", "Paris"),
        ("Adult polar bears have 42 teeth.", "How many teeth do adult polar bears have?", "42"),
        ("Polar bears can weigh up to 700 kg.", "How much can polar bears weigh?", "up to 700 kg"),
        ("In 1995, Sun Microsystems released Java 1.0.", "When did Sun Microsystems release Java 1.0?", "1995"),
        ("Guido van Rossum created Python in 1991.", "When did Guido van Rossum create Python?", "1991"),
        ("Brown bears live in the forests of Alaska.", "Where do brown bears live?", "the forests of Alaska"),
        ("Python 3.0 was released in 2008.", "When was Python 3.0 released?", "2008"),
    ],
)
def test_other_patterns(sentence: str, question: str, answer: str) -> None:
    casing = Casing(sentence + " the adult polar bears of Paris and Sun Java; brown bears")
    turned = turn_sentence(sentence, casing)
    assert (turned.question, turned.answer) == (question, answer)


@pytest.mark.parametrize(
    ("article", "start", "question", "answer"),
    [
        ("Brown_bear.txt", "Copulation is prolonged", "How long does copulation last?", "over 20 minutes"),
        (
            "Brown_bear.txt",
            "It is omnivorous",
            "What does the brown bear consume?",
            "a variety of plant and animal species",
        ),
        ("Brown_bear.txt", "Brown bears may also kill", "What may brown bears kill?", "Asian black bears"),
        (
            "Brown_bear.txt",
            "The brown bear is depicted",
            "Where is the brown bear depicted?",
            "the reverse of the Croatian 5-kuna coin",
        ),
        ("Brown_bear.txt", "It is thought that brown bears", "What may brown bears catch?", "canine distemper virus"),
        (
            "Brown_bear.txt",
            "The brown bear is considered",
            "What is the brown bear considered to be?",
            "one of the most popular of the world's charismatic megafauna",
        ),
        (
            "Polar_bear.txt",
            "Bears were harvested",
            "What were polar bears harvested for?",
            "the fur, meat, fat, tendons, bones and teeth",
        ),
        ("Java_(programming_language).txt", "Oracle, which bought Sun", "When did Oracle buy Sun?", "2010"),
        (
            "Java_(programming_language).txt",
            "The desktop version was renamed",
            "What was the desktop version renamed?",
            "J2SE",
        ),
        (
            "Java_(programming_language).txt",
            "In 2004, generics were added",
            "When were generics added to the Java language?",
            "2004",
        ),
        (
            "Java_(programming_language).txt",
            "Since Java 9, HotSpot uses",
            "What does HotSpot use as the default since Java 9?",
            "the Garbage First Garbage Collector",
        ),
    ],
)
def test_more_sentence_shapes_from_real_articles(
    wiki_dir: Path, article: str, start: str, question: str, answer: str
) -> None:
    """Shapes added so one article gives 20 questions: a second predicate, a modal, a reporting frame, a relative
    clause on a name, depiction/naming/"harvested for" passives, a fronted date, a comma date."""
    text = (wiki_dir / article).read_text(encoding="utf-8")
    sentence = _find(text, start)
    sentence = resolve(sentence, topic_of(article), True) or sentence  # "It is ..." after a sentence on the topic
    turned = {t.question: t.answer for t in turn_all(sentence, Casing(text))}
    assert turned.get(question) == answer, turned
    assert answer in sentence


@pytest.mark.parametrize(
    ("sentence", "question", "answer"),
    [
        (
            "Brown bears have a head-and-body length of 1.4 to 2.8 m (4 ft 7 in to 9 ft 2 in).",
            "What is the head-and-body length of brown bears?",
            "1.4 to 2.8 m",
        ),
        (
            "The brown bear is a long-lived animal, with an average lifespan of 25 years in the wild.",
            "What is the average lifespan of the brown bear?",
            "25 years",
        ),
        ("Polar bears can run at estimated speeds of up to 40 km/h.", "How fast can polar bears run?", "up to 40 km/h"),
        ("On April 2, 2010, Oracle bought the Sun company.", "When did Oracle buy the Sun company?", "April 2, 2010"),
    ],
)
def test_attributes_speeds_and_comma_dates(sentence: str, question: str, answer: str) -> None:
    casing = Casing(sentence + " the brown bears of Oracle and Sun; polar bears")
    turned = {t.question: t.answer for t in turn_all(sentence, casing)}
    assert turned.get(question) == answer, turned


@pytest.mark.parametrize(
    "sentence",
    [
        # the second verb belongs to the inner clause, not to Boychenko
        "Boychenko announced the city was suffering from a water outage and had experienced massive casualties.",
        "Polar bears will also scavenge at garbage dumps during ice-free periods.",  # no object to ask for
        "Convolutional neural networks were superseded for ASR by LSTM.",  # "for" = "in the field of"
        # the with-phrase belongs to the increase, not to OpenAI
        "OpenAI found a 300,000-fold increase in the amount of compute required, with a doubling-time trendline of"
        " 3.4 months.",
        "Two techniques were developed in 2015.",  # which two?
    ],
)
def test_shapes_that_would_mislead_are_not_asked(sentence: str) -> None:
    try:
        turned = turn_all(sentence, Casing(sentence + " OpenAI Boychenko ASR LSTM"))
    except Skip:
        return
    questions = [t.question for t in turned]
    assert not any(
        q.startswith(("Who announced", "What will polar bears scavenge", "What were convolutional"))
        or "trendline" in q
        or "two techniques" in q
        for q in questions
    ), questions


@pytest.mark.parametrize(
    "sentence",
    [
        # documentation (pillow, scrapy): a past participle after the subject read as its verb gave "What did the raw
        # decoder use?", "What did the Access Control List use?", "What did Python bindings implement?"
        "The raw decoder used here supports uncompressed data, in a variety of pixel formats.",
        "The Access Control List used when storing items to Google Cloud Storage.",
        "Python bindings implemented using pybind11.",
    ],
)
def test_a_participle_is_no_past_tense_to_ask_about(sentence: str) -> None:
    try:
        questions = [t.question for t in turn_all(sentence)]
    except Skip:
        return
    assert not any(q.startswith("What did") for q in questions), questions


def test_an_abstract_noun_opening_a_sentence_is_no_name() -> None:
    """twisted and networkx (round 18): "Privacy is important to us ..." gave "What is Privacy important to?", whose
    capital made the subject look like a name; read as the ordinary word, documentation's anchoring rejects it."""
    sentence = "Privacy is important to us, and this ID is never used by Twisted Matrix Labs software for tracking."
    assert [t.question for t in turn_all(sentence)] == ["What is privacy important to?"]
    assert turn_all("Transparency is essential to allow for greater understanding.")[0].question.startswith(
        "What is transparency"
    )


def test_passive_by_and_active_creator_ask_who() -> None:
    questions = {t.question: t.answer for t in turn_all("Guido van Rossum created Python in 1991.")}
    assert questions["Who created Python?"] == "Guido van Rossum"


@pytest.mark.parametrize(
    ("sentence", "reason"),
    [
        ("It is widely taught as an introductory programming language.", "pronoun_or_vague_subject"),
        ("This was released in 2008.", "pronoun_or_vague_subject"),
        ("Is Python a language?", "question"),
        ("History", "fragment"),
    ],
)
def test_unclean_sentences_are_skipped(sentence: str, reason: str) -> None:
    with pytest.raises(Skip) as info:
        turn_sentence(sentence)
    assert info.value.reason == reason


def test_light_verbs_need_a_complement() -> None:
    with pytest.raises(Skip):  # "What does Python support?" would be too generic to answer
        turn_all("Python supports optional type annotations.")
    [turned] = turn_all("Java uses an automatic garbage collector to manage memory.")
    assert (turned.question, turned.answer) == (
        "What does Java use to manage memory?",
        "an automatic garbage collector",
    )


@pytest.mark.parametrize("article", ARTICLES)
def test_whole_articles_give_clean_specific_questions(wiki_dir: Path, article: str) -> None:
    text = (wiki_dir / article).read_text(encoding="utf-8")
    casing = Casing(text)
    rules = QuestionRules()
    sentences = split_sentences(text, "en")
    turned_sentences = 0
    for sentence in sentences:
        try:
            turned = turn_all(sentence, casing)
        except Skip:
            continue
        turned_sentences += 1
        for result in turned:
            assert result.question not in BAD
            assert result.question.split()[0] in {"What", "When", "Who", "Where", "How", "Which"}
            assert result.answer in sentence and word_count(result.question) <= 10
            assert is_specific(result.question), result.question
            reason = rules.reason(result.question, result.answer, language="en", contexts=[sentence])
            assert reason in (None, "copies_context"), result.question  # copying is judged on the whole context
    assert turned_sentences / len(sentences) >= 0.04  # the first writer: 1.4% (Brown bear), 2.0% (Polar bear)


def test_writer_is_deterministic_and_cites_the_sentence_block(wiki_dir: Path) -> None:
    chunks = chunk_documents(load_files(wiki_dir / PYTHON_FILE), ChunkingConfig())
    context = Context(root=chunks[1], neighbours=(chunks[0], chunks[40]))
    writer = ExtractiveWriter(seed=3)
    writer.prepare(chunks)
    first = asyncio.run(writer.write(context, 3))
    again = asyncio.run(ExtractiveWriter(seed=3).write(context, 3))
    assert first == again and first
    assert first[0].question == "When was Python 3.0 released?"
    for draft in first:
        block = context.block(draft.blocks[0])
        assert block is not None and draft.answer in block.text and draft.question_type == "simple"


def test_unsupported_types_are_declined_and_counted(wiki_dir: Path) -> None:
    chunks = chunk_documents(load_files(wiki_dir / PYTHON_FILE))
    writer = ExtractiveWriter()
    assert writer.supported_types == {"simple", "multi_context"}
    assert asyncio.run(writer.write(Context(root=chunks[1]), 2, "reasoning")) == []
    assert writer.stats["unsupported_type_reasoning"] == 1
    assert "need an LLM" in writer.unsupported_reason
