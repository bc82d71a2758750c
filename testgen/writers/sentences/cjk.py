"""A few honest question patterns for Chinese and Japanese sentences; everything else is skipped.

Chinese "X是Y。" -> "什么是X？" (answer Y) and "X由Y发明。" -> "X由谁发明？" (answer Y). Japanese "XはYである。" /
"XはYです。" -> "Xとは何ですか？" (answer Y). Parenthesised glosses are dropped first; the answer is always a span
of the sentence; subjects that are pronouns or demonstratives are skipped.
"""

from __future__ import annotations

import re

from testgen.writers.base import Turned
from testgen.writers.english.clause import Skip

CJK_PAREN = re.compile(r"[（(][^（()）]*[)）]|〔[^〕]*〕")
_TERM = r"[\u4e00-\u9fff\u30a0-\u30ffA-Za-z0-9・/+\-]{2,12}"
_ZH_PRONOUN = re.compile(
    r"^(?:这|這|那|它|他|她|其|此|该|該|本|另|一|每|各|有|但|而|因|所以|其中|最|如果|通常|不管|由于|由於|以上|所谓|所謂"
    r"|根据|根據|例如|介绍|介紹|比如)"
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


_MARKDOWN = re.compile(r"^(?:[-*+]\s+|\d+[.、)]\s*|#+\s*)+|\*\*|__")
#: "**答案相关性评估**：使用大语言模型……" (a term, a full-width colon, what it is): a glossary line.
_ZH_GLOSS = re.compile(
    r"^(?P<x>[\u4e00-\u9fffA-Za-z0-9]{1,10}(?:评估|評估|指标|指標|方法|模型|能力|框架|算法|演算法|机制|機制|技术|技術|模块|模組))"
    r"[：:](?P<y>[^：:。]{4,60})。$"
)
_JA_AGENT = re.compile(
    r"^(?P<x>[^、。はがを「」]{2,24})は、?(?:\d{3,4}年、?)?(?P<y>[^。はが「」、]{2,16}?)(?:を|の)"
    r"(?P<v>製作|構築|作り出|開発|発表|発明|提唱|設立|創設|提案|設計|発見|考案|開発を行|研究を行)(?:し|っ)た。$"
)
_JA_CALLED = re.compile(r"^(?P<x>[^、。はが「」]{2,12})は、?(?P<y>[^。はが]{2,30}?)と(?:も)?呼ばれ(?:る|ている|た)。$")
#: Characters written only in Traditional Chinese (their Simplified forms differ): a text with many is Traditional.
_TRADITIONAL = frozenset("這們個與為於說對時會來學國體問題關評檢點實種應資變發經過後開產務個們麼讓從並將還")


def strip_markdown(text: str) -> str:
    """The line without list markers and bold marks ("2. **X**：Y" -> "X：Y")."""
    return _MARKDOWN.sub("", text.strip()).strip()


def turn_cjk(sentence: str, language: str) -> list[Turned]:
    """Questions for a Chinese ("zh") or Japanese ("ja") sentence; raises Skip when no pattern fits.

    Markdown list markers and bold marks are dropped first (blog posts are written in it); Traditional Chinese
    text gets Traditional question words (什麼是, 由誰)."""
    text = strip_markdown(sentence)
    if not text.endswith(("。", "．")):
        raise Skip("fragment")
    body = CJK_PAREN.sub("", text)
    if re.search(r"[=\[\]|{}<>]|https?:|time=", body):
        raise Skip("markup")
    return _chinese(body, text) if language == "zh" else _japanese(body, text)


def _chinese(body: str, original: str) -> list[Turned]:
    out: list[Turned] = []
    traditional = sum(1 for ch in original if ch in _TRADITIONAL) >= 2
    what, who = ("什麼是", "由誰") if traditional else ("什么是", "由谁")
    agent = _ZH_AGENT.match(body)
    if agent and not _ZH_PRONOUN.search(agent.group("x")):
        out.append(Turned(f"{agent.group('x')}{who}{agent.group('v')}？", agent.group("y"), "zh_agent"))
    definition = _ZH_DEFINITION.match(body)
    if definition and not _ZH_PRONOUN.search(definition.group("x")):
        answer = definition.group("y")
        if not re.match(r"^(?:否|不|在|为|為|指|如|因|由|对|對|从|從|说|說)", answer) and not answer.endswith("的"):
            out.append(Turned(f"{what}{definition.group('x')}？", answer, "zh_definition"))
    gloss = _ZH_GLOSS.match(original)
    if gloss and not out and not _ZH_PRONOUN.search(gloss.group("x")):
        out.append(Turned(f"{what}{gloss.group('x')}？", gloss.group("y"), "zh_gloss"))
    kept = [t for t in out if t.answer in original]
    if not kept:
        raise Skip("no_pattern")
    return kept


def _japanese(body: str, original: str) -> list[Turned]:
    agent = _JA_AGENT.match(body)
    if agent and not _JA_PRONOUN.match(agent.group("x")) and agent.group("x") in original:
        verb = agent.group("v").removesuffix("を行")
        particle, tail = ("の", f"{verb}を行った") if agent.group("v").endswith("を行") else ("を", f"{verb}した")
        return [Turned(f"{agent.group('y')}{particle}{tail}のは誰ですか？", agent.group("x"), "ja_agent")]
    called = _JA_CALLED.match(body)
    if called and not _JA_PRONOUN.match(called.group("x")) and called.group("y") in original:
        return [Turned(f"{called.group('x')}は何と呼ばれていますか？", called.group("y"), "ja_called")]
    match = _JA_DEFINITION.match(original) or _JA_DEFINITION.match(body)
    if not match or _JA_PRONOUN.match(match.group("x")) or match.group("y") not in original or "は" in match.group("y"):
        raise Skip("no_pattern")
    if re.search(r"(?:ない|ません)$", match.group("y")):
        raise Skip("negation")
    return [Turned(f"{match.group('x')}とは何ですか？", match.group("y"), "ja_definition")]
