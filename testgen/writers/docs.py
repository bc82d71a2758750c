"""Questions from a documentation chunk's structure: the strategies of the offline writer for product docs.

A chunk of a structured document (`Chunk.heading_path` set) is read back into headings, prose, items and code
(`testgen.structure.parse_chunk`); code is never read. Each strategy makes `DocFact`s: a question, a short answer
(`span`), the reference (the source sentences, cleaned) and the strategy's name.

- `howto`: a heading that names a task ("Sending JSON Encoded Data", "Upload files") gives "How do you send JSON
  encoded data?", answered by the section's opening sentences (only from the chunk that opens the section);
- `faq`: a heading phrased as a question ("Why use a Client?") is used as it is, answered the same way;
- `concept`: a heading that names a thing, with a sentence that defines it ("A transport is ..."), or a glossary
  entry whose description is a noun phrase, gives "What is X?";
- `option`: an item naming an option, parameter or setting (`timeout` - ..., a definition-list term, a table row)
  gives "What does the `timeout` option control?";
- `instruction`: "To X, use Y", "Use Y to X", "If you need to X, Y" give "How do you X?".

Every question then passes `doc_problem` (no markup or code artefacts, no unresolved pronoun, a clean slot) and the
writer's usual checks; what fails is counted by reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ragtest_core.text import split_sentences, word_count
from testgen.structure import PATH_SEPARATOR, ChunkLine, parse_chunk
from testgen.writers.clause import Casing
from testgen.writers.grammar import definition_problem, vague_answer
from testgen.writers.morphology import gerund_base, is_base_verb, is_third_person, third_person

#: Strategies in the order the writer offers their questions (the first a context has is asked first).
STRATEGIES: tuple[str, ...] = ("faq", "howto", "instruction", "option", "concept")
HOWTO_STRATEGIES = frozenset({"howto", "instruction"})
_PRONOUNS = frozenset(
    [
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "they",
        "them",
        "their",
        "there",
        "here",
        "above",
        "below",
        "following",
        "one",
        "so",
        "same",
        "such",
    ]
)
#: A reference must not start by pointing at what came before.
_POINTING = ("this ", "these ", "it ", "they ", "that ", "those ", "such ", "its ", "their ", "then ")
#: Artefacts that must never reach a question or a reference: fences, include markers, directives, tags, pipes.
_MARKUP = re.compile(r"```|\{!|!\}|--8<--|:::|^\.\. |\s\.\. \w+::|:[a-z]+:`|</?[a-zA-Z][^>]*>|\||>>>|\\\w|^[-*+] ")
_OPENERS = ("for example", "for instance", "e.g.", "see ", "note:", "here is", "here's", "the following")
_MAX_SLOT_WORDS = 8
_OPENING_STATEMENTS = 4
_SPEC_WORDS = {
    "environment variable": ("environment variable",),
    "parameter": ("parameter", "argument"),
    "setting": ("setting", "config"),
    "option": ("option", "flag"),
}


@dataclass(frozen=True)
class DocFact:
    question: str
    span: str
    reference: str
    strategy: str


def markup_problem(text: str) -> bool:
    """Whether `text` shows markup or code artefacts (a code fence, an include marker, directive or role syntax,
    an HTML tag, a table pipe, a prompt) or unbalanced backticks / brackets."""
    if _MARKUP.search(text) or text.count("`") % 2:
        return True
    return text.count("(") != text.count(")") or text.count("[") != text.count("]")


def pronoun_problem(question: str) -> bool:
    """Whether the question leans on words that need the context ("it", "this", "these", "here", ...)."""
    words = re.findall(r"[A-Za-z']+", question.replace("`", " ").lower())
    return any(word in _PRONOUNS for word in words[1:])


def doc_facts(text: str, casing: Casing, max_words: int, opening: bool) -> Iterator[DocFact]:
    """Every strategy's facts for one chunk's text (`opening`: the chunk opens its section)."""
    lines = parse_chunk(text)
    heading = next((line.text for line in lines if line.kind == "heading"), "")
    path = heading.split(PATH_SEPARATOR)
    leaf = path[-1].strip() if heading else ""
    body = [line for line in lines if line.kind in ("prose", "item")]
    if leaf and opening:
        answer = opening_answer(body)
        if answer is not None:
            yield from _heading_facts(leaf, answer, casing)
        yield from _concept(leaf, body, casing)
    lead = ""
    for line in body:
        if line.kind == "prose":
            lead = line.text  # the sentence that introduces a list ("... accepts these parameters:")
        if line.kind == "item" and line.term:
            fact = option_fact(line, f"{heading} {lead}")
            if fact is not None:
                yield fact
        for sentence in split_sentences(line.text, "en"):
            fact = instruction_fact(sentence, casing)
            if fact is not None:
                yield fact


def _heading_facts(leaf: str, answer: tuple[str, str], casing: Casing) -> Iterator[DocFact]:
    reference, span = answer
    if leaf.endswith("?"):
        yield DocFact(leaf, span, reference, "faq")
        return
    task = task_phrase(leaf, casing)
    if task is not None:
        yield DocFact(f"How do you {task}?", span, reference, "howto")


def task_phrase(heading: str, casing: Casing) -> str | None:
    """ "Sending JSON Encoded Data" -> "send JSON encoded data"; "Upload files" -> "upload files"; None when the
    heading names no task (a noun phrase, one word, several tasks, code)."""
    words = heading.strip().rstrip(":.").split()
    if len(words) < 2 or len(words) > _MAX_SLOT_WORDS or "`" in heading or markup_problem(heading):
        return None
    first = words[0]
    base = gerund_base(first)
    if base is None and imperative(words):
        base = first.lower()
    if base is None or words[1].lower() in ("and", "or", "vs", "versus", "of"):
        return None
    rest = [_recase(word, casing) for word in words[1:]]
    return " ".join([base, *rest])


def imperative(words: list[str]) -> bool:
    """Whether a heading opens with a verb's base form used as an instruction: a word that is only a verb
    ("Declare request example data", "Install Flask"), or a verb that is also a noun followed by a determiner
    ("Upload a file"); "Request URLs", "Resource limits", "Check Job Failed" are not."""
    from lemminflect import getAllLemmas

    first = words[0]
    if not first[:1].isupper() or first.lower().endswith("ing") or not is_base_verb(first):
        return False
    if any(gerund_base(w) or (w.lower().endswith("ed") and len(w) > 4) for w in words[1:]):
        return False
    kinds = set(getAllLemmas(first.lower()))
    return kinds == {"VERB"} or words[1].lower() in ("a", "an", "the", "your", "our", "their", "some", "multiple")


def _recase(word: str, casing: Casing) -> str:
    """A title-case heading word as it reads inside a sentence: lower case unless the text capitalises it inside
    its sentences more often than not ("Encoded" -> "encoded", "Python" and "JSON" stay)."""
    if word[:1].isupper() and word[1:].islower() and word.isalpha():
        lowered = word.lower()
        if casing.inner_capital[lowered] <= casing.lower[lowered] or casing.inner_capital[lowered] == 0:
            return lowered
    return word


#: A sentence that tells the reader what to do: "you can / should ...", an imperative, "by passing ...".
_INSTRUCTIVE = re.compile(
    r"\byou(?:'ll| will| can| should| could| may| must| need| want| might)\b|\b(?:allows?|lets?) you\b|"
    r"^(?:To \w+|Use|Pass|Set|Call|Create|Enable|Install|Run|Add|Import|Provide|Configure|Specify|Make sure)\b|"
    r"\bby (?:passing|setting|using|calling|adding|providing|specifying|enabling|including|creating)\b",
    re.IGNORECASE,
)


def opening_answer(body: list[ChunkLine]) -> tuple[str, str] | None:
    """(reference, span) from a section's opening chunk: the first of its first four prose statements that tells
    the reader what to do (`_INSTRUCTIVE`); None when none does (the answer is then
    in the code, or the section explains instead of instructing). Not "For example:", not a question; a closing
    colon before code is made a full stop."""
    statements: list[str] = []
    for line in body:
        if len(statements) >= _OPENING_STATEMENTS:
            break
        if line.kind != "prose":
            continue
        for sentence in split_sentences(line.text, "en"):
            cleaned = clean_sentence(sentence)
            if cleaned is not None and len(statements) < _OPENING_STATEMENTS:
                statements.append(cleaned)
    if not statements:
        return None
    chosen = next((s for s in statements if _INSTRUCTIVE.search(s)), None)
    return (chosen, chosen) if chosen is not None else None


def clean_sentence(sentence: str) -> str | None:
    """The sentence as a reference (a closing ":" made "."), or None when it is no statement to answer with."""
    text = " ".join(sentence.split())
    lowered = text.lower()
    if text.endswith(("?", "...", "…")) or lowered.startswith(_OPENERS + _POINTING) or word_count(text) < 5:
        return None
    if markup_problem(text) or "let's" in lowered or "let us" in lowered:
        return None
    if text.endswith(":"):
        text = text[:-1].rstrip() + "."
    if not text.endswith((".", "!")):
        text += "."
    return text


def _concept(leaf: str, body: list[ChunkLine], casing: Casing) -> Iterator[DocFact]:
    """ "Transports" + "A transport is ..." -> "What is a transport?"."""
    words = leaf.split()
    if not 1 <= len(words) <= 4 or leaf.endswith("?") or gerund_base(words[0]) or markup_problem(leaf):
        return
    key = _singular(leaf.replace("`", "").lower())
    for line in body[:3]:
        if line.kind != "prose":
            continue
        for sentence in split_sentences(line.text, "en")[:2]:
            match = re.match(
                r"^(?:(?P<article>An?|The) )?(?P<subject>[^,;:]{2,60}?) (?P<be>is|are) (?P<rest>.+)$", sentence
            )
            if not match or _singular(match.group("subject").replace("`", "").lower()) != key:
                continue
            description = match.group("rest").rstrip(".")
            if definition_problem(description) is not None or markup_problem(sentence):
                continue
            subject = match.group("subject")
            article = (match.group("article") or "").lower()
            named = f"{article} {_recase_phrase(subject, casing)}".strip()
            question = f"What {match.group('be')} {named}?"
            reference = clean_sentence(sentence)
            if reference is not None:
                yield DocFact(question, description, reference, "concept")
            return


def _recase_phrase(phrase: str, casing: Casing) -> str:
    words = phrase.split()
    return " ".join([casing.first_word(words[0], words[1] if len(words) > 1 else ""), *words[1:]])


def _singular(phrase: str) -> str:
    return " ".join(w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in phrase.split())


def option_fact(line: ChunkLine, heading: str) -> DocFact | None:
    """ "`timeout`: The timeout configuration to use." -> "What does the `timeout` option control?"."""
    term = (line.term or "").strip()
    name = term.strip("`")
    if not name or " " in name or "(" in name or not re.fullmatch(r"[\w.-]+|--[\w-]+", name):
        return None
    if not (term.startswith("`") or "_" in name or name.startswith("--")):
        return None  # "Forwarding: the proxy makes ...": a bold word, not an option
    description = line.text[len(term) :].lstrip(": ").strip() if line.text.startswith(term) else line.text
    first = split_sentences(description, "en")[:1]
    if not first or word_count(first[0]) < 3 or markup_problem(first[0]):
        return None
    noun = _option_noun(name, heading)
    if noun is None:
        return None
    reference = option_reference(f"The `{name}` {noun}", first[0].rstrip("."))
    if reference is None:
        return None
    return DocFact(f"What does the `{name}` {noun} control?", first[0].rstrip("."), reference, "option")


def _option_noun(name: str, context: str) -> str | None:
    """What the item names, from the words around it (heading path and the chunk's prose): an environment
    variable, a parameter, a setting or an option; None when nothing says it is one (a list of packages)."""
    context = context.lower()
    for noun, cues in _SPEC_WORDS.items():
        if any(cue in context for cue in cues):
            return noun
    return "option" if name.startswith("--") else None


def option_reference(subject: str, description: str) -> str | None:
    """A sentence saying what the option does, from its description: "Whether X" -> "S controls whether X";
    "The name of X" -> "S is the name of X"; "Enables X" -> "S enables X"; "Enable X" -> "S enables X"."""
    words = description.split()
    first = words[0]
    lowered = first.lower()
    rest = " ".join(words[1:])
    if lowered in ("whether", "how", "which", "when", "where", "what"):
        return f"{subject} controls {lowered} {rest}."
    if lowered in ("a", "an", "the"):
        return f"{subject} is {lowered} {rest}."
    if not (first[:1].isupper() and first[1:].islower() and first.isalpha()) or not _only_verb(first):
        return None  # "SOCKS proxy support", "Command line client support": a noun phrase, not a verb
    if is_third_person(first) and not is_base_verb(first):
        return f"{subject} {lowered} {rest}."
    verb = third_person(first)
    return f"{subject} {verb} {rest}." if verb is not None else None


def _only_verb(word: str) -> bool:
    from lemminflect import getAllLemmas

    return set(getAllLemmas(word.lower())) == {"VERB"}


_INSTRUCTIONS = (
    re.compile(
        r"^(?:To|In order to) (?P<task>[a-z][^,]{3,80}), (?P<how>(?:you (?:can|should|must|need to|may) )?[a-z].+)$"
    ),
    re.compile(r"^You (?:can|may)(?: also)? (?P<task>[a-z][^,]{3,60}?),? (?P<how>(?:using|with|via|through) .+)$"),
    re.compile(r"^(?P<how>.{5,60}?) (?:can be|is|are) used to (?P<task>[a-z][^,]{3,60})$"),
    re.compile(r"^(?P<how>Use .{3,60}?) to (?P<task>[a-z][^,]{3,80})$"),
    re.compile(r"^If you (?:want|need|wish|would like) to (?P<task>[a-z][^,]{3,80}), (?P<how>.+)$"),
    re.compile(r"^You can (?P<how>use .{3,60}?) to (?P<task>[a-z][^,]{3,80})$"),
    re.compile(
        r"^You can (?P<task>[a-z][^,]{3,60}?) (?P<how>by (?:passing|setting|using|calling|adding|providing|specifying"
        r"|enabling|including|creating) .+)$"
    ),
    re.compile(
        r"^The (?:recommended|best|easiest|simplest|preferred) way to (?P<task>[a-z][^,]{3,60}?) is (?P<how>.+)$"
    ),
)


def instruction_fact(sentence: str, casing: Casing) -> DocFact | None:
    """ "To enable debug mode, use the `--debug` option." -> "How do you enable debug mode?"."""
    text = " ".join(sentence.split()).rstrip(".")
    if markup_problem(text):
        return None
    for pattern in _INSTRUCTIONS:
        match = pattern.match(text)
        if match is None:
            continue
        task = match.group("task").strip()
        verb = task.split()[0]
        if not is_base_verb(verb) or len(task.split()) > _MAX_SLOT_WORDS or len(task.split()) < 2:
            return None
        how = match.group("how").strip()
        if vague_answer(how) or len(how.split()) < 3 or pronoun_problem(f"How {task}"):
            return None
        reference = clean_sentence(sentence)
        if reference is None:
            return None
        return DocFact(f"How do you {task}?", how, reference, "instruction")
    return None


def strategy_problem(fact: DocFact, max_words: int) -> str | None:
    """Why a fact's question or reference cannot be used (None when it can)."""
    if markup_problem(fact.question) or markup_problem(fact.reference):
        return "markup"
    if pronoun_problem(fact.question):
        return "unresolved_pronoun"
    if word_count(fact.question) > max_words:
        return "question_too_long"
    if fact.strategy != "option" and vague_answer(fact.span):
        return "vague_answer"
    return None
