"""The English toolkit the offline writer's strategies share, with one way to do each thing:

- `lexicon`: closed word classes and the verbs the sentence rules ask about, with their forms;
- `morphology`: lemmas and word forms (lemminflect), the only place the writers ask it;
- `tagger`: part-of-speech tags of a short text (HanTa, CLAWS C5 tags), the only tagger;
- `clause`: a sentence cut at its main verb, the only parser (it finds the verb with the lexicon's verb forms: on
  text the rules were not tuned on that turned as many sentences as HanTa's tags, and more than lemminflect's verb
  forms, `bench/sentence_rules_bench.py`), and a document's casing;
- `grammar`: whether a turned question reads well against its sentence, whether an answer defines or names
  anything.
"""

from testgen.writers.english.clause import Casing, Clause, Skip, parse_clause
from testgen.writers.english.grammar import definition_problem, grammar_problem, vague_answer

__all__ = ["Casing", "Clause", "Skip", "definition_problem", "grammar_problem", "parse_clause", "vague_answer"]
