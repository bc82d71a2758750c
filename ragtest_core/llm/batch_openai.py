"""The OpenAI Batch API as a batch provider: the request file through the files API, a batch on
`/v1/chat/completions`, its status, and the output and error files read back line by line.

It goes through the chat model's own SDK client (`ChatOpenAI.root_async_client`), and builds each request body the
way the model builds an online request (`ChatOpenAI._get_request_payload`: the same model, temperature, max tokens
and native `response_format`), so a batch line asks exactly what the online call would. Replies are read back into
an `AIMessage` by the model's own reader (`_create_chat_result`: content, refusal, finish reason, token usage).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from ragtest_core.errors import RagtestError

ENDPOINT = "/v1/chat/completions"
#: Batch states after which nothing more changes.
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
#: Keys of the SDK's request options that are not part of a request body.
_SDK_ONLY = frozenset({"stream", "extra_body", "extra_headers", "extra_query", "timeout"})


@dataclass(frozen=True)
class BatchStatus:
    """Where a batch stands (OpenAI's status names) and its result files once it has them."""

    batch_id: str
    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


class OpenAIBatches:
    """The Batch API of an OpenAI (or OpenAI-compatible) chat model."""

    name = "openai"

    def __init__(self, model: BaseChatModel) -> None:
        client = getattr(model, "root_async_client", None)
        if client is None or not hasattr(model, "_get_request_payload"):
            raise RagtestError(
                f"--llm-batch needs an OpenAI chat model (or an OpenAI-compatible server with the Batch API); "
                f"{type(model).__name__} has no batch API here"
            )
        self.model: Any = model
        self.client: Any = client

    def request_body(self, messages: list[BaseMessage], kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The JSON body the online call would send for these messages and invoke keywords."""
        payload = dict(self.model._get_request_payload(messages, **kwargs))
        return {**{k: v for k, v in payload.items() if k not in _SDK_ONLY}, **(payload.get("extra_body") or {})}

    def line(self, custom_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return {"custom_id": custom_id, "method": "POST", "url": ENDPOINT, "body": dict(body)}

    async def upload(self, data: bytes) -> str:
        uploaded = await self.client.files.create(file=("ragtest-batch.jsonl", data), purpose="batch")
        return str(uploaded.id)

    async def create(self, file_id: str, window: str, metadata: Mapping[str, str]) -> str:
        batch = await self.client.batches.create(
            input_file_id=file_id, endpoint=ENDPOINT, completion_window=window, metadata=dict(metadata)
        )
        return str(batch.id)

    async def retrieve(self, batch_id: str) -> BatchStatus:
        batch = await self.client.batches.retrieve(batch_id)
        return BatchStatus(batch.id, str(batch.status), batch.output_file_id, batch.error_file_id)

    async def read_file(self, file_id: str) -> str:
        content = await self.client.files.content(file_id)
        return str(content.text)

    async def find_batch(self, file_id: str) -> str | None:
        """The batch created from `file_id`, among the provider's most recent batches (None when there is none)."""
        page = await self.client.batches.list(limit=100)
        return next((str(batch.id) for batch in page.data if batch.input_file_id == file_id), None)

    def read_line(self, line: Mapping[str, Any]) -> tuple[str, AIMessage | str]:
        """(custom_id, the reply as a message) for a line that succeeded, (custom_id, why) for one that failed."""
        custom_id = str(line.get("custom_id", ""))
        error = line.get("error")
        response = line.get("response") or {}
        body = response.get("body") or {}
        if error:
            return custom_id, f"{error.get('code') or 'error'}: {error.get('message') or error}"
        status = response.get("status_code")
        if status != 200 or not body.get("choices"):
            detail = body.get("error") if isinstance(body, dict) else None
            message = detail.get("message") if isinstance(detail, dict) else detail
            return custom_id, f"HTTP {status}: {message or 'no reply'}"
        result = self.model._create_chat_result(body)
        message = result.generations[0].message  # an AIMessage: the reply of a chat completion
        finish = (result.generations[0].generation_info or {}).get("finish_reason")
        if finish is not None:
            message.response_metadata.setdefault("finish_reason", finish)
        return custom_id, message
