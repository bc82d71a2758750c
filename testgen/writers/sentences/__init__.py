"""The sentence strategy of the offline writer: a sentence turned into wh-questions whose answers are spans of it:
English by fixed rules over a parsed clause (`patterns.turn_all`, `rules`, `spans`), Chinese and Japanese by a few
patterns (`cjk`); the topic said for its pronoun (`topic`); the reference answer (`reference`); two blocks'
questions (`combine`); the checks and drafts (`drafts`).
"""
