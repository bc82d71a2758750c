"""Loading a user's adapter by import path: `--rag mypkg.module:MyRAG`, with arguments for a class or factory:
`--rag rag_under_test:HTTPAdapter --rag-arg url=http://127.0.0.1:8000/rag`. A LlamaIndex query engine or retriever
(`--rag my_app:query_engine`, or a factory returning one) is wrapped in `LlamaIndexAdapter`, and a LangChain runnable
(`--rag my_app:chain`) in `RunnableAdapter`."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from rag_under_test.adapter import AnyAdapter, AsyncRAGAdapter, RAGAdapter, RunnableAdapter
from rag_under_test.llamaindex import LlamaIndexAdapter, is_llamaindex_rag
from ragtest_core.errors import RagtestError


def load_adapter(path: str, **kwargs: Any) -> AnyAdapter:
    """Import `module:attr` (`import_user_module`); a class or factory is called with `kwargs`, an instance is used
    as it is, and either is wrapped as the module's docstring says."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise RagtestError(f"--rag expects 'module.path:ClassOrFactory', got {path!r}")
    try:
        module = import_user_module(module_name)
    except ImportError as exc:
        raise RagtestError(f"cannot import {module_name!r} for --rag: {exc}") from exc
    try:
        target = getattr(module, attr)
    except AttributeError as exc:
        raise RagtestError(f"{module_name!r} has no attribute {attr!r}") from exc
    factory = inspect.isclass(target) or (callable(target) and not isinstance(target, (RAGAdapter, AsyncRAGAdapter)))
    if factory and not (is_llamaindex_rag(target) or _is_runnable(target)):
        check_arguments(path, target, kwargs)
        adapter = target(**kwargs)
    elif kwargs:
        raise RagtestError(f"{path} is an adapter object, not a class or factory: it takes no --rag-arg")
    else:
        adapter = target
    if is_llamaindex_rag(adapter):
        adapter = LlamaIndexAdapter(adapter)
    elif _is_runnable(adapter):
        adapter = RunnableAdapter(adapter)
    if not isinstance(adapter, (RAGAdapter, AsyncRAGAdapter)):
        raise RagtestError(
            f"{path} gave a {type(adapter).__name__}, which has no answer(question) or aanswer(question) method"
        )
    return adapter


def import_user_module(module_name: str) -> ModuleType:
    """The `--rag` module: its top-level module or package is taken from the current folder when it is there
    (./my_rag.py, ./mypkg/), else from the installed packages. The current folder goes to the END of sys.path, so
    the adapter's own helper modules beside it import, but a file there named like a standard or installed module
    (a unittest.py, a json.py) never shadows that module, for ragtest or for the adapter."""
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.append(cwd)
    top = module_name.split(".", 1)[0]
    if top not in sys.modules:
        spec = importlib.machinery.PathFinder.find_spec(top, [cwd])
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            sys.modules[top] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                sys.modules.pop(top, None)
                raise
    return importlib.import_module(module_name)


def _is_runnable(target: object) -> bool:
    """True for a LangChain runnable (a chain, a retrieval chain). Imports nothing: a runnable exists only once the
    user's code has imported langchain_core."""
    runnables = sys.modules.get("langchain_core.runnables")
    return runnables is not None and isinstance(target, runnables.Runnable)


def check_arguments(path: str, target: Any, kwargs: Mapping[str, Any]) -> None:
    """A RagtestError naming the missing or unknown arguments, instead of the TypeError the call would raise."""
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(**kwargs)
    except TypeError as exc:
        needed = [
            name
            for name, p in signature.parameters.items()
            if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
        accepted = [n for n, p in signature.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        raise RagtestError(
            f"{path} cannot be built with {dict(kwargs) or 'no arguments'}: {exc}. It needs "
            f"{', '.join(needed) or 'no argument'} (accepts {', '.join(accepted) or 'none'}); pass each with "
            f"--rag-arg NAME=VALUE, e.g. --rag-arg {(needed or accepted or ['name'])[0]}=..."
        ) from None


def parse_adapter_args(pairs: Iterable[str]) -> dict[str, Any]:
    """`["url=http://x", "timeout_s=30"]` -> {"url": "http://x", "timeout_s": 30}: a value that reads as JSON
    (a number, true/false, a list or an object) is that value, anything else is text."""
    parsed: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or not name.strip():
            raise RagtestError(f"--rag-arg expects NAME=VALUE, got {pair!r}")
        try:
            value: Any = json.loads(text)
        except json.JSONDecodeError:
            value = text
        parsed[name.strip()] = value
    return parsed
