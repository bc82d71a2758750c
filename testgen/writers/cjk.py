"""A few honest question patterns for Chinese and Japanese sentences; everything else is skipped.

Chinese "X是Y。" -> "什么是X？" (answer Y) and "X由Y发明。" -> "X由谁发明？" (answer Y). Japanese "XはYである。" /
"XはYです。" -> "Xとは何ですか？" (answer Y). Parenthesised glosses are dropped first; the answer is always a span
of the sentence; subjects that are pronouns or demonstratives are skipped.
"""

from __future__ import annotations

import re

from testgen.writers.clause import Skip
from testgen.writers.rules import Turned

_PAREN = re.compile(r"[（(][^（()）]*[)）]|〔[^〕]*〕")
_TERM = r"[\u4e00-\u9fff\u30a0-\u30ffA-Za-z0-9・/+\-]{2,12}"
_ZH_PRONOUN = re.compile(
    r"^(?:这|這|那|它|他|她|其|此|该|該|本|另|一|每|各|有|但|而|因|所以|其中|最|如果|通常|不管|由于|由於|以上|所谓|所謂)"
    r"|的|都|指|也|就|其实|其實|可以|如何|已经|已經"
)
_JA_PRONOUN = re.compile(r"^(?:これ|それ|あれ|この|その|あの|彼|彼女|ここ|そこ|同|本|次|以下|上記|前者|後者)")
_ZH_DEFINITION = re.compile(rf"^(?P<x>{_TERM})(?:也)?是(?P<y>[^，,。；;：:！？「」“”]{{2,30}})")
_ZH_AGENT = re.compile(
    rf"^(?P<x>{_TERM})(?:是|最早|最初)?由(?P<y>[^，,。；;由]{{2,15}}?)(?P<v>发明|發明|开发|開發|提出|设计|設計|创立|創立|建立|编写|編寫)"
)
_JA_DEFINITION = re.compile(
    r"^(?:[^、。]*、)?(?P<x>[A-Za-z0-9\u30a0-\u30ff\u4e00-\u9fff・]{2,12}|[^、。はがをにでと「」]{2,12})(?:と)?は、?"
    r"(?P<y>[^。「」『』]{2,60}?)(?:である|です|だ|のことである|のことです)。$"
)


def turn_cjk(sentence: str, language: str) -> list[Turned]:
    """Questions for a Chinese ("zh") or Japanese ("ja") sentence; raises Skip when no pattern fits."""
    text = sentence.strip()
    if not text.endswith(("。", "．")):
        raise Skip("fragment")
    body = _PAREN.sub("", text)
    if re.search(r"[=\[\]|{}<>]|https?:|time=", body):
        raise Skip("markup")
    if language == "zh":
        return _chinese(body, text)
    if language == "ja":
        return _japanese(body, text)
    raise Skip("unsupported_language")


def _chinese(body: str, original: str) -> list[Turned]:
    out: list[Turned] = []
    agent = _ZH_AGENT.match(body)
    if agent and not _ZH_PRONOUN.search(agent.group("x")):
        out.append(Turned(f"{agent.group('x')}由谁{agent.group('v')}？", agent.group("y"), "zh_agent"))
    definition = _ZH_DEFINITION.match(body)
    if definition and not _ZH_PRONOUN.search(definition.group("x")):
        answer = definition.group("y")
        if not re.match(r"^(?:否|不|在|为|為|指|如|因|由|对|對|从|從|说|說)", answer) and not answer.endswith("的"):
            out.append(Turned(f"什么是{definition.group('x')}？", answer, "zh_definition"))
    kept = [t for t in out if t.answer in original]
    if not kept:
        raise Skip("no_pattern")
    return kept


def _japanese(body: str, original: str) -> list[Turned]:
    match = _JA_DEFINITION.match(original) or _JA_DEFINITION.match(body)
    if not match or _JA_PRONOUN.match(match.group("x")) or match.group("y") not in original or "は" in match.group("y"):
        raise Skip("no_pattern")
    if re.search(r"(?:ない|ません)$", match.group("y")):
        raise Skip("negation")
    return [Turned(f"{match.group('x')}とは何ですか？", match.group("y"), "ja_definition")]
