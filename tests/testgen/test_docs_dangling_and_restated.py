"""The documentation writer's rules from the errors of held-out round thirteen (bump-my-version, schemathesis,
scrapy, peewee, aiohttp; read after its measurement): statements cut before the code or list their colon
introduces, answers and tasks that lean on the sentence before ("instead", "even", "If that is not ..."), reasons
and old versions given as the how-to answer, a how-to answer that says the heading's task again without its means,
subjects that open with a joining word or hold a list dash, parenthetical asides in task headings, and option items
that are classes or proper names. Each failing sentence is the real one, beside a near neighbour that must still
give its question."""

from __future__ import annotations

from pathlib import Path

from testgen.structure import ChunkLine
from testgen.writers.answers import opening_answer
from testgen.writers.clause import Casing
from testgen.writers.defaults import default_question
from testgen.writers.docs import instruction_fact, option_fact
from testgen.writers.docs_text import clean_sentence
from testgen.writers.headings import task_phrase
from testgen.writers.instructions import content_lemmas
from tests.testgen.test_docs_advice_and_examples import _questions


def test_a_statement_cut_before_what_its_colon_introduces_is_no_reference() -> None:
    assert clean_sentence("To install the Xcode command-line tools, open a terminal window and run:") is None
    assert clean_sentence("The State class allows Peewee to do things like:") is None
    assert clean_sentence("Provide the name of the module and the name of the application factory, i.e.:") is None
    pip = clean_sentence("You can install local projects by specifying the project path to pip:")
    assert pip == "You can install local projects by specifying the project path to pip."
    kept = clean_sentence("To enable it, add the extension to your configuration:")
    assert kept == "To enable it, add the extension to your configuration."


def test_tasks_and_answers_that_lean_on_the_sentence_before_give_no_how_to() -> None:
    casing = Casing("")
    active = "To use the active connection mode instead, set the `ACTIVE` setting to `True`."
    assert instruction_fact(active, casing) is None
    assert instruction_fact("You can even manage the pool size by passing a connector object.", casing) is None
    fact = instruction_fact("If you need to cancel a chord, revoke the callback task instead.", casing)
    assert fact is not None and fact.question == "How do you cancel a chord?"
    persistence = "To enable persistence support, define a job directory through the `JOBDIR` setting."
    fact = instruction_fact(persistence, casing)
    assert fact is not None and fact.question == "How do you enable persistence support?"


def _answer(heading: str, *sentences: str) -> str | None:
    task = task_phrase(heading, Casing("")) or ""
    body = [ChunkLine("prose", sentence) for sentence in sentences]
    found = opening_answer(body, True, frozenset(content_lemmas(task)), task_verb=task.split()[0] if task else "")
    return found[0] if found else None


def test_conditions_on_the_sentence_before_reasons_and_old_versions_answer_no_how_to() -> None:
    assert _answer("Copying items", "If that is not the desired behavior, use a deep copy instead.") is None
    assert (
        _answer(
            "Sending multipart requests",
            "Since multipart format is recursive and supports nesting, you can use `with` statement to design it.",
        )
        is None
    )
    old = "To write spider middlewares that work on Scrapy versions lower than 2.13, define a `process_start()` method."
    assert _answer("Writing your own spider middleware", old) is None
    copy = "To copy an item, call `copy()` on it or pass it to the `Item` constructor."
    assert _answer("Copying items", "If that is not the desired behavior, use a deep copy instead.", copy) == copy


def test_an_answer_that_says_the_task_again_without_its_means_answers_nothing() -> None:
    assert _answer("Retrieve everything", "Retrieve all information from facilities table.") is None
    assert _answer("Creating Tables", "To start using the models you must first create the tables.") is None
    assert _answer("Running spiders in Jupyter notebooks", "You can run Scrapy spiders in Jupyter notebooks.") is None
    advice = "Pass the minimal amount of data necessary to fetch or recreate any complex data within the task."
    assert _answer("Passing data to tasks", advice) == advice
    pip = "Install Flask using pip, the package installer for Python."
    assert _answer("Installing Flask", pip) == pip
    delete = "Delete a single fetched instance with `delete_instance()`."
    assert _answer("Deleting records", delete) == delete


def test_a_subject_opening_with_a_joining_word_or_a_list_dash_gives_no_question(tmp_path: Path) -> None:
    found = _questions(
        tmp_path,
        "fields.md",
        "# JSON Support\n\nPostgres offers two field types for JSON data.\n\n"
        "- BinaryJSONField - stores JSON in the efficient binary jsonb format.\n\n"
        "Otherwise aiohttp.abc.AbstractMatchInfo.http_exception is an instance of HTTPException like 404.\n\n"
        "The JSONField class stores JSON in a plain text column of the table.\n",
    )
    assert not [q for q in found if "BinaryJSONField" in q or q.startswith("What is otherwise")]
    assert any("JSONField class" in q for q in found), found
    casing = Casing("")
    because = "Because SQLite's `LIKE` operation is case-insensitive by default, peewee will use `GLOB` instead."
    assert default_question(because, "Query operators", casing, 12) is None
    plain = default_question("By default, the `ArrayField` class will use a GIN index.", "Arrays", casing, 12)
    assert plain is not None and plain[0] == "Does the `ArrayField` class use a GIN index by default?"


def test_a_parenthetical_aside_is_no_part_of_a_heading_task() -> None:
    casing = Casing("")
    assert task_phrase("Using a virtual environment (recommended)", casing) == "use a virtual environment"
    tldr = "TL;DR: We recommend installing Scrapy inside a virtual environment on all platforms."
    assert clean_sentence(tldr) is None


def test_classes_and_proper_names_in_an_item_list_are_no_options() -> None:
    heading = "Connectors: parameters of the client"
    text = "`Connection`: Encapsulates single connection in connector object."
    connection = ChunkLine("item", text, term="`Connection`")
    assert option_fact(connection, heading) is None
    text = "`gcs_store`: Google Cloud Storage for feed exports and media pipelines."
    gcs = ChunkLine("item", text, term="`gcs_store`")
    assert option_fact(gcs, heading) is None
    text = "`enable_cleanup_closed`: Enables cleanup of closed SSL transports."
    fact = option_fact(ChunkLine("item", text, term="`enable_cleanup_closed`"), heading)
    assert fact is not None and fact.question == "What does the `enable_cleanup_closed` parameter control?"
