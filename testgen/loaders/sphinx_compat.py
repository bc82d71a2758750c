"""What Sphinx adds to reStructuredText, as docutils directives and roles that keep the text and drop the markup.

`docutils_patched()` wraps docutils' directive and role look-ups for the duration of one parse (a lock keeps
parses one at a time): a name docutils knows keeps its own meaning, except the few listed here; an unknown
directive keeps its content as text; an unknown role keeps its text. Nothing is registered globally.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives, roles

from ragtest_core.text import words
from testgen.loaders.references import fallback_text, label_mark

#: Node attribute on what a dropped directive leaves behind (so the walker can count it).
DROPPED = "ragtest_dropped"
#: Directives that include text from elsewhere (docstrings, other files, a table of contents): dropped.
_DROP = words(
    "autoclass autofunction automodule autodata automethod autoattribute autoexception autosummary toctree"
    " include literalinclude image figure rst-class currentmodule module py:module py:currentmodule raw"
    " only-html highlight index tabularcolumns graphviz"
)
#: Directives whose content is code.
_CODE = words("code-block sourcecode code highlight-block doctest testcode testoutput ipython code-cell")
#: Sphinx object descriptions: `.. data:: NAME` followed by what NAME is, read as a definition item.
_OBJECTS = words(
    "data function class method attribute exception decorator decoratormethod classmethod staticmethod envvar"
    " confval option describe object"
)
_VERSIONS = {"versionadded": "Added in version", "versionchanged": "Changed in version", "deprecated": "Deprecated"}
#: Roles whose text names code (shown as inline code, callables with "()").
_CODE_ROLES = words("func meth class attr data exc mod obj const envvar option file program command samp mimetype code")
_CALLABLE_ROLES = frozenset(["func", "meth"])
#: Roles naming a Python object, whose target may start with "." (Sphinx's relative search); not `:file:`.
_OBJECT_ROLES = frozenset(["func", "meth", "class", "attr", "data", "exc", "mod", "obj", "const"])
_lock = threading.Lock()


class _AnyOptions(dict[str, Any]):
    """An option spec that accepts every option (Sphinx directives have many docutils does not know)."""

    def __getitem__(self, key: str) -> Any:
        return directives.unchanged


class _Base(Directive):
    #: What the directive's content is, for MyST's directives in Markdown (`directive_kind`).
    kind = "text"
    required_arguments = 0
    optional_arguments = 50
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def content_node(self, node: nodes.Element) -> nodes.Element:
        self.state.nested_parse(self.content, self.content_offset, node)
        return node


class Dropped(_Base):
    kind = "drop"

    def run(self) -> list[nodes.Node]:
        node = nodes.comment()
        node[DROPPED] = True
        return [node]


class Code(_Base):
    kind = "code"

    def run(self) -> list[nodes.Node]:
        text = "\n".join(self.content)
        return [nodes.literal_block(text, text)]


class Container(_Base):
    """An unknown directive, a tab, a `seealso`, a glossary: the content, parsed as reStructuredText."""

    def run(self) -> list[nodes.Node]:
        return [self.content_node(nodes.container())]


class Version(_Base):
    kind = "version"

    def run(self) -> list[nodes.Node]:
        number, *inline = " ".join(self.arguments).split() or [""]
        node = nodes.container()
        node += nodes.paragraph(text=f"{version_words(self.name)} {number}.".replace(" .", "."))
        if inline:
            node += nodes.paragraph(text=" ".join(inline))
        return [self.content_node(node)]


#: Object descriptions of callables: their term is written as a call (`get_value()`), as Sphinx shows it, so that
#: no one reads a method as a setting.
_CALLABLES = frozenset(["function", "method", "decorator", "decoratormethod", "classmethod", "staticmethod"])


class ObjectDescription(_Base):
    """`.. data:: SECRET_KEY` + its description -> a definition list entry (term SECRET_KEY); `.. method::
    get_value(key)` -> term `get_value()`."""

    def run(self) -> list[nodes.Node]:
        signature = " ".join(self.arguments).split("(")[0].strip()
        if self.name.split(":")[-1] in _CALLABLES:
            signature += "()"
        definition = self.content_node(nodes.definition())
        item = nodes.definition_list_item("", nodes.term(text=f"`{signature}`"), definition)
        return [nodes.definition_list("", item)]


_BY_NAME: dict[str, type[Directive]] = {
    **dict.fromkeys(_CODE, Code),
    **dict.fromkeys(_VERSIONS, Version),
    **dict.fromkeys(_OBJECTS, ObjectDescription),
}


def _directive_for(name: str) -> type[Directive] | None:
    short = name.split(":")[-1]
    return Dropped if name in _DROP or short in _DROP else _BY_NAME.get(short)


def directive_kind(name: str) -> str:
    """What a Sphinx directive's content is: "drop" (toctree, include, autodoc), "code", "version" (versionadded:
    the version, then the text) or "text"."""
    return (_directive_for(name) or _Base).kind


def version_words(name: str) -> str:
    """ "versionadded" -> "Added in version"."""
    return _VERSIONS.get(name.split(":")[-1], "Changed in version")


def role_text(name: str, text: str) -> tuple[str, bool]:
    """(visible text, is code) of a Sphinx role (reStructuredText or MyST) as Sphinx would show it."""
    text = nodes.unescape(text)
    title, _, target = text.partition("<")
    if target and title.strip():
        return title.strip(), False
    shown = text.strip().lstrip("!")
    if shown.startswith("~"):
        shown = shown[1:].split(".")[-1]
    short = name.split(":")[-1]
    if short in _OBJECT_ROLES:
        shown = shown.lstrip(".")  # ".Pagination.items": searched from the current module, shown without the dot
    if short in _CODE_ROLES:
        if short in _CALLABLE_ROLES and not shown.endswith(")"):
            shown += "()"
        return shown, True
    if short == "pep":
        return f"PEP {shown}", False
    if short == "ref":
        return label_mark(shown), False  # the title of the section it names: known once every page is read
    if short in ("doc", "term", "any", "numref", "keyword"):
        return fallback_text(shown), False
    return shown, False


def _generic_role(
    name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None, content: Any = None
) -> tuple[list[nodes.Node], list[Any]]:
    shown, code = role_text(name, text)
    return [nodes.literal(rawtext, shown) if code else nodes.Text(shown)], []


@contextmanager
def docutils_patched() -> Iterator[None]:
    """docutils' directive and role look-ups, with Sphinx's names understood, for one parse."""
    original_directive, original_role = directives.directive, roles.role

    def directive(name: str, language: Any, document: Any) -> tuple[Any, list[Any]]:
        if (ours := _directive_for(name.lower())) is not None:
            return ours, []
        found, messages = original_directive(name, language, document)
        return (found or Container), ([] if found is None else messages)

    def role(name: str, language: Any, lineno: int, reporter: Any) -> tuple[Any, list[Any]]:
        if name.split(":")[-1].lower() in _CODE_ROLES | {"doc", "ref", "term", "pep", "any", "numref"}:
            return _generic_role, []
        found, messages = original_role(name, language, lineno, reporter)
        return (found or _generic_role), ([] if found is None else messages)

    with _lock:
        directives.directive, roles.role = directive, role
        try:
            yield
        finally:
            directives.directive, roles.role = original_directive, original_role


def inline_text(node: Any, code: bool = True) -> str:
    """The words of an inline node: text, inline code in backticks (`code=False`: bare), reference words; no
    footnote or citation marks."""
    parts: list[str] = []
    for child in node.children:
        tag = child.tagname
        if tag in ("footnote_reference", "citation_reference", "target", "image", "problematic", "system_message"):
            continue
        if tag == "#text":
            parts.append(str(child))
        elif tag == "literal":
            parts.append(f"`{child.astext()}`" if code else child.astext())
        else:
            parts.append(inline_text(child, code))
    return " ".join("".join(parts).split())
