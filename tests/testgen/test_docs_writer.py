"""The offline writer on documentation: strategies from headings, items and instructions, never from code; what the
loaders keep of the markup the strategies read (links, roles, glossaries); one question per reference."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from ragtest.cli import main
from ragtest_core.embeddings import Embedder
from testgen import ExtractiveWriter, chunk_documents
from testgen.chunking import Chunk
from testgen.contexts import Context
from testgen.critic import OfflineCritic
from testgen.files import read_files
from testgen.filters import QuestionRules
from testgen.screening import Candidate, Screen
from testgen.structure import embedding_text, table_row_text
from testgen.writers.base import Draft
from testgen.writers.docs.facts import doc_facts
from testgen.writers.english.clause import Casing
from tests.testgen.whole_corpus import prepare

ARTEFACTS = re.compile(r"```|\{!|!\}|--8<--|:::|\.\. \w|:[a-z]+:`|</?[a-zA-Z][^>]*>|\|")


def test_chunk_text_for_embedding_and_table_rows() -> None:
    assert embedding_text("§ Patterns > Adding a favicon\n- Put the icon\n```\ncode\n```") == (
        "Adding a favicon\nPut the icon\ncode"
    )
    assert table_row_text(["Default", "Description"], ["false", "Whether to build."]) == (
        "Whether to build. Default: false"
    )


def test_autorefs_links_and_sphinx_roles_keep_their_words(tmp_path: Path) -> None:
    """mkdocs-autorefs links (griffe) and reST roles (flask-sqlalchemy, round 10) read as the words they show."""
    page = tmp_path / "navigating.md"
    page.write_text(
        "# Navigating APIs\n\nTo modernize an expression, simply call its [`modernize()`][griffe.Expr.modernize] "
        "method.\n\nSee [the guide][guide] for [more][].\n\n[guide]: https://example.org/guide\n",
        encoding="utf-8",
    )
    [document] = read_files(page).documents
    assert "[" not in document.page_content.replace("[more][]", "") and "the guide" in document.page_content
    assert "call its `modernize()` method" in document.page_content
    (tmp_path / "api.rst").write_text(
        "API\n===\n\nThe :class:`.Pagination` object's :attr:`.Pagination.items` attribute is the list of items for "
        "the current page. Create a :file:`.venv` folder.\n",
        encoding="utf-8",
    )
    [document] = read_files(tmp_path / "api.rst").documents
    assert "The `Pagination` object's `Pagination.items` attribute" in document.page_content
    assert "`.venv`" in document.page_content


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
    chunks = chunk_documents(read_files(page).documents)
    questions = [f.question for c in chunks for f in doc_facts(c.text, Casing(""), 10, opening=True)]
    assert not [q for q in questions if "ctrace" in q or "pytrace" in q or "get_value" in q], questions
    assert any("`get_value()`" in c.text for c in chunks)


def test_myst_glossaries_become_items(tmp_path: Path) -> None:
    page = tmp_path / "glossary.md"
    page.write_text(
        "# Glossary\n\n```{glossary}\nNative Loggers\n    Loggers created using {func}`make_logger`.\n\n"
        "Bound Logger\n    A wrapper around a logger.\n```\n",
        encoding="utf-8",
    )
    [chunk] = chunk_documents(read_files(page).documents)
    assert "- Native Loggers: Loggers created using `make_logger()`." in chunk.text
    assert "- Bound Logger: A wrapper around a logger." in chunk.text


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
    passed, _ = asyncio.run(screen.check([Candidate(Context(root), d) for d in drafts], [], {"simple": 2}))
    assert [c.draft.question for c in passed] == ["How do you add extensions?"]
    assert screen.rejections["duplicate_reference"] == 1


def test_questions_come_from_prose_never_from_code(test_data: Path) -> None:
    chunks = chunk_documents(read_files(test_data / "docs" / "httpx" / "quickstart.md").documents)
    writer = ExtractiveWriter()
    prepare(writer, chunks)
    questions = [(f.question, f.reference) for c in chunks for f in writer.documentation_facts(c)]
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
    corpus: str, test_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Done-when: 40 questions from each documentation set, a third how-to, no markup or code artefacts; a second
    generate into a new folder embeds no chunk (every vector comes from the embedding cache)."""
    monkeypatch.setenv("RAGTEST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(test_data)  # a relative source: chunk ids (and so the questions) do not depend on the checkout
    rows = _generate(Path("docs") / corpus, tmp_path / "a" / "testset.jsonl")
    assert len(rows) == 40
    assert sum(1 for r in rows if str(r["question"]).startswith("How do you")) >= 40 / 3
    for row in rows:
        assert not ARTEFACTS.search(str(row["question"])) and not ARTEFACTS.search(str(row["ground_truth"]))
    manifest = json.loads((tmp_path / "a" / "testset.manifest.json").read_text(encoding="utf-8"))
    generation = manifest["stats"]["generation"]
    assert generation["accepted_by_strategy"] and sum(generation["accepted_by_strategy"].values()) == 40
    again = _generate(Path("docs") / corpus, tmp_path / "b" / "testset.jsonl")
    assert [r["question"] for r in again] == [r["question"] for r in rows]
    second = json.loads((tmp_path / "b" / "testset.manifest.json").read_text(encoding="utf-8"))["stats"]
    assert second["embedding_cache"]["vectors_computed"] == 0
    assert second["embedding_cache"]["vectors_reused"] == second["chunks"]
