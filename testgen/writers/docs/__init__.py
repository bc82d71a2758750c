"""The documentation strategy of the offline writer: questions from a documentation chunk's structure.

`facts.doc_facts` reads a structured chunk back into headings, prose, items and code (code is never read) and makes
`DocFact`s by strategy: how-to questions from task headings (`headings`, answered by `answers`), FAQ headings,
concepts and glossary entries, options (`options`, `descriptions`), instructions (`instructions`) and defaults
(`defaults`); `facts.strategy_problem` and `specific` keep the ones that make sense without their section, and
`tiers` ranks them by how often they read well. Sentences of documentation turned by the sentence strategy pass
`sentence_checks` (what the documentation as a whole says: `PageIndex`). Shared text checks live in `text`.
"""

from testgen.writers.docs.descriptions import DocFact
from testgen.writers.docs.facts import STRATEGIES, doc_facts, needs_section, section_name_fact, strategy_problem
from testgen.writers.docs.sentence_checks import PageIndex, docs_problem, heading_parts, specific_problem
from testgen.writers.docs.specific import release_notes, sentence_case
from testgen.writers.docs.text import split_prose
from testgen.writers.docs.tiers import SENTENCE_TIER, doc_draft, draft_tier

__all__ = [
    "SENTENCE_TIER",
    "STRATEGIES",
    "DocFact",
    "PageIndex",
    "doc_draft",
    "doc_facts",
    "docs_problem",
    "draft_tier",
    "heading_parts",
    "needs_section",
    "release_notes",
    "section_name_fact",
    "sentence_case",
    "specific_problem",
    "split_prose",
    "strategy_problem",
]
