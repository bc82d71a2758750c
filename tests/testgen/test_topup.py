"""The pieces of a top-up (`testgen.topup`): the walk record and how kept samples reshape the type targets. The
end-to-end behaviour on real documentation is in tests/e2e/test_partial_testset.py."""

from __future__ import annotations

from testgen.topup import WalkLog, Written, fit_targets


def test_kept_samples_past_a_share_take_it_from_the_other_types() -> None:
    targets = {"simple": 5, "multi_context": 4}
    fit_targets(targets, {"simple": 7})
    assert targets == {"simple": 7, "multi_context": 2}  # still 9 in all: the set is never larger than --size
    targets = {"simple": 6, "multi_context": 3, "reasoning": 3}
    fit_targets(targets, {"multi_context": 5, "reasoning": 1})
    assert targets == {"simple": 4, "multi_context": 5, "reasoning": 3} and sum(targets.values()) == 12
    targets = {"simple": 2, "multi_context": 2}
    fit_targets(targets, {"simple": 1})
    assert targets == {"simple": 2, "multi_context": 2}  # within its share: nothing moves


def test_the_walk_round_trips_and_answers_for_the_questions_it_asked() -> None:
    log = WalkLog()
    log.record("a", "simple", 1, 1)
    log.record("a", "simple", 2, 1)  # walked again with one more question
    log.record("a", "simple", 1, 0)  # a lower pass never overwrites a higher one
    log.record("b", "multi_context", 1, 0)
    log.record_barren("c", "simple")
    later = WalkLog.from_json(log.to_json()).continued()
    assert later.written == {("a", "simple"): Written(2, 1), ("b", "multi_context"): Written(1, 0)}
    assert later.earlier("a", "simple", 2) == Written(2, 1) and later.earlier("a", "simple", 3) is None
    assert later.earlier("a", "multi_context", 1) is None  # written for another type only
    assert ("c", "simple") in later.prior_barren
    later.record("a", "simple", 3, 3)
    assert later.earlier("a", "simple", 3) is None, "what this run wrote is not an earlier run's work"
    assert later.continued().earlier("a", "simple", 3) == Written(3, 3)
