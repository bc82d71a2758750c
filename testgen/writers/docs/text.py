"""Text checks shared by the documentation strategies: markup and code artefacts, words that need the context,
and a source sentence cleaned into a reference."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from ragtest_core.text import split_sentences, word_count
from testgen.writers.english.lexicon import LISTS, words
from testgen.writers.english.morphology import is_base_verb

_PRONOUNS = words("it its this that these those they them their there here above below following one so same such")
#: A reference must not start by pointing at what came before.
POINTING = ("this ", "these ", "it ", "they ", "that ", "those ", "such ", "its ", "their ", "then ")
#: Artefacts that must never reach a question or a reference: fences, include markers, directives, tags, pipes.
_MARKUP = re.compile(r"```|\{!|!\}|--8<--|:::|^\.\. |\s\.\. \w+::|:[a-z]+:`|</?[a-zA-Z][^>]*>|\||>>>|\\\w|^[-*+] ")
LIGHT_VERBS = words(LISTS["text.LIGHT_VERBS"])
#: The end of a statement that goes on in the code or list after its colon: a preposition or "i.e." with no object
#: ("... do things like:", "... application factory, i.e.:"), or a verb after "and" / "to" / a modal with none
#: ("open a terminal window and run:"; not "to pip:", where "to" is a preposition).
_CUT_BEFORE_LIST = re.compile(r"\b(?:like|as|via|with|using|namely|including|i\.e\.|e\.g\.)$", re.IGNORECASE)
_CUT_BEFORE_VERB = re.compile(r"\b(?:and|or|then|can|must|should|will) (?P<verb>[a-z]+)$")
#: Lower-case openings of what is the end of a sentence, not a sentence.
_FRAGMENT_OPENERS = ("you ", "we ", "and ", "but ", "or ", "which ", "so ", "then ")
_OPENERS = ("for example", "for instance", "e.g.", "see ", "note:", "here is", "here's", "the following", "tl;dr")


def markup_problem(text: str) -> bool:
    """Whether `text` shows markup or code artefacts (a code fence, an include marker, directive or role syntax,
    an HTML tag, a table pipe, a prompt) or unbalanced backticks / brackets."""
    if _MARKUP.search(text) or text.count("`") % 2:
        return True
    if any(not re.search(r"\w", span) for span in re.findall(r"`([^`]*)`", text)):
        return True  # "Replace the `...` with arguments": a placeholder in code the reader cannot see
    return text.count("(") != text.count(")") or text.count("[") != text.count("]")


def pronoun_problem(question: str) -> bool:
    """Whether the question leans on words that need the context ("it", "this", "these", "here", ...)."""
    return any(word in _PRONOUNS for word in re.findall(r"[A-Za-z']+", question.replace("`", " ").lower())[1:])


def clean_sentence(sentence: str) -> str | None:
    """The sentence as a reference (a closing ":" made "."), or None when it is no statement to answer with."""
    text = " ".join(sentence.split())
    lowered = text.lower()
    if text.endswith(("?", "...", "…")) or lowered.startswith(_OPENERS + POINTING) or word_count(text) < 5:
        return None
    if markup_problem(text) or "let's" in lowered or "let us" in lowered:
        return None
    if text.startswith(_FRAGMENT_OPENERS):
        return None  # "you can force the running ...": the end of a sentence whose start was markup or code
    if re.search(r"\s[.,;:]|[,;:][.!?]", text):
        return None  # "a class that you register in your ." : inline text the loader could not show
    if text.endswith(":") and re.search(r"\b(?:following|as follows|these|below)\b", lowered):
        return None  # "Werkzeug parses the data under the following situations:": the answer is the list
    lead = text[:-1].rstrip()  # before a closing colon: it may stop before its object, which the code after it holds
    verb = _CUT_BEFORE_VERB.search(lead)
    if text.endswith(":") and (_CUT_BEFORE_LIST.search(lead) or (verb and is_base_verb(verb.group("verb")))):
        return None  # "To install the Xcode command-line tools, open a terminal window and run:": what to run is code
    text = lead + "." if text.endswith(":") else text
    return text if text.endswith((".", "!")) else text + "."


_CODE_SPAN = re.compile(r"`[^`]+`")
_CODE_PLACEHOLDER = re.compile(r"qqcode(\d+)qq")


def mask_code(text: str) -> tuple[str, Callable[[str], str]]:
    """`text` with each inline code span replaced by one placeholder word, and the function that puts the spans back
    into any text made from the masked one (the sentence splitter and the tagger never see inside code)."""
    spans, numbers = _CODE_SPAN.findall(text), itertools.count()
    masked = _CODE_SPAN.sub(lambda _: f"qqcode{next(numbers)}qq", text)
    return masked, lambda part: _CODE_PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], part)


def split_prose(text: str) -> list[str]:
    """The sentences of documentation prose, never cut inside inline code ("by their `.ipynb` extension" is one
    sentence, though the sentence splitter would end one at "`.")."""
    masked, restore = mask_code(text)
    return [restore(sentence) for sentence in split_sentences(masked, "en")]
