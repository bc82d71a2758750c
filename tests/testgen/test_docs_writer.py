"""The offline writer on documentation: strategies from headings, items and instructions; never from code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragtest.cli import main
from testgen import ExtractiveWriter, chunk_documents, read_files
from testgen.structure import embedding_text
from testgen.writers.clause import Casing
from testgen.writers.docs import (
    faq_question,
    instruction_fact,
    markup_problem,
    option_reference,
    ordinary_word,
    task_phrase,
)
from testgen.writers.docs_text import split_prose
from testgen.writers.grammar import vague_answer
from testgen.writers.instructions import instructs, same_task

ARTEFACTS = re.compile(r"```|\{!|!\}|--8<--|:::|\.\. \w|:[a-z]+:`|</?[a-zA-Z][^>]*>|\|")


def test_task_headings_become_how_to_questions() -> None:
    casing = Casing("You send JSON encoded data and use Python to upload files to a server.")
    assert task_phrase("Sending JSON Encoded Data", casing) == "send JSON encoded data"
    assert task_phrase("Declare request example data", casing) == "declare request example data"
    assert task_phrase("Using a proxy", casing) == "use a proxy"
    for noun_phrase in ("Request URLs", "Resource limits", "Check Job Failed", "Routing", "Testing and Linting"):
        assert task_phrase(noun_phrase, casing) is None, noun_phrase
    # what a part-of-speech tagger tells apart: concepts, not tasks
    concepts = (
        "Template Inheritance",
        "Debug Mode",
        "Networking layer",
        "Caching Decorator",
        "Application Dispatching",
    )
    for concept in (*concepts, "See also", "Working with Blueprints", "Setting and disabling timeouts"):
        assert task_phrase(concept, casing) is None, concept
    assert task_phrase("Install Flask", Casing("Install Flask with pip.")) == "install Flask"
    assert task_phrase("Register A User", casing) == "register a user"
    assert task_phrase("Making Async requests", Casing("Most calls are async, and requests are sent.")) == (
        "make async requests"
    )
    assert task_phrase("Erase data: coverage erase", casing) == "erase data"


def test_how_to_answers_instruct() -> None:
    for instruction in (
        "Use the `json` property of the `request` object to decode the request's body as JSON.",
        "To subscribe to a signal, you can use the `connect()` method of a signal.",
        "If you're using a `Client()` instance you should pass any `verify=<...>` configuration.",
        "In this case it's best to set the default encoding explicitly on the client.",
        "If the test suite fails, you'll want to click through to the Details link.",
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
    ):
        assert not instructs(explanation), explanation
    # the instruction's own task must be the heading's
    assert (
        same_task(
            {"include", "non-file", "data", "field", "multipart", "form"}, {"send", "multipart", "file", "upload"}
        )
        is False
    )
    assert same_task({"upload", "file"}, frozenset({"send", "multipart", "file", "upload"}))
    assert same_task({"decode", "request", "body", "json"}, {"receive", "json", "view"}, strict=False)


def test_faq_options_and_prose_rules() -> None:
    casing = Casing("Errors are handled in main. Click has behaviors.")
    assert faq_question("Where are Errors Handled?", casing) == "Where are errors handled?"
    assert (
        faq_question("Why Hardcoded Behaviors?", casing) is None
        and faq_question("Why not Docopt etc.?", casing) is None
    )
    assert ordinary_word("path") and ordinary_word("domain") and not ordinary_word("samesite")
    assert not ordinary_word("DEBUG") and not ordinary_word("follow_symlink")
    assert split_prose("Notebooks are found by their `.ipynb` file extension. Next.") == [
        "Notebooks are found by their `.ipynb` file extension.",
        "Next.",
    ]
    assert vague_answer("a simple but powerful interface") and not vague_answer("the Werkzeug WSGI toolkit")
    assert embedding_text("§ Patterns > Adding a favicon\n- Put the icon\n```\ncode\n```") == (
        "Adding a favicon\nPut the icon\ncode"
    )


def test_instructions_and_options() -> None:
    casing = Casing("")
    fact = instruction_fact("To enable debug mode, use the `--debug` option.", casing)
    assert fact is not None and fact.question == "How do you enable debug mode?" and fact.strategy == "instruction"
    assert instruction_fact("To do so, pass `None` as the proxy URL.", casing) is None  # needs the context
    assert option_reference("The `DEBUG` setting", "Whether debug mode is enabled") == (
        "The `DEBUG` setting controls whether debug mode is enabled."
    )
    assert (
        option_reference("The `TESTING` setting", "Enable testing mode")
        == "The `TESTING` setting enables testing mode."
    )
    assert option_reference("The `socksio` option", "SOCKS proxy support") is None
    assert markup_problem("Use ``` fences") and markup_problem("a <b>tag</b>") and not markup_problem("Use `x`.")


def test_questions_come_from_prose_never_from_code(shared_data: Path) -> None:
    chunks = chunk_documents(read_files(shared_data / "docs" / "httpx" / "quickstart.md").documents)
    writer = ExtractiveWriter()
    writer.prepare(chunks)
    questions = [(f.question, f.reference) for c in chunks for f in writer._chunk_doc_facts(c)]
    assert len(questions) >= 5
    code = "\n".join(line for c in chunks for line in c.text.split("```")[1::2])
    for question, reference in questions:
        assert not ARTEFACTS.search(question) and not ARTEFACTS.search(reference)
        assert reference not in code
    assert ("How do you include cookies in an outgoing request?",) in {(q,) for q, _ in questions}


def _generate(source: Path, output: Path) -> list[dict[str, object]]:
    assert (
        main(["--quiet", "generate", "--source", str(source), "--size", "40", "--offline", "--output", str(output)])
        == 0
    )
    return [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["httpx", "flask"])
def test_forty_offline_questions_from_product_docs(
    corpus: str, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Done-when: 40 questions from each documentation set, a third how-to, no markup or code artefacts; a second
    generate into a new folder embeds no chunk (every vector comes from the embedding cache)."""
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path / "cache"))
    rows = _generate(shared_data / "docs" / corpus, tmp_path / "a" / "testset.jsonl")
    assert len(rows) == 40
    assert sum(1 for r in rows if str(r["question"]).startswith("How do you")) >= 40 / 3
    for row in rows:
        assert not ARTEFACTS.search(str(row["question"])) and not ARTEFACTS.search(str(row["ground_truth"]))
    manifest = json.loads((tmp_path / "a" / "testset.manifest.json").read_text(encoding="utf-8"))
    generation = manifest["stats"]["generation"]
    assert generation["accepted_by_strategy"] and sum(generation["accepted_by_strategy"].values()) == 40
    again = _generate(shared_data / "docs" / corpus, tmp_path / "b" / "testset.jsonl")
    assert [r["question"] for r in again] == [r["question"] for r in rows]
    second = json.loads((tmp_path / "b" / "testset.manifest.json").read_text(encoding="utf-8"))["stats"]
    assert second["embedding_cache"]["vectors_computed"] == 0
    assert second["embedding_cache"]["vectors_reused"] == second["chunks"]
