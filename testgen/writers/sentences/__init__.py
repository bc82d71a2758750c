"""The sentence strategy of the offline writer: a sentence turned into wh-questions whose answers are spans of it.

English sentences are cut into a clause (`testgen.writers.english.clause`) and turned by fixed rules (`rules`,
`patterns.turn_all`, answer spans by `spans`); Chinese and Japanese by a few patterns (`cjk`); a pronoun for the
document's topic is said with the topic first (`topic`). The reference answer is the source sentence, cut after its
answer (`reference`); two blocks' turned sentences make comparison and bridge questions (`combine`); each turned
sentence passes the checks of `drafts` before it becomes a draft.
"""

from testgen.writers.sentences.cjk import turn_cjk
from testgen.writers.sentences.combine import Combined, Fact, combine
from testgen.writers.sentences.drafts import DEFINITION_RULES, combined_draft, sentence_draft, turned_problem
from testgen.writers.sentences.patterns import turn_all
from testgen.writers.sentences.reference import reference_sentence
from testgen.writers.sentences.topic import resolve, topic_of

__all__ = [
    "DEFINITION_RULES",
    "Combined",
    "Fact",
    "combine",
    "combined_draft",
    "reference_sentence",
    "resolve",
    "sentence_draft",
    "topic_of",
    "turn_all",
    "turn_cjk",
    "turned_problem",
]
