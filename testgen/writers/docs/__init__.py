"""The documentation strategy of the offline writer: questions from a documentation chunk's structure (`facts`,
by strategy), ranked by how often they read well (`tiers`); the checks a documentation sentence turned by the
sentence strategy passes (`sentence_checks`, with what the documentation as a whole says: `PageIndex`).
"""
