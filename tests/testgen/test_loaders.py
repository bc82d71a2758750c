"""Loaders that read structure: Markdown (MkDocs extensions), reStructuredText (Sphinx directives and roles),
notebooks, HTML; every file loaded or named; section-bounded chunks with heading paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testgen import chunk_documents
from testgen.files import read_files
from testgen.structure import parse_chunk, sections_of
from tests.testgen.test_files_and_chunking import make_pdf

MARKDOWN = """---
title: Guide
---

Intro text before any heading is about HTTPX clients.

## Making requests

!!! note "TL;DR"
    Use a `Client` for anything more than a script.

*[API]: Application Programming Interface

--8<-- "snippets/warning.md"

{! includes/footer.md !}

::: httpx.Client
    :docstring:

=== "Sync"

    Call `client.get()` to send a GET request.

=== "Async"

    Await `client.get()` inside an async function.

```python
client.get("https://example.com")
```

| Parameter | Meaning |
|-----------|---------|
| `timeout` | Seconds to wait for the server. |

`verify`
:   Whether to check the server's certificate.

Some <em>inline</em> HTML and a [link](https://example.com).

### Timeouts

* `timeout` - The timeout configuration to use when sending requests.
"""

RST = """Quickstart
==========

Follow :doc:`installation` first and read :ref:`the API docs <api>`.

.. code-block:: python

    app = Flask(__name__)

Routing
-------

Use the :meth:`~flask.Flask.route` decorator to bind a function to a URL.

.. versionadded:: 2.2
    Routes may be registered lazily.

.. autoclass:: flask.Flask
    :members:

.. py:data:: SECRET_KEY

    A secret key used for signing the session cookie.

.. mystery-directive:: anything
    :unknown-option: yes

    Text inside a directive docutils has never heard of.
"""


def _texts(sections: list) -> str:
    return "\n".join(block.text for section in sections for block in section.blocks)


def test_markdown_sections_keep_prose_and_code_and_drop_markup(tmp_path: Path) -> None:
    (tmp_path / "guide.md").write_text(MARKDOWN, encoding="utf-8")
    loaded = read_files(tmp_path)
    [document] = loaded.documents
    sections = sections_of(document.metadata)
    assert [s.heading_path for s in sections] == [
        "Guide",
        "Guide > Making requests",
        "Guide > Making requests > Timeouts",
    ]
    text = _texts(sections)
    for kept in ("Use a `Client` for anything", "Call `client.get()` to send", "Await `client.get()`", "Some inline"):
        assert kept in text
    for dropped in ("--8<--", "{!", "!}", ":::", "*[API]", "TL;DR", "===", "<em>", "](", "|", "Sync"):
        assert dropped not in text, dropped
    kinds = {(b.kind, b.term) for s in sections for b in s.blocks if b.kind != "prose"}
    assert ("item", "`timeout`") in kinds and ("item", "`verify`") in kinds
    assert any(b.kind == "code" and "client.get(" in b.text for s in sections for b in s.blocks)
    assert loaded.dropped_markers == 4  # two includes, one mkdocstrings block, one abbreviation


#: An options page in the shape mkdocstrings-python's documentation uses (MkDocs Material + pymdownx.blocks +
#: attr_list + mkdocs-autorefs), shortened.
MATERIAL_OPTIONS = """# General options

[](){#option-allow_inspection}
## `allow_inspection`

- **:octicons-package-24: Type [`bool`][] :material-equal: `True`{ title="default value" }**

Whether to allow inspecting modules (importing them)
when it is not possible to visit them. See [`force_inspection`][griffe.Loader.force] and the [guide][].

/// admonition | Preview
    type: preview

//// tab | With inspection
<h2><code>SomeClass</code></h2>
<p>Docstring of the class.</p>
////
///

### Sections {#google-sections}

-   :material-hammer-wrench:{ .lg .middle } __Build system__

    ---

    Reproducible builds by default

[guide]: https://example.org/guide
"""


def test_mkdocs_material_blocks_icons_and_attribute_lists_leave_no_markup(tmp_path: Path) -> None:
    (tmp_path / "general.md").write_text(MATERIAL_OPTIONS, encoding="utf-8")
    [document] = read_files(tmp_path).documents
    sections = sections_of(document.metadata)
    assert [s.heading_path for s in sections] == [
        "General options > `allow_inspection`",
        "General options > `allow_inspection` > Sections",
    ]
    text = _texts(sections)
    assert "Type `bool` `True`" in text
    assert "See `force_inspection` and the guide." in text
    assert "Docstring of the class." in text  # the block's body is read; its title and options are not
    assert "Build system. Reproducible builds by default" in text  # a card's title ends before its text
    for dropped in ("{#", "{ ", "octicons", ":material", "///", "Preview", "type: preview", "[", "]"):
        assert dropped not in text, dropped


def test_rst_tolerates_sphinx_directives_and_roles(tmp_path: Path) -> None:
    (tmp_path / "quickstart.rst").write_text(RST, encoding="utf-8")
    [document] = read_files(tmp_path).documents
    sections = sections_of(document.metadata)
    assert [s.heading_path for s in sections] == ["Quickstart", "Quickstart > Routing"]
    text = _texts(sections)
    assert "Follow installation first and read the API docs." in text
    assert "Use the `route()` decorator to bind a function to a URL." in text
    assert "Routes may be registered lazily." in text and "Added in version 2.2." in text
    assert "Text inside a directive docutils has never heard of." in text
    assert "A secret key used for signing the session cookie." in text
    assert not any(marker in text for marker in (":doc:", ":meth:", ".. ", "autoclass", ":members:"))
    assert any(b.kind == "code" and "Flask(__name__)" in b.text for s in sections for b in s.blocks)
    assert any(b.term == "`SECRET_KEY`" for s in sections for b in s.blocks)


MYST = """\
(overview)=
# Overview

Classes are declared with {func}`attrs.define`; see {doc}`examples` and {term}`slotted classes <slotted>`.

```{doctest}
>>> import attrs
```

```{note}
A {class}`~attrs.Attribute` describes one field.
```

```{versionadded} 22.2.0
```

```{toctree}
:maxdepth: 2

api
```
"""


def test_myst_roles_and_directives_are_read_like_sphinx(tmp_path: Path) -> None:
    """MyST (the Markdown of Sphinx projects): roles keep their text, directives their content, code stays code,
    a toctree is dropped; no role or directive syntax reaches the text."""
    (tmp_path / "overview.md").write_text(MYST, encoding="utf-8")
    loaded = read_files(tmp_path)
    [document] = loaded.documents
    sections = sections_of(document.metadata)
    text = _texts(sections)
    assert "Classes are declared with `attrs.define()`; see examples and slotted classes." in text
    assert "A `Attribute` describes one field." in text and "Added in version 22.2.0." in text
    assert any(b.kind == "code" and ">>> import attrs" in b.text for s in sections for b in s.blocks)
    assert not any(marker in text for marker in ("{func}", "{doc}", "{note}", "```{", ":maxdepth:", "(overview)="))
    assert loaded.dropped_markers == 1


def _notebook() -> str:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# Tour\n\nThis notebook shows the client."),
        nbformat.v4.new_code_cell("import httpx\nhttpx.get('https://example.com')"),
        nbformat.v4.new_markdown_cell("## Streaming\n\nUse `stream()` for large downloads."),
    ]
    return nbformat.writes(notebook)


def test_a_mixed_folder_loads_every_supported_file_and_names_the_other(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Alpha\n\nAlpha pages talk about clients.", encoding="utf-8")
    (tmp_path / "b.rst").write_text("Beta\n====\n\nBeta pages talk about routes.", encoding="utf-8")
    (tmp_path / "c.ipynb").write_text(_notebook(), encoding="utf-8")
    (tmp_path / "d.html").write_text("<html><body><h1>Delta</h1><p>Delta pages talk.</p></body></html>", "utf-8")
    (tmp_path / "e.pdf").write_bytes(make_pdf("Epsilon pages talk about PDFs."))
    (tmp_path / "f.xyz").write_text("not a document", encoding="utf-8")
    (tmp_path / "broken.ipynb").write_text("{not json", encoding="utf-8")
    loaded = read_files(tmp_path)
    names = [Path(d.metadata["source"]).name for d in loaded.documents]
    assert names == ["a.md", "b.rst", "c.ipynb", "d.html", "e.pdf"]
    assert set(loaded.skipped) == {str(tmp_path / "f.xyz"), str(tmp_path / "broken.ipynb")}
    assert "unsupported file type '.xyz'" in loaded.skipped[str(tmp_path / "f.xyz")]
    assert loaded.skipped[str(tmp_path / "broken.ipynb")].startswith("parse error")
    notebook = sections_of(loaded.documents[2].metadata)
    assert [s.heading_path for s in notebook] == ["Tour", "Tour > Streaming"]
    assert [b.kind for b in notebook[0].blocks] == ["prose", "code"]
    assert loaded.files_record()["loaded_by_type"] == {".html": 1, ".ipynb": 1, ".md": 1, ".pdf": 1, ".rst": 1}


def test_the_command_line_warns_about_the_unsupported_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ragtest import make_config
    from ragtest.documents import load_sources

    (tmp_path / "a.md").write_text("# Alpha\n\nAlpha pages talk about clients.", encoding="utf-8")
    (tmp_path / "notes.xyz").write_text("?", encoding="utf-8")
    sources = load_sources(make_config(source=str(tmp_path)))
    assert len(sources.documents) == 1
    assert f"ragtest: warning: skipped {tmp_path / 'notes.xyz'}: unsupported file type" in capsys.readouterr().err


def test_chunks_stay_inside_sections_and_carry_their_heading_path(test_data: Path) -> None:
    documents = read_files(test_data / "docs" / "httpx" / "advanced" / "clients.md").documents
    chunks = chunk_documents(documents)
    paths = {s.heading_path for s in sections_of(documents[0].metadata)}
    assert {c.heading_path for c in chunks} == paths
    for chunk in chunks:
        lines = parse_chunk(chunk.text)
        assert lines[0].kind == "heading" and lines[0].text == chunk.heading_path
        assert chunk.text.count("```") % 2 == 0  # a code block cut in two is fenced again
        assert len(chunk.text) <= 512
    assert sum(1 for c in chunks if c.section_part == 0) == len(paths)
    assert any(line.kind == "code" for c in chunks for line in parse_chunk(c.text))
    # metadata survives the store's round trip
    record = chunks[3].to_metadata()
    assert record["heading_path"] == chunks[3].heading_path and "section_part" in record


def test_plain_text_is_chunked_as_before(test_data: Path) -> None:
    documents = read_files(test_data / "wikipedia" / "Brown_bear.txt").documents
    assert "sections" not in documents[0].metadata
    assert all(c.heading_path is None for c in chunk_documents(documents))


def test_notebook_json_round_trip_is_plain_json() -> None:
    assert json.loads(_notebook())["nbformat"] == 4


def test_built_html_headings_lose_their_permalink_marks(tmp_path: Path) -> None:
    page = tmp_path / "defs.html"
    page.write_text(
        '<html><body><h1>Defs and Blocks<a class="headerlink" href="#defs" title="Permalink">¶</a></h1>'
        '<h2>Calling Defs Programmatically<a class="headerlink" href="#calling">¶</a></h2>'
        "<p>You can call defs programmatically from any Template object using the get_def() method.</p>"
        "</body></html>",
        "utf-8",
    )
    [document] = read_files(page).documents
    [section] = sections_of(document.metadata)
    assert section.path == ("Defs and Blocks", "Calling Defs Programmatically")
    assert "¶" not in document.page_content


def test_a_sphinx_ref_shows_the_title_of_the_section_it_names_on_any_page(tmp_path: Path) -> None:
    (tmp_path / "spiders.rst").write_text(
        "Guide\n=====\n\n.. _topics-spiders:\n\nSpiders\n-------\n\nSpiders are classes that define how a site is"
        " crawled.\n",
        "utf-8",
    )
    (tmp_path / "middleware.rst").write_text(
        "Middleware\n==========\n\nThe spider middleware processes the responses that are sent to"
        " :ref:`topics-spiders` for processing. See :ref:`no-such-label` and :ref:`the guide <topics-spiders>`.\n",
        "utf-8",
    )
    documents = {Path(d.metadata["source"]).name: d for d in read_files(tmp_path).documents}
    text = documents["middleware.rst"].page_content
    assert "responses that are sent to “Spiders” for processing" in text  # the title Sphinx shows, cited
    assert "See no such label and the guide." in text  # no page defines it: its words; an explicit title as given
    blocks = [b.text for s in sections_of(documents["middleware.rst"].metadata) for b in s.blocks]
    assert any("sent to “Spiders” for" in b for b in blocks)
    assert all("ref_labels" not in d.metadata and "\ue000" not in d.page_content for d in documents.values())
    [alone] = read_files(tmp_path / "middleware.rst").documents  # one page: the label is not known
    assert "sent to topics spiders for processing" in alone.page_content


def test_python_markdown_heading_attribute_lists_with_a_colon_leave_no_markup(tmp_path: Path) -> None:
    page = (
        "# Writing Extensions {: #writing }\n\nExtensions change how Markdown is parsed.\n\n"
        "## Registries {: #registries .api }\n\nA registry sorts the processors by priority.\n\n"
        "## Sets {of things}\n\nA heading may end in braces that are no attribute list.\n"
    )
    (tmp_path / "api.md").write_text(page, encoding="utf-8")
    [document] = read_files(tmp_path).documents
    paths = [s.heading_path for s in sections_of(document.metadata)]
    assert paths == ["Writing Extensions", "Writing Extensions > Registries", "Writing Extensions > Sets {of things}"]
