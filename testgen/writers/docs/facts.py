"""Questions from a documentation chunk's structure, by strategy (the table of docs/generation.md, Documentation
corpora): `howto` and `faq` from headings (answered by the section's opening statements, `answers`), `concept`
from definitions and glossary items, `option` (`options`), `instruction` (`instructions`) and `default`
(`defaults`). A chunk is read back into headings, prose, items and code (`testgen.structure.parse_chunk`); code is
never read. Each `DocFact` then passes `strategy_problem` and the writer's usual checks; what fails is counted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragtest_core.text import STOPWORDS, word_count
from testgen.structure import PATH_SEPARATOR, ChunkLine, parse_chunk
from testgen.writers.docs.answers import opening_answer
from testgen.writers.docs.defaults import default_fact
from testgen.writers.docs.descriptions import FINITE, PLURAL_PRESENT, DocFact, data_type, ordinary_word, run_together
from testgen.writers.docs.headings import recase, task_phrase
from testgen.writers.docs.instructions import instruction_fact
from testgen.writers.docs.options import option_fact, option_noun
from testgen.writers.docs.specific import example_answer, thin_answer
from testgen.writers.docs.text import clean_sentence, markup_problem, pronoun_problem, split_prose
from testgen.writers.english.clause import Casing
from testgen.writers.english.grammar import definition_problem, vague_answer
from testgen.writers.english.morphology import content_lemmas, gerund_base, is_third_person
from testgen.writers.english.tagger import tags

#: Strategies in the order the writer offers their questions (the first a context has is asked first).
STRATEGIES: tuple[str, ...] = ("faq", "howto", "instruction", "option", "concept", "default")
HOWTO_STRATEGIES = frozenset({"howto", "instruction"})
#: A list introduced as the values one option takes ("Valid values are:", "can be one of:"): its items are values,
#: not options ("`ctrace`: the C implementation of ..." is a value of `[run] core`).
VALUES_LEAD = re.compile(
    r"\b(?:valid|possible|allowed|accepted|supported) values\b|\bvalues are\b|\bone of(?: the following)?:?$|"
    r"\bcan be:$",
    re.IGNORECASE,
)


def doc_facts(text: str, casing: Casing, max_words: int, opening: bool) -> list[DocFact]:
    """Every strategy's facts for one chunk's text (`opening`: the chunk opens its section)."""
    lines = parse_chunk(text)
    heading = next((line.text for line in lines if line.kind == "heading"), "")
    leaf = heading.split(PATH_SEPARATOR)[-1].strip() if heading else ""
    body = [line for line in lines if line.kind in ("prose", "item")]
    found: list[DocFact | None] = []
    if leaf:
        task = task_phrase(leaf, casing) or ""
        instructing = not leaf.endswith("?") or leaf.lower().startswith("how ")
        # a later chunk of the section answers only with an instruction that names the task
        verb = task.split()[0].lower() if task else ""
        topic = frozenset(content_lemmas(task))
        wanted = opening or instructing
        answer = opening_answer(body, instructing, topic, opening=opening, task_verb=verb) if wanted else None
        found.append(_heading_fact(leaf, task or None, answer, casing, body) if answer is not None else None)
    if leaf and opening:
        found += [_concept(leaf, body, casing), name_heading_fact(leaf, body)]
        found.append(code_heading_fact(leaf, body, heading) if re.fullmatch(r"`[^`\s]+`", leaf) else None)
    lead = ""
    values = False  # a list of the values of one option: its items are no options
    for line in body:
        if line.kind == "prose":
            lead = line.text  # the sentence that introduces a list ("... accepts these parameters:")
            values = values or bool(VALUES_LEAD.search(lead))
        if line.kind == "item" and line.term and not values:
            found.append(option_fact(line, f"{leaf} {lead}") or glossary_fact(line))
        found += [instruction_fact(s) or default_fact(s, leaf, casing, max_words) for s in split_prose(line.text)]
    return [fact for fact in found if fact is not None]


def _heading_fact(
    leaf: str, task: str | None, answer: str, casing: Casing, body: Sequence[ChunkLine]
) -> DocFact | None:
    """The FAQ or how-to question a heading asks, answered by the section's opening statement `answer`."""
    if leaf.endswith("?"):
        question = faq_question(leaf, casing)
        asked = re.match(r"(?:What|Who) (?:is|are) (?P<thing>.+)\?$", question or "")
        if question is None or (asked and not content_lemmas(asked.group("thing")) & content_lemmas(answer)):
            return None  # "What is messaging?" -> "In times long ago people didn't have email.": no answer yet
        return DocFact(question, answer, answer, "faq")
    if task is None or named_as_thing(leaf, body):
        return None
    return DocFact(f"How do you {task}?", answer, answer, "howto")


def named_as_thing(leaf: str, body: Sequence[ChunkLine]) -> bool:
    """Whether the section's text uses its heading as a noun phrase ("Build Constraints" + "Use build constraints
    to ..."; "Debug Mode" + "the debug mode"): the heading names a thing, not a task."""
    phrase = " ".join(leaf.replace("`", "").lower().split())
    text = " ".join(line.text.replace("`", "").lower() for line in body)
    if re.search(rf"\b(?:{_NOUN_CONTEXT}) {re.escape(phrase)}\b", text) is not None:
        return True
    words = phrase.split()
    if len(words) < 2 or gerund_base(words[0]) is None:
        return False
    # "Breaking changes and deprecations" + "if there are any breaking changes": the -ing word describes its noun
    return re.search(rf"\b(?:{_DETERMINERS}) {re.escape(' '.join(words[:2]))}\b", text) is not None


#: Words after which a heading's phrase is a noun phrase.
_NOUN_CONTEXT = "the|a|an|use|using|uses|used|with|of|for|your|these|this|its|their|our|any|no|some|each"
#: Words after which an -ing word is an adjective ("any breaking changes"; not "for sending JSON": a gerund).
_DETERMINERS = "the|a|an|your|these|those|this|its|their|our|any|no|some|each|every"


def faq_question(heading: str, casing: Casing) -> str | None:
    """A heading phrased as a question, in sentence case ("Where are Errors Handled?" -> "Where are errors
    handled?"); None when it has no verb ("Why Hardcoded Behaviors?", "Why not Docopt etc.?": a topic, not a
    question one can answer from its section alone)."""
    words = heading.rstrip("?").split()
    if len(words) < 2 or "etc" in heading or markup_problem(heading):
        return None
    tagged = tags(" ".join(words))
    if not any(tag.startswith(("VV", "VB", "VD", "VH", "VM")) for tag in tagged[1:]):
        return None
    rest = [recase(word, tag, casing) for word, tag in zip(words[1:], tagged[1:], strict=True)]
    return " ".join([words[0], *rest]) + "?"


def _concept(leaf: str, body: list[ChunkLine], casing: Casing) -> DocFact | None:
    """ "Transports" + "A transport is ..." -> "What is a transport?"."""
    words = leaf.split()
    if not 1 <= len(words) <= 4 or leaf.endswith("?") or gerund_base(words[0]) or markup_problem(leaf):
        return None
    key = _singular(leaf.replace("`", "").lower())
    for sentence in (s for line in body[:3] if line.kind == "prose" for s in split_prose(line.text)[:2]):
        if sentence.rstrip().endswith(":"):
            continue  # "Kubernetes is a minimal worker Deployment fragment:" + code: a label for the code
        match = re.match(
            r"^(?:(?P<article>An?|The) )?(?P<subject>[^,;:]{2,60}?) (?P<be>is|are) (?P<rest>.+)$", sentence
        )
        if not match or _singular(match.group("subject").replace("`", "").lower()) != key:
            continue
        description = match.group("rest").rstrip(".")
        if definition_problem(description) is not None or markup_problem(sentence):
            continue
        named = f"{(match.group('article') or '').lower()} {_recase_phrase(match.group('subject'), casing)}".strip()
        reference = clean_sentence(sentence)
        return DocFact(f"What {match.group('be')} {named}?", description, reference, "concept") if reference else None
    return None


def glossary_fact(line: ChunkLine) -> DocFact | None:
    """ "`httpcore` - The underlying transport implementation for `httpx`." -> "What is `httpcore`?": an item
    naming one thing whose description is a noun phrase opening with an article (a definition, not a list of
    features such as "SSL certificates")."""
    term = (line.term or "").strip()
    name = term.strip("`")
    if not term.startswith("`") or not re.fullmatch(r"[\w.-]+", name) or ordinary_word(name):
        return None
    description = line.text[len(term) :].lstrip(":- ").strip() if line.text.startswith(term) else ""
    first = split_prose(description)[:1]
    return None if not first or run_together(first[0]) else _definition_fact(term, name, first[0])


def _definition_fact(term: str, name: str, sentence: str) -> DocFact | None:
    """ "What is `term`?" answered by `sentence` when it defines the thing (`name`, without backticks): a noun
    phrase opening with an article, of four words or more, that passes `definition_problem`."""
    if markup_problem(sentence) or not re.match(r"^(?:An?|The) \w", sentence):
        return None
    definition = sentence.rstrip(".")
    lowered = definition[0].lower() + definition[1:]
    if set(tags(re.split(r"\b(?:that|which|who|where|when|to)\b|,", definition)[0])[1:]) & (FINITE | PLURAL_PRESENT):
        return None  # "`_exit` - The os._exit() function exits the process ...": a sentence about something else
    if word_count(definition) < 4 or definition_problem(lowered) is not None:
        return None
    if data_type(definition):
        return None  # "`status_code` - An integer HTTP status code": a parameter's type, not what a thing is
    if restates(definition, name):
        return None  # "`type_parameters` - The type parameters of the class": the name spelled out
    return DocFact(f"What is {term}?", definition, f"{term} is {lowered}.", "concept")


#: Lines of an option's section that label a value, not describe the option ("Valid values: a filename").
_LABEL = re.compile(
    r"^(?:valid values|values|default|type|example|examples|usage|command line|cli|environment variable|env)\b[^.]*:",
    re.IGNORECASE,
)


def code_heading_fact(leaf: str, body: Sequence[ChunkLine], heading: str) -> DocFact | None:
    """An option, setting or environment variable that heads its own section: "### `--pyi`" + "Format all input
    files like typing stubs ..."; "## `NO_PROXY`" + "Valid values: ..." + "`NO_PROXY` disables the proxy for
    specific urls" -> "What does the `NO_PROXY` environment variable control?"."""
    statements = [s for line in body if line.kind == "prose" for s in split_prose(line.text)][:3]
    statements = [s for s in statements if not _LABEL.match(s)]
    if not statements:
        return None
    first = statements[0]
    if (fact := option_fact(ChunkLine("item", f"{leaf} {first}", leaf), heading, own_section=True)) is not None:
        return fact
    name = leaf.strip("`")
    noun = option_noun(name, heading)
    if noun is None or ordinary_word(name) or markup_problem(first) or word_count(first) < 5:
        return None
    said = re.sub(rf"\bthis {noun}\b", leaf, first, flags=re.IGNORECASE)  # "If this environment variable is set"
    if leaf not in said:
        return None
    reference = clean_sentence(said)
    if reference is None or pronoun_problem(reference.replace(leaf, "X")):
        return None
    return DocFact(f"What does the {leaf} {noun} control?", reference.rstrip("."), reference, "option")


def name_heading_fact(leaf: str, body: Sequence[ChunkLine]) -> DocFact | None:
    """ "### Hishel" + "An elegant HTTP Cache implementation for HTTPX and HTTP Core." -> "What is Hishel?": a
    heading that is a name (one word that is capitalised inside, or code, or in no dictionary: "Hishel",
    "httpx-socks"; not "Plugins") whose section opens with a noun phrase naming what it is."""
    name = leaf.strip("`")
    if not re.fullmatch(r"[A-Za-z][\w.+-]*", name) or (ordinary_word(name.lower()) and name[1:].islower()):
        return None
    sentences = next((split_prose(line.text)[:1] for line in body if line.kind == "prose"), [])
    if not sentences:
        return None
    definition = sentences[0].rstrip(".")
    bare = re.sub(r"\([^)]*\)", "", definition).split()
    finite = sum(1 for tag in tags(" ".join(bare))[1:] if tag in FINITE | PLURAL_PRESENT | {"VDB", "VDZ"})
    if finite > len(re.findall(r"\b(?:that|which|who)\b", definition)):
        return None  # "The ELK stack (...) from Elastic is a great way ...": a main verb after the noun phrase
    if vague_answer(definition[:1].lower() + definition[1:]):
        return None
    return _definition_fact(f"`{name}`" if leaf.startswith("`") else name, name, sentences[0])


def section_name_fact(text: str) -> DocFact | None:
    """What a section headed by a name says its name is, for multi-hop comparisons of siblings only (no single
    question): "### httpx-retries" + "A retry layer for HTTPX." -> "httpx-retries is a retry layer for HTTPX.";
    "Allows consuming Server-Sent Events" -> "httpx-sse allows consuming ..."; the first statement of three words
    or more (link labels such as "GitHub - Documentation" are passed over), not one that only restates the name."""
    lines = parse_chunk(text)
    heading = next((line.text for line in lines if line.kind == "heading"), "")
    leaf = heading.split(PATH_SEPARATOR)[-1].strip()
    name = leaf.strip("`")
    if not re.fullmatch(r"[A-Za-z][\w.+-]*", name) or (ordinary_word(name.lower()) and name[1:].islower()):
        return None
    statements = (s for line in lines if line.kind == "prose" for s in split_prose(line.text))
    first = next((s.rstrip(".") for s in statements if word_count(s) >= 3), None)
    if first is None or markup_problem(first) or restates(first, name) or pronoun_problem(first):
        return None
    lowered = first[0].lower() + first[1:]
    if re.match(r"(?:An?|The) ", first):
        reference = f"{leaf} is {lowered}."
    elif is_third_person(first.split()[0].lower()) and first.split()[0].lower() not in STOPWORDS:
        reference = f"{leaf} {lowered}."
    else:
        return None
    return DocFact(f"What is {leaf}?", first, reference, "definition")


def restates(definition: str, name: str) -> bool:
    """Whether a definition only says the name again ("RateLimitMiddleware" - "A rate limit middleware";
    "Modularity" - "The modularity that Starlette is designed on ...")."""
    parts = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ").lower().split()
    head = re.split(r"\b(?:that|which|who|whose|where|when|to|for|of|in|with)\b", definition.lower())[0]
    words = [word for word in re.findall(r"[a-z][\w-]*", head) if word not in STOPWORDS]
    if words[: len(parts)] == parts:
        return True  # "`widget` - the widget used to render the field": the name, then what it is for
    return bool(words) and all(any(word.startswith(part[:5]) for part in parts) for word in words)


def _recase_phrase(phrase: str, casing: Casing) -> str:
    """A sentence's subject as it reads inside a question: "Entry points" -> "entry points" (a dictionary word
    never capitalised inside the page's sentences, before a lower-case word); names keep their case."""
    words = phrase.split()
    first = casing.first_word(words[0], words[1] if len(words) > 1 else "")
    lowered = first.lower()
    common = first.isalpha() and first[1:].islower() and casing.inner_capital[lowered] == 0
    if len(words) > 1 and words[1].islower() and common and ordinary_word(lowered):
        first = lowered
    return " ".join([first, *words[1:]])


def _singular(phrase: str) -> str:
    return " ".join(w[:-1] if w.endswith("s") and not w.endswith("ss") else w for w in phrase.split())


def strategy_problem(fact: DocFact, max_words: int) -> str | None:
    """Why a fact's question or reference cannot be used (None when it can)."""
    if markup_problem(fact.question) or markup_problem(fact.reference):
        return "markup"
    if pronoun_problem(fact.question):
        return "unresolved_pronoun"
    if word_count(fact.question) > max_words:
        return "question_too_long"
    if fact.strategy not in ("option", "default") and (vague_answer(fact.span) or thin_answer(fact.span)):
        return "vague_answer"
    if fact.strategy not in HOWTO_STRATEGIES and example_answer(fact.span):
        return "example_answer"
    return None


def needs_section(fact: DocFact, leaf: str) -> str | None:
    """ "How do you reproduce a failure?" from "To reproduce a failure, pass its seed, for example `make fuzz ...`"
    under the heading `fuzz`: a task inside a command's or function's own section (`leaf`, its heading) is that
    command's task, and the question must name it."""
    code = re.fullmatch(r"`([^`]+)`(?: \{#[\w-]+\})?", leaf.strip())
    if fact.strategy != "instruction" or code is None or code.group(1).lower() in fact.question.lower():
        return None
    return "needs_section"
