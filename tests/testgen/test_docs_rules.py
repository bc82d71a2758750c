"""The documentation strategy's yes/no rules, each failing sentence the real one from a held-out round beside a near
neighbour that must still pass: what instructs, which heading names a thing, which subject names something on its
own, which sections are release notes, which answers are thin, which names are ordinary words. The questions and
answers the strategy writes are pinned in tests/testgen/golden/docs.json."""

from __future__ import annotations

from testgen.structure import ChunkLine
from testgen.writers.docs.descriptions import ordinary_word
from testgen.writers.docs.facts import named_as_thing
from testgen.writers.docs.instructions import instructs, same_task
from testgen.writers.docs.specific import (
    anchored,
    ranking,
    relative_subject,
    release_notes,
    task_needs_context,
    thin_answer,
)
from testgen.writers.docs.text import markup_problem, split_prose
from testgen.writers.english.grammar import vague_answer
from testgen.writers.english.morphology import gerund_base


def test_how_to_answers_instruct() -> None:
    for instruction in (
        "Use the `json` property of the `request` object to decode the request's body as JSON.",
        "To subscribe to a signal, you can use the `connect()` method of a signal.",
        "If you're using a `Client()` instance you should pass any `verify=<...>` configuration.",
        "In this case it's best to set the default encoding explicitly on the client.",
        "If the test suite fails, you'll want to click through to the Details link.",
        "You just need to import the `Docstring` class.",
        "To expose lazy module members during inspection, define `__dir__` to include their names.",
        "To use urllib3 in Node.js, you need to use Node.js version 20 or newer.",
    ):
        assert instructs(instruction), instruction
    for explanation in (
        "If you're issuing highly concurrent requests you might want to consider trying out our HTTP/2 support.",
        "You can use the following command to output a random secret key.",
        "You may choose to use gevent with your application.",
        "You can have instances of the application with different settings to test every case.",
        "The idea is that you might have a bunch of resources with common parts in the URL.",
        "If you need to customize request instantiation, see Request instances.",
        "Form encoded data can also include multiple values from a given key.",
        "By enabling debug mode, the server will automatically reload if code changes.",
        "You can copy and paste this in order to provide information when asking a question.",
        # rounds 6 to 11: pleasantries, negatives, "still", needs, cautions, what one controls, pointers, hedges
        "Feel free to store different values to help you filter objects according to your needs.",
        "You don't have to load anything through the Griffe loader.",
        "You do not need to restart the server.",
        "If you want to specify the type without a name, you still have to wrap the type in parens.",
        "Occasionally you may need to call synchronous code in the event loop thread.",
        "Make sure only the emoji tests get updated.",
        "You control the object's constructor, its lifecycle, and everything else about it.",
        "To instantiate a `python3.9` subprocess and send tests to it, you may type.",
        "Suppose you have a package `mypkg` which contains some tests.",
        # issue 19: what points back or says what not to do; a description of what a tool does
        "To push a branch, run this command.",
        "Avoid using noqa comments to suppress linter warnings.",
        "You can catch it like a normal KeyError.",
        "Most Hatch environment types simply use pip to install dependencies.",
    ):
        assert not instructs(explanation), explanation


def test_an_instructions_own_task_must_be_the_headings() -> None:
    include = {"include", "non-file", "data", "field", "multipart", "form"}
    assert not same_task(include, {"send", "multipart", "file", "upload"})
    assert same_task({"upload", "file"}, frozenset({"send", "multipart", "file", "upload"}))
    assert same_task({"decode", "request", "body", "json"}, {"receive", "json", "view"}, strict=False)


def test_a_heading_the_section_uses_as_a_noun_phrase_names_a_thing() -> None:
    body = [ChunkLine("prose", "Use `make check-api` to check if there are any breaking changes.")]
    assert named_as_thing("Breaking changes and deprecations", body)
    assert named_as_thing("Build Constraints", [ChunkLine("prose", "Use build constraints to constrain them.")])
    sending = [ChunkLine("prose", "When sending JSON data, pass the `json` argument.")]
    assert not named_as_thing("Sending JSON data", sending)
    assert not named_as_thing("Install Flask", [ChunkLine("prose", "Use pip to install Flask.")])


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
    assert vague_answer("a simple but powerful interface") and not vague_answer("the Werkzeug WSGI toolkit")
    for task in ("specify a different encoding", "disable the cache with --no-cache", "use a custom tests"):
        assert task_needs_context(task), task
    assert not task_needs_context("add a few tests") and not task_needs_context("invoke other commands")


def test_names_words_markup_and_prose() -> None:
    assert ordinary_word("path") and ordinary_word("domain") and not ordinary_word("samesite")
    assert not ordinary_word("DEBUG") and not ordinary_word("follow_symlink")
    assert markup_problem("Use ``` fences") and markup_problem("a <b>tag</b>") and not markup_problem("Use `x`.")
    assert split_prose("Notebooks are found by their `.ipynb` file extension. Next.") == [
        "Notebooks are found by their `.ipynb` file extension.",
        "Next.",
    ]


def test_gerunds_keep_their_verb() -> None:
    """Rounds 10 and 15 (pyramid): "routing" is "route", "putting" "put", "installing" "install"."""
    assert (gerund_base("putting"), gerund_base("routing"), gerund_base("hopping")) == ("put", "route", "hop")
    assert gerund_base("Putting") == "put" and gerund_base("Travelling") == "travel"
