"""Rules that turn a parsed English clause into wh-questions whose answers are spans of the sentence.

Each rule returns zero or more `Turned` (question, answer, rule name); `patterns.turn_all` checks them
(word limit, specificity, answer is a span) and keeps the good ones in rule order.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ragtest_core.text import STOPWORDS, content_tokens
from testgen.writers.base import Turned
from testgen.writers.english.clause import DATE, Casing, Clause, Skip
from testgen.writers.english.lexicon import (
    AS_PARTICIPLES,
    AUX_BE,
    COMPOSITION,
    CONTENT,
    CREATION,
    DATED,
    DEPICTION_PARTICIPLES,
    FOR_PARTICIPLES,
    FORMS,
    LISTS,
    MEASURE,
    MODALS,
    NAMING_PARTICIPLES,
    NOT_ATTRIBUTES,
    OPINION_PARTICIPLES,
    PERSON_NOUNS,
    PHRASAL,
    PLACE,
    PLACE_PARTICIPLES,
    PREP_ADJECTIVES,
    PURPOSE,
    inflect,
    phrases,
    words,
)
from testgen.writers.sentences.spans import (
    AMOUNT,
    ATTRIBUTE,
    COUNT,
    LENGTH_UNITS,
    WITH_ATTRIBUTE,
    clip,
    place_answer,
    short_object,
    split_object,
)

#: "Polar bears will scavenge at garbage dumps": a verb used without an object; not asked with "What". The second
#: half: a past participle read as a past tense ("The raw decoder used here supports ...", "The Access Control List
#: used when storing items ...", "Python bindings implemented using pybind11"): no object follows it.
_OBJECT_NOT_START = words(LISTS["rules.OBJECT_NOT_START"])
#: "X is the result of Y": asked as "What is X the result of?" (not "What is X?").
RELATIONAL_HEADS = "result|cause|consequence|effect|reason|source|outcome|product|basis|origin"
_PASSIVE_PREPS = phrases(LISTS["rules.PASSIVE_PREPS"])
#: Participle and preposition pairs asked with their own words ("Where is X used?", "Who is X named after?").
_ASKED_PAIRS = {"used in": "Where {be} {subject} used?", "named after": "Who {be} {subject} named after?"}
_TIME_UNITS = words("years months weeks days hours minutes")
_IRREGULAR_PLURALS = frozenset(["teeth", "feet", "people", "children", "mice", "men", "women", "geese", "data"])


Rule = Callable[[Clause, Casing], list[Turned]]


def do_form(clause: Clause) -> str:
    return "did" if clause.past else "do" if clause.plural else "does"


def be_form(clause: Clause) -> str:
    if clause.aux in AUX_BE:
        return str(clause.aux)
    past = clause.past or (clause.aux in ("had", "has", "have") and clause.passive)
    return ("were" if past else "are") if clause.plural else ("was" if past else "is")


def rule_passive(clause: Clause, casing: Casing) -> list[Turned]:
    if not clause.passive or clause.verb is None or clause.aux in MODALS:
        return []
    base, subject, rest, be = clause.verb.base, clause.subject, clause.rest, be_form(clause)
    participle = inflect(base)[2] if base else clause.verb.text
    out: list[Turned] = []
    agent = re.match(
        r"^(?:[\w'’-]+ ){0,5}?by (?P<agent>(?:the )?[A-Z][\w.'’&-]*(?: (?:[A-Z][\w.'’&-]*|van|von|de))*)", rest
    )
    if agent and base in CREATION | DATED and casing.is_name(agent.group("agent").removeprefix("the ")):
        third, past, _ = inflect(base)
        verb = past if be in ("was", "were") else (base if clause.plural else third)
        wh = "What" if agent.group("agent").startswith("the ") else "Who"  # "by the MRO": a thing, not a person
        out.append(Turned(f"{wh} {verb} {subject}?", agent.group("agent"), "passive_by"))
    date = re.match(rf"^(?:[\w'’-]+ ){{0,6}}?(?:in|on|around|during) (?P<date>{DATE})", rest)
    when = date.group("date") if date else (_date_of(clause, None, "") if base in DATED else None)
    if when and be in ("was", "were"):
        goal = re.match(r"^(?:to|into|onto|from) (?:the |a |an )?[\w.+#-]+(?: [\w.+#-]+){0,3}?(?= in | on |,|$)", rest)
        question = f"When {be} {subject} {participle}?"
        if goal and not re.search(r"\d", goal.group()) and len(question.split()) + len(goal.group().split()) <= 10:
            question = f"{question[:-1]} {goal.group()}?"  # "When were generics added to the Java language?"
        out.append(Turned(question, when, "passive_date"))
    if participle in NAMING_PARTICIPLES and rest[:1].isupper():
        name = re.match(r"^[A-Z][\w.'’+#-]*(?: [A-Z0-9][\w.'’+#-]*){0,3}", rest)
        if name and casing.is_name(name.group()) and rest[name.end() :][:1] in ("", ",", " "):
            out.append(Turned(f"What {be} {subject} {participle}?", name.group(), "naming"))
    if participle in PLACE_PARTICIPLES and re.match(r"^(?:mainly |mostly |primarily )?(?:in|throughout|across) ", rest):
        place = rest.split(" ", 2 if rest.startswith(("mainly", "mostly", "primarily")) else 1)[-1]
        out.append(Turned(f"Where {be} {subject} {participle}?", place_answer(place), "place"))
    if participle in OPINION_PARTICIPLES and rest.startswith("to be ") and not rest.startswith("to be the "):
        opinion = rest[6:]
        one_of = "one of the " if opinion.startswith("one of the ") else ""
        answer = one_of + clip(opinion[len(one_of) :])
        out.append(Turned(f"What {be} {subject} {participle} to be?", answer, "considered"))
    preposition, _, tail = rest.partition(" ")
    if participle in AS_PARTICIPLES and preposition == "as" and tail:
        question = f"What {be} {subject} known as?" if participle == "known" else f"How {be} {subject} {participle}?"
        out.append(Turned(question, clip(tail), "known_as"))
    pair = f"{participle} {preposition}"
    fixed = _ASKED_PAIRS.get(pair, "What {be} {subject} " + pair + "?" if pair in _PASSIVE_PREPS else None)
    if fixed is None and preposition == "for" and participle in FOR_PARTICIPLES and _is_reason(tail):
        fixed = "What {be} {subject} " + participle + " for?"  # "Polar bears were harvested for the fur, meat ..."
    if participle in DEPICTION_PARTICIPLES and preposition in ("on", "in") and tail.startswith(("the ", "a ")):
        out.append(Turned(f"Where {be} {subject} {participle}?", clip(tail), "place"))
    if fixed and tail and not (preposition == "in" and re.match(r"^\d", tail)):
        answer = clip(tail)
        if fixed.startswith("Who") and not answer[:1].isupper():
            fixed = fixed.replace("Who", "What", 1)
        out.append(Turned(fixed.format(be=be, subject=subject), answer, "passive_prep"))
    return out


def _is_reason(tail: str) -> bool:
    """ "for the fur, meat and fat", "for its speed": a thing; not a duration ("for millennia", "for 20 years")."""
    first = tail.split(" ", 1)[0].lower()
    return (
        bool(first)
        and first not in ("a", "an", "over", "about", "up", "at", "several", "many", "some", "long", "decades")
        and not first[:1].isdigit()
        and not re.match(
            r"^(?:the )?(?:\w+ )?(?:years?|months?|weeks?|days?|hours?|centuries|millennia|decades?|time)\b", tail
        )
    )


def rule_copula(clause: Clause, casing: Casing) -> list[Turned]:
    if clause.aux not in AUX_BE or clause.verb is not None:
        return []
    subject, rest, be = clause.subject, clause.rest, str(clause.aux)
    out: list[Turned] = []
    measure = re.match(rf"^{AMOUNT} (?P<adj>long|tall|wide|high|deep|heavy|old)\b", rest)
    if measure:
        return [Turned(f"How {measure.group('adj')} {be} {subject}?", measure.group("amount"), "measure")]
    if rest.startswith("native to "):
        out.append(Turned(f"Where {be} {subject} native to?", place_answer(rest[10:]), "copula_prep"))
    adjective = re.match(
        r"^(?:(?:closely|very|highly|widely|especially|particularly|most|also) )?(?P<adj>[a-z]+) "
        r"(?P<prep>with|for|to|of|from|on|in) (?P<np>.+)$",
        rest,
    )
    if adjective and (adjective.group("adj") in PREP_ADJECTIVES or rest.startswith("home to ")):
        question = f"What {be} {subject} {adjective.group('adj')} {adjective.group('prep')}?"
        out.append(Turned(question, clip(adjective.group("np")), "copula_prep"))
    if not re.match(r"^(?:a|an|the|one of the|one of) ", rest):
        return out
    description = clip(rest)
    if _is_identifying(description) and casing.is_name(clause.subject_as_written):
        head = re.split(r" (?:of|in|for|to|at|on)\b", description)[0].split()[-1].lower()
        wh = "Who" if head in PERSON_NOUNS else "What"
        out.append(Turned(f"{wh} {be} {description}?", clause.subject_as_written, "identity"))
    written = clause.subject_as_written
    if (casing.is_name(written) or re.search(r"\d", written) or content_tokens(subject)) and not _ROLE.match(rest):
        out.append(Turned(f"What {be} {subject}?", description, "definition"))
    relation = re.match(rf"^the (?P<head>{RELATIONAL_HEADS}) of (?P<what>.+)$", description)
    if relation:  # "X is the result of Y" -> "What is X the result of?"
        question = f"What {be} {subject} the {relation.group('head')} of?"
        out.append(Turned(question, clip(relation.group("what")), "relation"))
    return out


def _is_identifying(description: str) -> bool:
    """A definite description that names one thing: "the reference implementation of Python"."""
    words = description.split()
    if words[0] != "the" or len(words) > 8 or len(words) < 3:
        return False
    return " of " in description or bool(re.search(r"\b(?:\w+est|most|first|only|main|official)\b", description))


#: "MDX is the default output ...": the part something plays, not what it is (no "What is MDX?").
_ROLE = re.compile(
    r"^the (?:default|main|only|first|last|recommended|preferred|current|latest|same|primary|standard|usual|"
    r"simplest|easiest|best|fastest|next|previous)\b"
)


def rule_have(clause: Clause, casing: Casing) -> list[Turned]:
    if clause.aux not in ("has", "have", "had") or clause.verb is not None or clause.passive:
        return []
    match = re.match(rf"^{COUNT} (?P<noun>[a-z][\w-]*)\b", clause.rest)
    if not match or not (match.group("noun").endswith("s") or match.group("noun") in _IRREGULAR_PLURALS):
        return []
    noun = match.group("noun")
    return [Turned(f"How many {noun} {do_form(clause)} {clause.subject} have?", match.group("count"), "count")]


def rule_attribute(clause: Clause, casing: Casing) -> list[Turned]:
    """ "X has a shoulder height of 70 to 153 cm" / "X ..., with an average lifespan of 25 years"
    -> "What is the shoulder height of X?"."""
    has = clause.aux in ("has", "have", "had") and clause.verb is None and not clause.passive
    found = ATTRIBUTE.match(clause.rest) if has else None
    if clause.aux in AUX_BE and clause.verb is None:  # "X is a long-lived animal, with ...": the with-phrase is X's
        found = found or WITH_ATTRIBUTE.match(clause.rest)
    if found is None or found.group("attr").split()[-1] in NOT_ATTRIBUTES:
        return []
    question = f"What {'was' if clause.past else 'is'} the {found.group('attr')} of {clause.subject}?"
    return [Turned(question, found.group("value").strip(), "attribute")]


def rule_measure(clause: Clause, casing: Casing) -> list[Turned]:
    if clause.verb is None or clause.passive:
        return []
    base = clause.verb.base
    rest = re.sub(
        r"^(?:to |for |an average of |on average |between |at (?:estimated |top |maximum )?speeds? of )",
        "",
        clause.rest,
    )
    match = re.match(rf"^{AMOUNT}", rest)
    if (base not in MEASURE and base not in ("reach", "grow", "run", "swim")) or not match:
        return []
    unit = match.group("unit")
    if base in ("reach", "grow", "measure"):
        how, base, fits = "How tall" if "tall" in rest.split()[:4] else "How long", "grow", unit in LENGTH_UNITS
    elif base in ("run", "swim"):
        how, fits = "How fast", unit in ("km/h", "mph")
    else:  # weigh, live, last
        how = MEASURE[base]
        fits = unit not in LENGTH_UNITS if base == "weigh" else unit in _TIME_UNITS
    if not fits:
        return []
    lead = clause.aux if clause.aux in MODALS else do_form(clause)
    return [Turned(f"{how} {lead} {clause.subject} {base}?", match.group("amount"), "measure")]


def rule_active(clause: Clause, casing: Casing) -> list[Turned]:
    if clause.verb is None or clause.passive or (clause.aux is not None and clause.aux not in MODALS):
        return []
    base, subject, rest, do = clause.verb.base, clause.subject, clause.rest, clause.aux or do_form(clause)
    if clause.aux is not None and base not in CONTENT and base not in PHRASAL and base not in PLACE:
        return []  # "X can eat Y" -> "What can X eat?"; other verbs after a modal are too loose to ask about
    if base in PHRASAL and rest.startswith(PHRASAL[base] + " "):
        obj = split_object(rest[len(PHRASAL[base]) + 1 :])[0]
        return [Turned(f"What {do} {subject} {base} {PHRASAL[base]}?", clip(obj), "phrasal")]
    if base in PLACE:
        place = re.match(r"^(?:mainly |mostly |primarily |only )?(?:in|throughout|across) (?P<place>.+)$", rest)
        return [Turned(f"Where {do} {subject} {base}?", place_answer(place.group("place")), "place")] if place else []
    out: list[Turned] = []
    obj_text, prep, tail = split_object(rest)
    date = _date_of(clause, prep, tail)
    if date and clause.past and base in DATED and obj_text.split(" ", 1)[0] not in _OBJECT_NOT_START | {"and"}:
        try:
            out.append(Turned(f"When did {subject} {base} {short_object(obj_text)}?", date, "active_date"))
        except Skip:
            out.append(Turned(f"What did {subject} {base} in {date}?", clip(obj_text, keep_list=False), "what_date"))
    person = not re.search(r"\d", clause.subject_as_written)  # "Python 3.3 introduced PEP 420 ...": no one
    if base in CREATION and clause.past and person and casing.is_name(clause.subject_as_written):
        obj = short_object(obj_text, 6)
        if casing.is_name(obj) or len(content_tokens(obj)) >= 2:
            out.append(Turned(f"Who {inflect(base)[1]} {obj}?", clause.subject_as_written, "creator"))
    if (base in CONTENT or (base in COMPOSITION | PURPOSE and len(content_tokens(subject)) >= 2)) and (
        obj_text.split(" ", 1)[0] not in _OBJECT_NOT_START or obj_text.startswith(("at least ", "at most "))
    ):
        out.append(Turned(f"What {do} {subject} {base}?", clip(obj_text if base in CONTENT else rest), "object"))
    if base in PURPOSE and prep == "as" and re.match(r"^(?:the|a|an) [a-z][\w-]*(?: [a-z][\w-]*)?$", tail):
        question = f"What {do} {subject} {base} as {tail}?"  # "HotSpot uses G1GC as the default"
        out.append(Turned(question, clip(obj_text, keep_list=False), "purpose"))
    if base in PURPOSE and prep in ("for", "to") and tail:
        cut = re.search(r" (?:in|on|at|by|with|from|and|or|as|into|of the)\b|[,;]", tail)
        if cut is not None and cut.group(0) in (" and", " or"):
            return out  # "to expose the .template and .context attributes": the goal's object is coordinated
        goal = (tail[: cut.start()] if cut else tail).strip()
        first = goal.split()[0].lower() if goal else ""
        verb_ok = prep == "for" or (first != "be" and _looks_like_base_verb(first))
        shortest = 2 if prep == "to" else 1  # "to parse" (and generate headers): the goal was cut from its object
        if verb_ok and shortest <= len(goal.split()) <= 3 and goal.split()[-1].lower() not in STOPWORDS:
            question = f"What {do} {subject} {base} {prep} {goal}?"
            out.append(Turned(question, clip(obj_text, keep_list=False), "purpose"))
    return out


def _looks_like_base_verb(word: str) -> bool:
    form = FORMS.get(word)
    if form is not None:
        return form.tense == "pres"
    return word.isalpha() and word.islower() and word not in STOPWORDS and not word.endswith(("s", "ed", "ing", "ly"))


def _date_of(clause: Clause, prep: str | None, tail: str) -> str | None:
    if clause.fronted and re.fullmatch(DATE, clause.fronted[1]) and clause.fronted[0] in ("In", "On"):
        return clause.fronted[1]
    if prep in ("in", "on") and (match := re.match(rf"^(?P<date>{DATE})", tail)):
        return match.group("date")
    return None


RULES: tuple[Rule, ...] = (rule_passive, rule_copula, rule_have, rule_attribute, rule_measure, rule_active)
