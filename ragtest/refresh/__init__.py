"""Test sets that live with their docs: `ragtest refresh` carries an old test set onto new versions of its sources
(`pipeline`), matching each row's evidence by content (`matching`), asking changed rows again (`rewrite`) and saying
what happened (`changelog`)."""

from ragtest.refresh.matching import KEPT, MOVED, NEW, RETIRED, UPDATED
from ragtest.refresh.pipeline import plan, refresh

__all__ = ["KEPT", "MOVED", "NEW", "RETIRED", "UPDATED", "plan", "refresh"]
