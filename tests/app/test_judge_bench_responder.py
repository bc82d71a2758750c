"""bench/judge_bench's stub replies to ragas' prompts: valid JSON of the prompt's schema, one item per statement."""

from __future__ import annotations

import json

from bench.ragas_responder import SCHEMA_MARKER, is_ragas_prompt, ragas_reply

NLI_SCHEMA = {
    "$defs": {
        "StatementFaithfulnessAnswer": {
            "properties": {
                "statement": {"type": "string"},
                "reason": {"type": "string"},
                "verdict": {"type": "integer"},
            },
            "required": ["statement", "reason", "verdict"],
            "type": "object",
        }
    },
    "properties": {"statements": {"items": {"$ref": "#/$defs/StatementFaithfulnessAnswer"}, "type": "array"}},
    "title": "NLIStatementOutput",
    "type": "object",
}


def _prompt(schema: dict[str, object], data: dict[str, object]) -> str:
    return (
        "Your task is to judge the faithfulness of a series of statements based on a given context.\n"
        f"Please return the output in a JSON format that {SCHEMA_MARKER}{json.dumps(schema)}Do not use single quotes."
        "\n\n--------EXAMPLES-----------\nExample 1\nInput: {}\n-----------------------------\n\n"
        f"Now perform the same with the following input\ninput: {json.dumps(data, indent=4)}\nOutput: "
    )


def test_nli_reply_has_one_verdict_per_statement_by_overlap() -> None:
    data = {
        "context": "The brown bear is a large bear native to Eurasia and North America.",
        "statements": ["The brown bear is native to Eurasia.", "Penguins live in Antarctica."],
    }
    prompt = _prompt(NLI_SCHEMA, data)
    assert is_ragas_prompt(prompt) and not is_ragas_prompt("Judge the faithfulness of a series of statements")
    reply = json.loads(ragas_reply(prompt) or "")
    assert [s["statement"] for s in reply["statements"]] == data["statements"]
    assert [s["verdict"] for s in reply["statements"]] == [1, 0]


def test_statement_generation_splits_the_answer() -> None:
    schema = {
        "properties": {"statements": {"items": {"type": "string"}, "type": "array"}},
        "title": "StatementGeneratorOutput",
        "type": "object",
    }
    data = {"question": "Where do bears live?", "answer": "Bears live in forests. They eat berries."}
    reply = json.loads(ragas_reply(_prompt(schema, data)) or "")
    assert reply == {"statements": ["Bears live in forests.", "They eat berries."]}
    assert ragas_reply("no schema here") is None
