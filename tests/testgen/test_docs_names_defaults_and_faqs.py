"""The documentation writer's rules from the errors of held-out round fourteen (copier, beartype, tornado, kombu,
mako; read after its measurement): descriptions with no subject read as one, "allow to" questions, counts of
places as answers, example names of one letter, defaults that lose their object or have an
indefinite subject, option descriptions that address the reader, FAQ answers that never name what is asked,
and (round fifteen, pyramid) "instal" for "Installing".
Each failing sentence is the real one, beside a near neighbour that must still give its question."""

from __future__ import annotations

from pathlib import Path

from testgen.structure import ChunkLine
from testgen.writers.clause import Casing
from testgen.writers.defaults import default_question
from testgen.writers.docs import option_fact
from testgen.writers.grammar import grammar_problem
from testgen.writers.headings import task_phrase
from testgen.writers.morphology import gerund_base
from tests.testgen.test_docs_advice_and_examples import _questions

#: (page heading, sentence, a word of the bad question it gave) from round fourteen's corpora.
_BAD_PAGES = (
    ("`jinja_extensions`", "Including an extension allows Copier to execute uncontrolled code.", "allow to"),
    ("Handling Exceptions", "Template exceptions can occur in two distinct places.", "occur"),
    (
        "Inheritance",
        "Template B, the inherited template, then makes decisions as to what resources from A shall be executed.",
        "Template B",
    ),
    (
        "Static files and aggressive file caching",
        "The v argument is a hash of the content in logo.png, and its presence makes the server send cache headers.",
        "v argument",
    ),
)


def test_descriptions_allow_to_counts_and_one_letter_names_give_no_sentence_question(tmp_path: Path) -> None:
    for number, (heading, sentence, word) in enumerate(_BAD_PAGES):
        found = _questions(tmp_path, f"page{number}.md", f"# {heading}\n\n{sentence}\n")
        assert not [q for q in found if word.lower() in q.lower()], found
    described = "Specifies the minimum required version of Copier to generate a project from this template."
    question = "What did Specifies the minimum require to generate a project?"
    assert grammar_problem(question, described, "Specifies the minimum") == "subject_start"
    builtin = "What does the builtin variable include?"
    assert grammar_problem(builtin, "The builtin variable includes all data needed.", "the builtin variable") is None
    cookies = "Signed cookies contain the encoded value of the cookie in addition to a timestamp and an HMAC signature."
    found = _questions(tmp_path, "cookies.md", f"# Cookies and signed cookies\n\n{cookies}\n")
    assert "What do signed cookies contain?" in found, found


def test_defaults_that_lose_their_object_or_name_no_particular_thing_give_no_question() -> None:
    casing = Casing("")
    lost = "Copier will copy by default `v1.0.0` unless you add `--prereleases`."
    assert default_question(lost, "use_prereleases", casing, 12) is None
    assert default_question("A suffix is required by default.", "Comparisons", casing, 12) is None
    noted = "Scrapy enables the telnet console by default (TELNETCONSOLE_ENABLED)."
    found = default_question(noted, "Telnet Console", casing, 12)
    assert found is not None and found[0] == "Does Scrapy enable the telnet console by default?"
    kept = default_question("RedirectHandler uses permanent redirects by default.", "Redirection", casing, 12)
    assert kept is not None and kept[0] == "Does RedirectHandler use permanent redirects by default?"


def test_an_option_described_by_an_example_for_the_reader_gives_no_question() -> None:
    heading = "Available settings: the template settings"
    example = "`use_prereleases`: Imagine that the template supports updates and contains these 2 Git tags."
    assert option_fact(ChunkLine("item", example, term="`use_prereleases`"), heading) is None
    text = "`min_copier_version`: Specifies the minimum required version of Copier to generate a project."
    fact = option_fact(ChunkLine("item", text, term="`min_copier_version`"), heading)
    assert fact is not None and fact.question == "What does the `min_copier_version` setting control?"


def test_a_faq_what_is_answered_without_naming_the_thing_gives_no_question(tmp_path: Path) -> None:
    story = "In times long ago people didn't have email. They had the postal service, which delivered letters."
    found = _questions(tmp_path, "story.md", f"# Introduction\n\n## What is messaging?\n\n{story}\n")
    assert "What is messaging?" not in found, found
    defined = "Messaging is the exchange of messages between applications through a broker."
    found = _questions(tmp_path, "defined.md", f"# Introduction\n\n## What is messaging?\n\n{defined}\n")
    assert found.get("What is messaging?") == defined, found


def test_an_ll_gerund_keeps_its_double_l() -> None:
    assert task_phrase("Installing the project in development mode", Casing("")) == (
        "install the project in development mode"
    )
    assert gerund_base("Putting") == "put" and gerund_base("Travelling") == "travel"
