"""The multi-hop strategy of the offline writer: one question across two sections joined by the corpus graph
(`testgen.graph`), whose answer needs a fact of each.

The writer hands it the facts of each block as `Claim`s (the documentation and sentence strategies make them; this
package imports neither). Only the shapes it writes well (`shapes`): a comparison of two definitions or two options
of the same kind, and a bridge through a shared identifier (one section defines it, the other says something about
it; the question names it by its definition).
"""

from testgen.writers.multihop.shapes import Claim, Hop, hop_drafts, pairable

__all__ = ["Claim", "Hop", "hop_drafts", "pairable"]
