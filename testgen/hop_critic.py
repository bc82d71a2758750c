"""The multi-hop check: a multi-context draft (two or more cited blocks) that one of its blocks answers alone tests
nothing multi-hop, and is rejected as `one_context_answers`. Each cited block is checked on its own with the judge
the critic uses:

- offline (`single_context_problem`): the support rule of the local judge (`ragtest_core.support`): a block
  answers alone when it supports every evidence sentence of the draft (or its whole answer, when the draft names
  none). A bridge's writer already leaves out a pair whose second block names the bridged thing's description;
- with an LLM (`alone_calls`): the answerability prompt with that one block as the only passage, one call per cited
  block for the drafts citing it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragtest_core.llm.plan import PlannedCall
from testgen.writers.base import Draft

ONE_CONTEXT = "one_context_answers"


def is_multi_hop(draft: Draft) -> bool:
    return draft.question_type == "multi_context" and len(set(draft.blocks)) >= 2


def single_context_problem(
    draft: Draft, gold: Sequence[str], supported: Callable[[str, Sequence[str]], bool]
) -> str | None:
    """`ONE_CONTEXT` when a multi-hop draft's cited block answers it alone (`supported(claim, texts)`: the critic's
    support rule), else None."""
    claims = draft.evidence or (draft.answer,)
    if is_multi_hop(draft) and any(all(supported(claim, [block]) for claim in claims) for block in gold):
        return ONE_CONTEXT
    return None


def alone_calls(
    drafts: Sequence[Draft],
    blocks: Sequence[str],
    ask: Callable[[Sequence[str], Sequence[str]], PlannedCall],
    pending: Sequence[bool],
) -> list[tuple[PlannedCall, list[int]]]:
    """For each block a pending multi-hop draft cites: the answerability call asking those drafts' questions of that
    block alone (`ask(questions, passages)`), with the drafts' indexes."""
    calls = []
    for number in range(1, len(blocks) + 1):
        if asked := [i for i, d in enumerate(drafts) if pending[i] and is_multi_hop(d) and number in d.blocks]:
            calls.append((ask([drafts[i].question for i in asked], [blocks[number - 1]]), asked))
    return calls
