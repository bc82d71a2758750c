"""The documentation writer's rules from the errors of held-out round sixteen (celery, pytest, sphinx,
sqlalchemy-utils, typeguard; read after its measurement): sentence ends read as sentences, "E.g." as a subject,
"Who" for a version of a product, a later step ("You can then ...") as a how-to answer, and (round seventeen,
sqlalchemy) functions listed among parameters. Each failing sentence is
the real one, beside a near neighbour that must still give its question."""

from __future__ import annotations

from pathlib import Path

from testgen.structure import ChunkLine
from testgen.writers.clause import Casing, Skip
from testgen.writers.docs import option_fact
from testgen.writers.docs_text import clean_sentence
from testgen.writers.patterns import turn_all
from tests.testgen.test_docs_advice_and_examples import _questions
from tests.testgen.test_docs_dangling_and_restated import _answer


def test_the_end_of_a_sentence_is_no_reference() -> None:
    fragment = "you can force the running and reporting of an `xfail` marked test as if it weren't marked at all."
    assert clean_sentence(fragment) is None
    product = "pytest is a mature full-featured Python testing tool that helps you write better programs."
    assert clean_sentence(product) == product


def test_an_abbreviation_opening_a_sentence_is_no_subject(tmp_path: Path) -> None:
    page = (
        "# Updating code\n\n"
        "E.g. skipif marks mean you just want to evaluate all of them, order doesn't even matter.\n\n"
        "Parametrize markers mean you want to run the test once for each set of arguments.\n"
    )
    found = _questions(tmp_path, "markers.md", page)
    assert not [q for q in found if "E.g." in q], found


def _who(sentence: str) -> list[str]:
    try:
        turned = turn_all(sentence, Casing(""))
    except Skip:
        return []
    return [t.question for t in turned if t.question.startswith("Who")]


def test_a_product_version_introduces_things_but_is_no_person() -> None:
    assert _who("Python 3.3 introduced PEP 420 implicit namespaces that allow module path structures.") == []
    assert _who("Guido van Rossum created the Python programming language in the Netherlands.")


def test_a_later_step_is_no_how_to_answer() -> None:
    heading = "Integrating Sphinx documents into your web-app"
    later = "You can then call its `get_document()` method to access individual documents."
    assert _answer(heading, later) is None
    first = "To integrate the documents, create a `WebSupport` object for your builded documentation."
    assert _answer(heading, later, first) == first


def test_an_item_described_as_a_function_is_no_option() -> None:
    heading = "Selected known functions: parameters of the call"
    function = ChunkLine("item", "`current_date`: The CURRENT_DATE() SQL function.", term="`current_date`")
    assert option_fact(function, heading) is None
    setting = ChunkLine("item", "`pool_size`: The number of connections to keep open.", term="`pool_size`")
    fact = option_fact(setting, heading)
    assert fact is not None and fact.question == "What does the `pool_size` parameter control?"
    valued = ChunkLine("item", "`slugify`: A function to generate slugs from tab titles.", term="`slugify`")
    assert option_fact(valued, "Options: the extension's options") is not None  # its value is a function
