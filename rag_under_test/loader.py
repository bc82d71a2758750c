"""Loading a user's adapter by import path: `--rag mypkg.module:MyRAG`."""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from rag_under_test.adapter import AnyAdapter, AsyncRAGAdapter, RAGAdapter
from ragtest_core.errors import RagtestError


def load_adapter(path: str, **kwargs: Any) -> AnyAdapter:
    """Import `module:attr`; a class or factory is called with `kwargs`, an instance is used as it is.

    The current directory is importable, so `--rag my_rag:MyRAG` finds ./my_rag.py.
    """
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise RagtestError(f"--rag expects 'module.path:ClassOrFactory', got {path!r}")
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RagtestError(f"cannot import {module_name!r} for --rag: {exc}") from exc
    try:
        target = getattr(module, attr)
    except AttributeError as exc:
        raise RagtestError(f"{module_name!r} has no attribute {attr!r}") from exc
    adapter = target(**kwargs) if inspect.isclass(target) or _is_factory(target) else target
    if not isinstance(adapter, (RAGAdapter, AsyncRAGAdapter)):
        raise RagtestError(
            f"{path} gave a {type(adapter).__name__}, which has no answer(question) or aanswer(question) method"
        )
    return adapter


def _is_factory(target: Any) -> bool:
    return callable(target) and not isinstance(target, (RAGAdapter, AsyncRAGAdapter))
