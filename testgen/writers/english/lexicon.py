"""English word lists for the offline writer: small closed classes, and the verbs with their forms.

The clause parser finds a sentence's main verb by looking its words up in `FORMS` (`testgen.writers.english.clause`),
so the lists name the verbs that encyclopedic text uses for facts worth asking about, grouped by the question they
support; their inflected forms come from lemminflect (`morphology.inflections`).
"""

from __future__ import annotations

from dataclasses import dataclass

from testgen.writers.english.morphology import inflections


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def phrases(text: str) -> tuple[str, ...]:
    """Phrases separated by "|" (line breaks and indentation around them ignored), in order."""
    return tuple(phrase.strip() for phrase in text.split("|"))


PRONOUNS = words("it its this that these those they them their there he she his her we our you i such one")
DEICTIC = words("this that these those its their his her our such him them it us me they he she")
DETERMINERS = words("the a an")
#: Words that join a sentence to the one before or open a subordinate clause: never a subject's first word
#: ("Otherwise X is ...", "Because SQLite's `LIKE` ...", "E.g. skipif marks ...").
JOINING_WORDS = words(
    "otherwise because although though whereas however thus hence therefore since unless e.g. i.e. eg. ie."
)
POSSESSIVES = words("its their his her our my your")
AUX_BE = words("is are was were")
MODALS = words("can could may might will would should must")
VAGUE_HEADS = words(
    """it its this that these those they them their there here he she his her we our you i such some many most
    several few other others another each both all any none one which what who when where why how however also
    if because though thus therefore moreover furthermore additionally despite unlike like according although
    later today currently recently only even earlier previous recent current older newer both either neither
    while whereas once instead rather similarly likewise meanwhile nevertheless nonetheless overall still yet so"""
)
#: Discourse markers that open a sentence before its subject ("However, X is ..."), tried in this order.
DISCOURSE = phrases(
    """However|In addition|Additionally|Also|Today|Currently|Moreover|Furthermore|Historically|Generally|Typically|
    Notably|Overall|In general|In particular|In practice|As a result|Consequently|Similarly|Traditionally|Usually|
    Nowadays|Originally|Initially|Eventually|Subsequently"""
)
#: Nouns that name no particular thing on their own ("a powerful mechanism", "support for functionality").
GENERIC_NOUNS = words(
    """mechanism mechanisms way ways feature features functionality functionalities support thing things approach
    approaches stuff capability capabilities information tool tools interface interfaces"""
)
#: creation verbs and the noun for their agent: "X designed Y" makes X "the designer of Y".
AGENT_NOUNS = {
    "created": "creator",
    "designed": "designer",
    "developed": "developer",
    "founded": "founder",
    "invented": "inventor",
    "wrote": "author",
    "conceived": "creator",
    "coined": "coiner",
    "discovered": "discoverer",
    "published": "publisher",
}
#: nouns naming people: "the creator of X" is asked with "Who".
PERSON_NOUNS = words(
    """creator designer developer founder inventor author writer president ceo leader director chairman father
    mother head manager chief founders inventors authors scientist researcher professor king queen emperor
    minister mascot"""
)

#: creation verbs: "X was created by Y" -> "Who created X?"; "Y created X" -> "Who created X?".
CREATION = words(
    """create design develop found invent write coin propose discover introduce publish build acquire release
    launch establish describe name classify lead fund maintain conceive compose direct pioneer popularize
    popularise formalize define patent announce sponsor form"""
)
#: verbs that take a date: "X was released in 2008" -> "When was X released?"
DATED = CREATION | words(
    """open complete adopt standardize standardise deprecate discontinue add remove rename elect begin start end
    sign win list ban protect recognize approve return reach become replace retire merge close shut confirm
    record observe extinct extirpate reintroduce introduce hold award grant invent demonstrate buy join file sue"""
)
#: verbs whose object is a clean answer: "Polar bears hunt seals" -> "What do polar bears hunt?"
CONTENT = words(
    """eat hunt inhabit replace influence inspire prefer consume kill attack dominate resemble outnumber predict
    defeat beat surpass outperform threaten excavate dig scavenge catch target experience prevent follow guard defend
    detect exhibit possess display avoid lack favour favor raise nurse mimic imitate accumulate store mark"""
)
#: composition verbs, asked only with a specific subject: "What do the goals of AI research include?"
COMPOSITION = words("include contain comprise")
#: light verbs asked only with a purpose complement: "What does Python use for exponentiation?"
PURPOSE = words("use support provide offer require implement employ allow enable need adopt feature produce add")
#: intransitive verbs of place: "Brown bears live in forests" -> "Where do brown bears live?"
PLACE = words(
    "live occur breed den hibernate roam nest reside originate evolve survive thrive migrate range stay remain rest "
    "gather congregate forage settle spawn winter"
)
#: measure verbs with their question: "weigh 300 kg" -> "How much ... weigh?"
MEASURE = {"weigh": "How much", "live": "How long", "last": "How long", "measure": "How long", "grow": "How big"}
#: verbs followed by a preposition that belongs to them: "feeds on", "consists of".
PHRASAL = {
    "feed": "on",
    "prey": "on",
    "consist": "of",
    "derive": "from",
    "come": "from",
    "rely": "on",
    "depend": "on",
    "belong": "to",
    "refer": "to",
    "compete": "with",
    "differ": "from",
}
#: participles after "is/are" that take a place: "X is found in Y".
PLACE_PARTICIPLES = words("found located based headquartered situated distributed present common widespread endemic")
#: participles after "is/are" that take "as": "X is classified as Y" -> "How is X classified?"
AS_PARTICIPLES = words("classified listed regarded considered described recognized recognised designated known")

#: "a total of", "an average of", "a period of": quantities, not attributes of the subject.
NOT_ATTRIBUTES = words(
    "total average number maximum minimum mean range series couple lot set group pair variety handful period amount"
    " time"
)
#: "The brown bear is depicted on the reverse of the 5-kuna coin" -> "Where is the brown bear depicted?"
DEPICTION_PARTICIPLES = words("depicted featured pictured portrayed displayed shown painted")
#: "Polar bears were harvested for the fur" -> "What were polar bears harvested for?"; "for" after other participles
#: is too often "in the field of" ("superseded for ASR by LSTM").
FOR_PARTICIPLES = words(
    "hunted harvested killed valued prized kept bred sold traded known noted praised criticized criticised filmed"
    " awarded famed"
)
#: "The desktop version was renamed J2SE" -> "What was the desktop version renamed?"
NAMING_PARTICIPLES = words("renamed called named nicknamed dubbed codenamed titled")
#: "X is considered to be Y" -> "What is X considered to be?"
OPINION_PARTICIPLES = words("considered thought believed regarded said known estimated")

#: verbs known only so that the subject ends before them (no question uses them).
OTHER = words(
    """receive show tend seem appear remain follow contribute depict play help say suggest argue claim estimate
    report consider believe cite call convert omit mark deploy emit accept cause reduce increase improve represent
    express execute compile translate generate perform achieve learn train solve process gain lose identify detect
    recognize observe keep mean serve work act determine affect face lack pose raise share reflect indicate
    involve provide require allow enable emphasize characterize dominate decline vary depend rely shift stand
    control drop fall find give know make outrun plan rise run see sell spread stop swim take"""
)
ALL_VERBS = CREATION | DATED | CONTENT | COMPOSITION | PURPOSE | PLACE | OTHER | frozenset(MEASURE) | frozenset(PHRASAL)
#: adjectives after "is/are" that take a preposition: "X is compatible with Y" -> "What is X compatible with?"
PREP_ADJECTIVES = words(
    """compatible available similar related equivalent responsible immune susceptible vulnerable famous popular
    common dependent capable prone sensitive resistant limited specific unique closely suitable essential
    necessary important useful critical central prevalent abundant adapted endemic rich"""
)


@dataclass(frozen=True)
class VerbForm:
    """One inflected form: its base and what it is ('pres3', 'pres', 'past', 'part' or 'past_part')."""

    base: str
    tense: str
    text: str = ""  # the form as written, for participles the lexicon does not know (base "")


def inflect(base: str) -> tuple[str, str, str]:
    """(third person, past, participle) of an English verb, as lemminflect writes them ("keep" -> keeps, kept,
    kept)."""
    third, past, participle = (inflections(base, tag)[0] for tag in ("VBZ", "VBD", "VBN"))
    return third, past, participle


def _index() -> dict[str, VerbForm]:
    forms: dict[str, VerbForm] = {}
    for base in sorted(ALL_VERBS):
        third, past, participle = inflect(base)
        forms.setdefault(base, VerbForm(base, "pres"))
        forms[third] = VerbForm(base, "pres3")
        forms[past] = VerbForm(base, "past_part" if past == participle else "past")
        forms.setdefault(participle, VerbForm(base, "part"))
    forms["born"] = VerbForm("bear", "part")  # "bear" itself is too often the animal to be a verb form
    return forms


FORMS: dict[str, VerbForm] = _index()
