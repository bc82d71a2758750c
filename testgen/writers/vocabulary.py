"""Word lists for the extractive question rules (English)."""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PRONOUNS = words("it its this that these those they their there he she his her we our you such")
DEICTIC = words("this that these those its their his her our such him them it us me")
AUX_WORDS = words("is are was were be been being has have had will can may would could should not")
DETERMINERS = words("the a an")
VAGUE_STARTS = words(
    """it its this that these those they them their there here he she his her we our you i such some many most
    several few other others another each both all any none one which what who when where why how however also
    in on at after before since during while although as for from by with without to of into under over
    if because though thus therefore moreover furthermore additionally despite unlike like according
    later today currently recently only even older newer earlier previous recent current"""
)

#: passive participle -> (past, present third person) of the active verb, for "Who created X?"
BY_VERBS: dict[str, tuple[str, str]] = {
    participle: (past, present)
    for participle, past, present in (
        line.split()
        for line in """created created creates; designed designed designs; developed developed develops;
        founded founded founds; invented invented invents; written wrote writes;
        maintained maintained maintains; conceived conceived conceives; proposed proposed proposes;
        discovered discovered discovers; coined coined coins; introduced introduced introduces;
        published published publishes; built built builds; acquired acquired acquires;
        described described describes; named named names; classified classified classifies;
        led led leads; funded funded funds""".replace(";", "\n").splitlines()
        if line.strip()
    )
}

#: participles that take a date: "X was released in 2008" -> "When was X released?"
DATE_VERBS: tuple[str, ...] = tuple(
    sorted(
        words(
            """released introduced launched founded published established created developed designed invented
    formed built opened announced discovered completed conceived adopted standardized standardised deprecated
    discontinued added removed renamed born described implemented elected acquired"""
        )
    )
)

#: participles that take a place: "X is located in Y" -> "Where is X located?"
PLACE_VERBS: tuple[str, ...] = ("located", "based", "headquartered", "found", "situated", "distributed")

_PRESENT = words(
    """use support include provide offer contain require emphasize feature implement produce eat hunt
    inhabit replace allow prefer"""
)
_PAST = words(
    """use support include provide offer contain require emphasize feature implement produce replace
    introduce influence inspire"""
)
_PLURAL = words("use support include provide offer contain require produce eat hunt inhabit prefer")

#: active verb as written -> (do-form, base form): "Python uses X" -> "What does Python use?"
OBJECT_VERBS: dict[str, tuple[str, str]] = {
    **{f"{v}s": ("does", v) for v in _PRESENT},
    **{(f"{v}d" if v.endswith("e") else f"{v}ed"): ("did", v) for v in _PAST},
    **{v: ("do", v) for v in _PLURAL},
    "feeds on": ("does", "feed on"),
    "feed on": ("do", "feed on"),
    "fed on": ("did", "feed on"),
    "consists of": ("does", "consist of"),
    "derives from": ("does", "derive from"),
    "comes from": ("does", "come from"),
}
