"""The documentation writer's rules for questions that make sense alone (issue 19, third round): anchored subjects,
release notes, thin answers, defaults, tasks that need their context, options heading their own section, one
question per reference."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ragtest_core.embeddings import Embedder
from testgen import read_files
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.critic import OfflineCritic
from testgen.filters import QuestionRules
from testgen.screening import Candidate, Screen
from testgen.structure import ChunkLine, table_row_text
from testgen.writers.base import Draft
from testgen.writers.clause import Casing
from testgen.writers.defaults import default_question
from testgen.writers.docs import code_heading_fact, doc_facts, instruction_fact, name_heading_fact, named_as_thing
from testgen.writers.grammar import grammar_problem
from testgen.writers.headings import task_phrase
from testgen.writers.instructions import instructs
from testgen.writers.options import option_fact
from testgen.writers.specific import (
    anchored,
    ranking,
    relative_subject,
    release_notes,
    task_needs_context,
    thin_answer,
)


def test_a_subject_must_name_something_on_its_own() -> None:
    never = lambda _word: False  # noqa: E731
    assert anchored("the echo function", "The echo function also supports color.", "Echoing")
    assert anchored("the expose_value parameter", "The `expose_value` parameter prevents ...", "Callbacks")
    assert anchored("block assignment", "Block assignment supports filters.", "Block Assignments")
    assert anchored("Watchdog", "Watchdog provides a reloader.", "Optional dependencies", named=never)
    for subject, heading in (
        ("the base class", "Adding Support for a Shell"),
        ("the response body", "Protocol"),
        ("the most basic option", "Basic Arguments"),
        ("Static analysis of the source", "How it works"),
        ("Modifications", "Mutability and Reusability of Wrappers"),
    ):
        assert not anchored(subject, f"{subject} is here.", heading, named=never), subject
    # the product's own name is on most pages: it anchors nothing ("What does Black prefer?")
    assert not anchored("Black", "Black prefers double quotes.", "Strings", common=lambda word: word == "Black")
    assert ranking("the simplest reporting") and not ranking("the request")
    assert relative_subject("the other half of WSGI") and not relative_subject("the Flask class")


def test_release_and_upgrade_notes_give_no_questions() -> None:
    for path in (
        "Release notes > 0.21.0 (September 26, 2022)",
        "Version 5.2.1 — 2020-07-23",
        "Upgrading To Newer Releases > Upgrading to 3.2",
        "Changelog > Unreleased",
        "Hatch history > 1.2.0",
    ):
        assert release_notes(path), path
    for path in ("HTTP/2 > Enabling HTTP/2", "Using SQLite 3 with Flask", "Release process > Supported Versions"):
        assert not release_notes(path), path


def test_thin_answers_and_tasks_that_need_their_context() -> None:
    for span in ("support for functionality", "people", "ways to parse expressions", "hidden prompts and asking"):
        assert thin_answer(span), span
    assert thin_answer("access to various low-level information")
    for span in ("filesystem events", "a base class that you can use", "`limits` keyword argument"):
        assert not thin_answer(span), span
    for task in ("specify a different encoding", "disable the cache with --no-cache", "use a custom tests"):
        assert task_needs_context(task), task
    assert not task_needs_context("add a few tests") and not task_needs_context("invoke other commands")
    assert grammar_problem("What create instances of X?", "Instances of X are created by Y.") == "agreement"
    assert grammar_problem("What type of bear is it?", "It is a type of bear.") != "agreement"


def test_how_to_answers_that_point_back_or_say_what_not_to_do() -> None:
    casing = Casing("")
    assert not instructs("To push a branch, run this command.")
    assert not instructs("Avoid using noqa comments to suppress linter warnings.")
    assert not instructs("You can catch it like a normal KeyError.")
    assert (
        instruction_fact("By default the `HTTPException` class is used to manage handled exceptions.", casing) is None
    )
    assert instruction_fact("Use build constraints to constrain build dependencies.", casing) is None
    fact = instruction_fact(
        "The `history` property of the response can be used to inspect any followed redirects.", casing
    )
    assert fact is not None and fact.question == "How do you inspect any followed redirects?"
    assert task_phrase("How to configure the project", casing) == "configure the project"
    assert named_as_thing("Build Constraints", [ChunkLine("prose", "Use build constraints to constrain them.")])
    assert not named_as_thing("Install Flask", [ChunkLine("prose", "Use pip to install Flask.")])


def test_yes_no_questions_about_defaults() -> None:
    casing = Casing("We use HTTPX and httpx every day.")
    found = default_question("Unlike `requests`, HTTPX does not follow redirects by default.", "Redirects", casing, 10)
    assert found is not None and found[0] == "Does HTTPX follow redirects by default?"
    found = default_question("By default, the GET method is used.", "Routing", casing, 10)
    assert found is not None and found[0] == "Is the GET method used by default?"
    found = default_question("By default 403 responses will be returned when denied.", "Permissions", casing, 10)
    assert found is not None and found[0] == "Are 403 responses returned by default?"
    for sentence in (
        "It is possible that a future version may enable HTTP/2 support by default.",  # a pronoun, a hedge
        "The prefix is `FLASK_` by default.",  # asks what, not whether
        "By default 200 is assumed.",  # 200 what?
    ):
        assert default_question(sentence, "Heading", casing, 10) is None, sentence


def test_options_and_names_that_head_their_own_section() -> None:
    body = [
        ChunkLine("prose", "Valid values: a comma-separated list of hostnames"),
        ChunkLine("prose", "`NO_PROXY` disables the proxy for specific urls"),
    ]
    fact = code_heading_fact("`NO_PROXY`", body, "Environment Variables > `NO_PROXY`")
    assert fact is not None and fact.question == "What does the `NO_PROXY` environment variable control?"
    # gunicorn's settings reference (MIT): a setting named by an ordinary word heads its own section under
    # "Settings", after its command-line and default labels
    reload = [
        ChunkLine("prose", "Command line: `--reload`"),
        ChunkLine("prose", "Default: `False`"),
        ChunkLine("prose", "Restart workers when code changes."),
    ]
    fact = code_heading_fact("`reload`", reload, "Settings > Debugging > `reload`")
    assert fact is not None and fact.question == "What does the `reload` setting control?"
    assert fact.reference == "The `reload` setting restarts workers when code changes."
    listed = option_fact(ChunkLine("item", "`reload` Restart workers when code changes.", "`reload`"), "Settings")
    assert listed is None  # one item of a list: `reload` may name many things in the docs
    hishel = name_heading_fact("Hishel", [ChunkLine("prose", "An elegant HTTP Cache implementation for HTTPX.")])
    assert hishel is not None and hishel.question == "What is Hishel?"
    assert name_heading_fact("Plugins", [ChunkLine("prose", "A list of plugins for HTTPX users.")]) is None
    restated = [ChunkLine("prose", "A rate limit middleware for Starlette applications.")]
    assert name_heading_fact("RateLimitMiddleware", restated) is None
    assert table_row_text(["Default", "Description"], ["false", "Whether to build."]) == (
        "Whether to build. Default: false"
    )


def test_values_of_one_option_and_methods_are_no_options(tmp_path: Path) -> None:
    page = tmp_path / "config.rst"
    page.write_text(
        "Configuration reference\n=======================\n\n[run] core\n----------\n\n"
        "Specify which measurement core to use. Valid values are:\n\n"
        "- ``ctrace``: the C implementation of a sys.settrace function.\n\n"
        "- ``pytrace``: the pure Python implementation of a sys.settrace function.\n\n"
        "Configuration class\n-------------------\n\n"
        ".. py:method:: get_value(key)\n\n    Provides the value of the given key from the loaded configuration.\n",
        encoding="utf-8",
    )
    from testgen import chunk_documents

    chunks = chunk_documents(read_files(page).documents)
    questions = [f.question for c in chunks for f in doc_facts(c.text, Casing(""), 10, opening=True)]
    assert not [q for q in questions if "ctrace" in q or "pytrace" in q or "get_value" in q], questions
    assert any("`get_value()`" in c.text for c in chunks)


def test_one_question_per_documentation_reference(embedder: Embedder) -> None:
    reference = "To add extensions after creation time, use the `add_extension()` method."
    root = Chunk(
        chunk_id="c1",
        text=f"§ Extensions > Adding Extensions\n{reference}",
        doc_id="d",
        source="extensions.rst",
        position=0,
        heading_path="Extensions > Adding Extensions",
        section_part=0,
    )
    context = Context(root)
    drafts = [
        Draft("How do you add extensions?", reference, (1,), "simple", answer_span=reference, strategy="howto"),
        Draft(
            "How do you add extensions after creation time?",
            reference,
            (1,),
            "simple",
            answer_span=reference,
            strategy="instruction",
        ),
    ]
    screen = Screen(QuestionRules(), embedder, OfflineCritic(embedder))
    accepted = asyncio.run(screen.screen([Candidate(context, d) for d in drafts], {"simple": 2}))
    assert [c.draft.question for c in accepted] == ["How do you add extensions?"]
    assert screen.rejections["duplicate_reference"] == 1


def test_myst_glossaries_and_participle_headings(tmp_path: Path) -> None:
    page = tmp_path / "glossary.md"
    page.write_text(
        "# Glossary\n\n```{glossary}\nNative Loggers\n    Loggers created using {func}`make_logger`.\n\n"
        "Bound Logger\n    A wrapper around a logger.\n```\n",
        encoding="utf-8",
    )
    from testgen import chunk_documents

    [chunk] = chunk_documents(read_files(page).documents)
    assert "- Native Loggers: Loggers created using `make_logger()`." in chunk.text
    assert "- Bound Logger: A wrapper around a logger." in chunk.text
    casing = Casing("")
    assert task_phrase("Missing imports", casing) is None and task_phrase("Existing projects", casing) is None
    assert task_phrase("Passing Parameters in URLs", Casing("Use URLs.")) == "pass parameters in URLs"
    assert not instructs("Most Hatch environment types simply use pip to install dependencies.")
