"""Sentences that instruct, and how-to questions from them.

A how-to answer must tell the reader what to do, not explain: an imperative ("Use the `json` property ...",
"Pass a 2-tuple ..."), "you can / should / need to VERB ..." as the main clause ("To subscribe to a signal, you can
use the `connect()` method"), or "X lets / allows you to VERB ...". Hedges ("you might want to consider ..."),
pointers to text the reader cannot see ("the following command", "see Request instances", "the instructions
below"), light and catenative verbs ("you can have ...", "you may choose to use ...") and pronoun objects ("you
can import and remove it") do not instruct. The imperative is read by the part-of-speech tagger
(`testgen.writers.english.tagger`), the verb's base form by lemminflect. `instruction_fact` asks "How do you X?" of
the shapes of `_INSTRUCTIONS` ("To X, use Y", "Use Y to X", ...) when the answer instructs or names what to use.
"""

from __future__ import annotations

import re

from ragtest_core.text import STOPWORDS
from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.specific import task_needs_context
from testgen.writers.docs.text import LIGHT_VERBS, clean_sentence, markup_problem, pronoun_problem
from testgen.writers.english.grammar import vague_answer
from testgen.writers.english.morphology import content_lemmas, gerund_base, is_base_verb, lemmas
from testgen.writers.english.tagger import BASE_VERB, tag_words

#: Longer tasks copy more of their sentence than the question filters allow (`--max-copied-words`, 6).
MAX_TASK_WORDS = 6
#: Words that hedge, or point at what the reader of a test set cannot see.
_NOT_INSTRUCTING = re.compile(
    r"\b(?:might|perhaps|maybe|probably|consider|the following|following|below|above|previous|do so|"
    r"all you need|here|if this|this is|these are|do this|such cases|for more (?:information|details)|"
    r"(?:a|one) single line|one line|a few lines|the link|feel free|still|make sure|be sure|check out|"
    r"learn more|either (?:method|way|one|option|approach)|you control)\b|, see\b",
    re.IGNORECASE,
)
_FRONTED = re.compile(r"^(?:To|In order to|If|When|Whenever|For|Once|After|Before|Instead of|Since|While)\b")
#: What may stand between "you" and the verb: modals, "need to", "will want to", adverbs ("also", "often").
_YOU_AUX = re.compile(
    r"^you(?P<aux>(?:'ll| will| can| could| should| must| may| need to| have to| want to| also| then| now| first"
    r"| simply| just| instead| often| usually| typically| generally)*) (?P<verb>[a-z]+)(?P<rest>.*)$",
    re.IGNORECASE,
)
_YOU_LATER = re.compile(r"\byou(?='ll| will| can| could| should| must| may| need to| have to)")
#: Tags of a finite verb: after one, a sentence opening with a base verb was not an imperative ("Form data can").
_FINITE = frozenset({"VM0", "VBZ", "VBB", "VBD", "VVZ", "VVD", "VHZ", "VHD", "VDZ", "VDD"})
#: Tags a task cannot end with: a participle, a preposition, an article, a conjunction.
_OPEN_END = frozenset({"VVN", "VVD", "PRP", "PRF", "AT0", "CJC", "TO0", "AJS"})  # AJS: "run the very latest"
_CLAUSE_END = frozenset({"to", "that", "which", "who", "when", "if", "so", "because", "and", "or"})
#: A recommendation is an instruction: "it's best to set ...", "we recommend using ...".
_RECOMMEND = re.compile(
    r"\b(?:it's|it is) (?:best|recommended|advisable|a good idea) to (?P<verb>[a-z]+)(?P<rest>.*)$|"
    r"\bwe (?:recommend|suggest|advise) (?:that you )?(?P<gerund>[a-z]+)(?P<after>.*)$",
    re.IGNORECASE,
)
#: Words of a task that lean on the sentence before ("How do you even manage the pool size?", "... instead?").
_LEANING = re.compile(r"\b(?:instead|even|as well|also|too|either|again|otherwise)\b")
#: A demonstrative with a noun points at something the reader of a test set cannot see ("run this command", "in
#: those processes", "In this case").
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those) (?!is\b|are\b|was\b|were\b)[a-z]", re.IGNORECASE)
#: "You don't have to ...", "You cannot ...": what the reader need not or cannot do is no instruction.
_NEGATED = re.compile(
    r"^you(?: \w+)? (?:don't|don’t|do not|never|cannot|can't|won't|will not|shouldn't|should not|must not|"
    r"mustn't|needn't|need not)\b",
    re.IGNORECASE,
)
#: Verbs that say what not to do.
_NOT_DOING = frozenset({"avoid", "never", "refrain", "stop"})
#: "In this case it's best to ...": the case is the section's own; the recommendation stands.
_CASE = re.compile(r"^in (?:this|that|either) case,? ", re.IGNORECASE)
LETS_YOU = re.compile(r"\b(?:allows?|lets?|enables?) you (?:to )?(?P<verb>[a-z]+)\b")
_PRONOUN_END = re.compile(
    r"\b(?:it|them|this|that|one|so)\.?$|\byou (?:may|can|should|must) (?:type|run|do|write|enter|execute|call)\.?$",
    re.IGNORECASE,
)  # "..., you may type." + code: what to type is in the code
#: "this" / "these" standing for something said before ("copy and paste this in order to ...").
_PRONOUN_OBJECT = re.compile(
    r"\b(?:this|these)(?= (?:in|to|and|or|for|with|from|by|into|is|are|was|will|can|as)\b|[.,;:]|$)", re.IGNORECASE
)


def main_clause(sentence: str) -> str:
    """The clause after a fronted subordinate one ("To X, you can ..." -> "you can ..."), without an opening
    adverb ("Now you can ..." -> "you can ...")."""
    text = " ".join(sentence.split())
    if _FRONTED.match(text):
        opening = len(" ".join(text.split()[:1])) + 1  # "If you need to X, see Y": that "you" is the condition's
        later = [match.start() for match in _YOU_LATER.finditer(text) if match.start() > opening]
        if later:
            return text[later[-1] :]
        text = text.split(", ", 1)[-1]
    tokens = text.split()
    if len(tokens) > 2 and tag_words(tuple(tokens[:3]))[0] == "AV0" and not tokens[1][:1].isupper():
        text = " ".join(tokens[1:]).removeprefix(",").strip()  # not "Most Hatch environment types ...": a name
    return text


def main_verb(sentence: str) -> str:
    """The verb of an instruction's main clause, lower case: "You can also upload files ..." -> "upload", "Run an
    HTTP proxy locally:" -> "run" ("" when the clause is too short)."""
    main = main_clause(" ".join(sentence.replace("`", "").split()))
    found = _YOU_AUX.match(main)
    if found is not None:
        return found.group("verb").lower()
    return main.split()[0].lower() if len(main.split()) > 1 else ""


def instructs(sentence: str) -> bool:
    """Whether the sentence tells the reader what to do (see the module's notes)."""
    text = " ".join(sentence.replace("`", "").split()).rstrip(".!:")
    if _NOT_INSTRUCTING.search(text) or _PRONOUN_END.search(text) or _PRONOUN_OBJECT.search(text):
        return False
    if _DEMONSTRATIVE.search(_CASE.sub("", text)) or text.lower().startswith("by default"):
        return False  # "To push a branch, run this command.": which one?; "By default X is used to ...": no instruction
    main = main_clause(text)
    tokens = main.split()
    if len(tokens) < 3 or _NEGATED.match(main):
        return False
    match = _YOU_AUX.match(main)
    if match is not None:
        aux = match.group("aux").lower()
        if (" want to" in aux and not re.search(r"'ll|will", aux)) or re.search(r" (?:may|might) need to", aux):
            return False  # "you may want to ...": a hedge ("you'll want to click ..." instructs); "you may need to ..."
        if match.group("verb").lower() == "need":  # "you'll need an `AsyncClient`": a thing to use
            return not match.group("rest").lstrip().startswith(("to ", "is ", "are "))
        if match.group("rest").lower().startswith((" it ", " them ")) or match.group("verb").lower() in _NOT_DOING:
            return False  # "You can catch it like a normal KeyError": it is something said before
        return _does(match.group("verb"), match.group("rest"))
    recommended = _RECOMMEND.search(main)
    if recommended is not None:
        verb = recommended.group("verb") or gerund_base(recommended.group("gerund") or "") or ""
        return _does(verb, recommended.group("rest") or recommended.group("after") or "")
    lets = LETS_YOU.search(main)
    if lets is not None:
        return _does(lets.group("verb"), main[lets.end() :])
    return imperative(tokens)


def imperative(tokens: list[str]) -> bool:
    """Whether the clause opens with an imperative: a base verb tagged as one, with no finite verb after it in
    the same clause ("Use `pip` to install ..."; not "Form encoded data can also include ...")."""
    tagged = tag_words(tuple(tokens))
    if tagged[0] not in BASE_VERB or not _does(tokens[0], " ".join(["", *tokens[1:]])):
        return False
    if tokens[1].lower() in ("it", "them") or tokens[0].lower() in _NOT_DOING:
        return False  # "Avoid using noqa comments": what not to do answers no how-to question
    for token, tag in zip(tokens[1:], tagged[1:], strict=True):
        if token.lower() in _CLAUSE_END or token.endswith((",", ";", ":")):
            break
        if tag in _FINITE:
            return False
    return True


def _does(verb: str, rest: str) -> bool:
    """Whether `verb` + `rest` is something to do: a base verb, not a light one, not "VERB to VERB"."""
    lowered = verb.lower()
    return is_base_verb(lowered) and lowered not in LIGHT_VERBS and not rest.lstrip().startswith("to ")


#: Words an instruction uses around its means that say nothing about it.
EMPTY_WORDS = frozenset({"use", "want", "need", "instead", "also", "often", "way", "can", "will", "may"})


def adds_to(statement: str, topic_words: frozenset[str]) -> bool:
    """Whether an instruction says more than its task: code, or a content word beyond the task's own words."""
    main = main_clause(statement)
    if "`" in main:
        return True
    stems = {word[:6] for word in topic_words if len(word) >= 6}  # "constraints" says no more than "constrain"
    for word in re.findall(r"[A-Za-z][\w-]+", main.lower()):
        new = word not in STOPWORDS and len(word) > 2 and not lemmas(word) & (topic_words | EMPTY_WORDS)
        if new and not (len(word) >= 6 and word[:6] in stems):
            return True
    return False


def same_task(task: set[str] | frozenset[str], topic: set[str] | frozenset[str], strict: bool = True) -> bool:
    """Whether a sentence's own task is the heading's: a task that is the sentence's point (`strict`: "If you need
    to include non-file data fields ...") shares at least half of the heading's content words, and two of them; a
    purpose named after the means ("Use the `json` property ... to decode ...") shares one. True without them."""
    if not topic:
        return True
    shared = len(task & topic)
    return shared >= max((len(topic) + 1) // 2, min(len(topic), 2)) if strict else shared >= 1


_INSTRUCTIONS = (
    re.compile(
        r"^(?:To|In order to) (?P<task>[a-z][^,]{3,80}), (?P<how>(?:you (?:can|should|must|need to|may) )?[a-z].+)$"
    ),
    re.compile(r"^You (?:can|may)(?: also| now)? (?P<task>[a-z][^,]{3,60}?),? (?P<how>(?:using|with|through) .+)$"),
    re.compile(r"^(?P<how>.{5,60}?) (?:can be|is|are) used to (?P<task>[a-z][^,]{3,60})$"),
    re.compile(r"^(?P<how>Use .{3,60}?) to (?P<task>[a-z][^,]{3,80})$"),
    re.compile(r"^If you (?:want|need|wish|would like|'d like|’d like) to (?P<task>[a-z][^,]{3,80}), (?P<how>.+)$"),
    re.compile(r"^You can (?P<how>use .{3,60}?) to (?P<task>[a-z][^,]{3,80})$"),
    re.compile(r"^You can (?P<task>[a-z][^,]{3,60}?) (?P<how>by [a-z]{3,}ing .+)$"),
    re.compile(
        r"^The (?:recommended|best|easiest|simplest|preferred) way to (?P<task>[a-z][^,]{3,60}?) is (?P<how>.+)$"
    ),
    re.compile(r"^(?P<task>[A-Z][a-z]+ [^,]{3,60}?) (?P<how>by [a-z]{3,}ing .+)$"),
    re.compile(r"^When (?P<task>[a-z]+ing [^,]{3,60}), (?P<how>you (?:should|need to|must|can|'ll need to) .+)$"),
    re.compile(
        r"^[A-Z][\w`.()]*(?: [\w`.()]+)?,? (?:allows?|lets?) you (?:to )?(?P<task>[a-z][^,]{3,60}?) "
        r"(?P<how>by (?:passing|setting|using|calling|adding|providing|specifying) .+)$"
    ),
)
#: Instructions that name their own task but give no question of their own: "If you want to make the page change
#: you can ..." (no comma: the task's end is a guess).
_STATED_ONLY = (
    re.compile(
        r"^If you (?:want|need|wish|would like) to (?P<task>[a-z][^,]{3,80}?) (?P<how>you (?:can|should|must|need to"
        r"|may|will) .+)$"
    ),
    re.compile(r"^(?:To|In order to) (?P<task>[a-z][^,]{3,}), (?P<how>.+)$"),  # tasks of any length
    re.compile(r"^If you (?:want|need|wish|would like) to (?P<task>[a-z][^,]{3,}), (?P<how>.+)$"),
)
#: The pattern whose answer is the thing to use, not an instruction ("The `history` property ... can be used to").
_USED_TO = 2
_WHEN = 9
#: Patterns that name the means first and the task as its purpose ("Use Y to X", "You can use Y to X").
_MEANS_FIRST = frozenset({_USED_TO, 3, 5})
#: Patterns whose task slot is a verb phrase by their grammar ("To X, ...", "If you want to X, ...", "When Xing, ...").
_TASK_FIRST = frozenset({0, 4, 9})


def stated_task(sentence: str) -> tuple[str, bool] | None:
    """The task an instruction names itself ("To include cookies ..., use ..." -> "include cookies ..."), if any,
    and whether it is the sentence's main point (False where the means comes first: "Use Y to X")."""
    text = " ".join(sentence.split()).rstrip(".:")
    for number, pattern in enumerate((*_INSTRUCTIONS, *_STATED_ONLY)):
        match = pattern.match(text)
        if match is not None:
            task = _verb_phrase(match.group("task").strip())
            first = number in _TASK_FIRST or number >= len(_INSTRUCTIONS)
            stated = first or _does(task.split()[0], "")  # "To shutdown X, ...": a task all the same
            return (task, number not in _MEANS_FIRST) if stated else None
    return None


def _verb_phrase(task: str) -> str:
    """ "Mount the app ..." -> "mount the app ..."; "sending X" -> "send X"."""
    words = task.split()
    first = words[0].lower() if words[0].istitle() else words[0]
    return " ".join([gerund_base(first) or first, *words[1:]])


def instruction_fact(sentence: str) -> DocFact | None:
    """ "To enable debug mode, use the `--debug` option." -> "How do you enable debug mode?", answered "use the
    `--debug` option"."""
    text = " ".join(sentence.split()).rstrip(".:")
    found = next(((n, m) for n, pattern in enumerate(_INSTRUCTIONS) if (m := pattern.match(text))), None)
    if markup_problem(text) or found is None or found[0] == _WHEN:
        return None  # "When creating a worker, you can pass in a custom serializer": an option of the task, not how
    number, match = found
    task = _verb_phrase(match.group("task").strip())
    task_words = task.split()
    if not 2 <= len(task_words) <= MAX_TASK_WORDS or not _does(task_words[0], " ".join(["", *task_words[1:]])):
        return None
    tagged = tag_words(tuple(task_words))  # "discuss coverage.py or get help": two verb phrases, two tasks
    two = any(w.lower() in ("or", "and") and tag in BASE_VERB for w, tag in zip(task_words, tagged[1:], strict=False))
    if task_needs_context(task) or two or _LEANING.search(task):
        return None  # "How do you use the active connection mode instead?": instead of what was said before?
    if task_words[0] == "use" and " to " in task and text.lower().startswith(("you can use", "you can also use")):
        return None  # "How do you use `ProxyManager` to tunnel requests?": the question names its own means
    if tagged[-1] in _OPEN_END:
        return None  # "search PyPI for packages tagged" (with ...): the task was cut short
    how = match.group("how").strip()
    if vague_answer(how) or len(how.split()) < 3 or pronoun_problem(f"How {task}"):
        return None
    if len(how.split()) <= 4 and tag_words(tuple(how.split()))[-1] == "AV0":
        return None  # "with Flask easily": a manner, not a means
    # "The `history` property ... can be used to ...", "The Jinja sandbox can be used to ...": the thing to use;
    # "is used to" describes what a thing does, and names something to use only when it is code
    named = "`" in how or (" can be used to " in text and any(w[:1].isupper() for w in how.split()[1:]))
    thing = number == _USED_TO and named and not text.lower().startswith("by default")
    thing = thing and not _NOT_INSTRUCTING.search(text)  # "The `runner` fixture you wrote above is used to"
    if not (thing or instructs(text)) or not adds_to(how, frozenset(content_lemmas(task))):
        return None  # "Use build constraints to constrain build dependencies": the task said again
    reference = clean_sentence(sentence)
    return DocFact(f"How do you {task}?", how, reference, "instruction") if reference is not None else None
