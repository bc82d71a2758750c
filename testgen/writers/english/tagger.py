"""Part-of-speech tags for short English texts from HanTa (the Hanover Tagger: a maintained HMM tagger whose
English model, trained on the British National Corpus with CLAWS C5 tags, ships inside its PyPI wheel; no model
to download, pure Python, LGPL-3.0-or-later).

The documentation writer asks it what a heading is ("Install Flask": VVB NN1, a task) and whether a sentence opens
with an imperative. Tags used here (C5): VVB/VVI a verb's base form, VVG an -ing form,
VVZ/VVD/VVN other verb forms, NN1/NN2 singular/plural nouns, NP0 a proper noun, AJ0 an adjective, AT0 an
article, DPS a possessive determiner, PRP/PRF a preposition, AV0 an adverb, CJC a coordinating conjunction.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

BASE_VERB = frozenset({"VVB", "VVI"})
#: Tags after which a base verb heading reads as an instruction ("Open a Shell", "Create your app", "Connect to X").
DETERMINER = frozenset({"AT0", "DPS", "DT0"})


@lru_cache(maxsize=1)
def _tagger() -> Any:
    from HanTa import HanoverTagger  # imported lazily: the model takes a fraction of a second to load

    return HanoverTagger.HanoverTagger("morphmodel_en.pgz")


@lru_cache(maxsize=16384)
def tag_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """The C5 tag of each word of a short text, read as one sentence."""
    return tuple(tag for _word, _lemma, tag in _tagger().tag_sent(list(words)))


def tags(text: str) -> tuple[str, ...]:
    return tag_words(tuple(text.split()))
