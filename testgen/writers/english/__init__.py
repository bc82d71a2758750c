"""The English toolkit the offline writer's strategies share, with one way to do each thing: word lists and verb
forms (`lexicon`), lemmas and inflections (`morphology`, lemminflect), part-of-speech tags (`tagger`, HanTa), a
sentence cut at its main verb and a document's casing (`clause`), and the checks of a turned question and of its
answer (`grammar`).
"""
