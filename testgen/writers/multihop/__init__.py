"""The multi-hop strategy of the offline writer: one question across two sections joined by the corpus graph
(`testgen.graph`), whose answer needs a fact of each, in the shapes of `shapes`. The writer hands it each block's
facts as `Claim`s (the documentation and sentence strategies make them; this package imports neither).
"""
