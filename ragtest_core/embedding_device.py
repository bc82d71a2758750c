"""Which hardware embeds (RAGTEST_EMBED_DEVICE: auto, cpu, cuda or mps; see `ragtest_core.embeddings`), and the
batch size that fits it (RAGTEST_EMBED_BATCH_SIZE, texts per forward pass of the torch backend: 32 on the CPU, 512 on
CUDA, 128 on MPS by default; docs/scale.md). "cuda" and "mps" insist: a RagtestError naming the setting where torch
sees no such GPU. "auto" looks for a GPU driver (a CUDA or ROCm device node, Apple silicon) before it imports torch,
so on a machine without one it costs nothing and the ONNX backend still starts without torch.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import shutil
import sys
from contextlib import suppress

from ragtest_core.errors import RagtestError

DEVICE_ENV = "RAGTEST_EMBED_DEVICE"
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda", "mps")
BATCH_ENV = "RAGTEST_EMBED_BATCH_SIZE"
#: Texts per forward pass of the torch backend, by device.
BATCH_SIZES: dict[str, int] = {"cpu": 32, "cuda": 512, "mps": 128}
#: Device nodes that a CUDA (NVIDIA), ROCm (AMD, also `torch.cuda`) or WSL GPU driver creates on Linux.
_GPU_NODES = ("/dev/nvidiactl", "/proc/driver/nvidia/version", "/dev/kfd", "/dev/dxg")


def resolve_device(device: str | None = None) -> str:
    """The device that embeds, "cpu", "cuda" or "mps", for the one asked for: `device`, else env
    RAGTEST_EMBED_DEVICE, else "auto"."""
    asked = (device or os.environ.get(DEVICE_ENV) or "auto").strip().lower()
    if asked not in DEVICES:
        raise RagtestError(f"unknown embedding device {asked!r} ({DEVICE_ENV}); use one of {', '.join(DEVICES)}")
    if asked == "cpu" or (asked == "auto" and not gpu_may_be_present()):
        return "cpu"
    if asked == "auto":
        return next((kind for kind in ("cuda", "mps") if torch_sees(kind)), "cpu")
    if not torch_sees(asked):
        raise RagtestError(f"{DEVICE_ENV}={asked}, but {_why_unseen(asked)}: use {DEVICE_ENV}=auto (a GPU when torch "
                           "sees one, else the CPU) or cpu")  # fmt: skip
    return asked


def gpu_may_be_present() -> bool:
    """Whether this machine may have a GPU torch could use (a driver's device node, Apple silicon), found without
    importing torch; False also when torch is not installed."""
    if importlib.util.find_spec("torch") is None:
        return False
    if sys.platform == "darwin":
        return platform.machine() == "arm64"
    if sys.platform.startswith("linux"):
        return any(os.path.exists(node) for node in _GPU_NODES)
    return shutil.which("nvidia-smi") is not None


def torch_sees(kind: str) -> bool:
    """Whether torch can run on a `kind` ("cuda" or "mps") GPU here."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    if kind == "cuda":
        return bool(torch.cuda.is_available())
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def batch_size_for(device: str, batch_size: int | None = None) -> int:
    """Texts per forward pass on `device`: `batch_size`, else env RAGTEST_EMBED_BATCH_SIZE, else the device's."""
    chosen = batch_size if batch_size is not None else os.environ.get(BATCH_ENV, "").strip() or BATCH_SIZES[device]
    size = 0
    with suppress(ValueError):
        size = int(chosen)
    if size < 1:
        raise RagtestError(
            f"the embedding batch size ({BATCH_ENV}) must be a whole number of at least 1, got {chosen!r}"
        )
    return size


def _why_unseen(kind: str) -> str:
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed"
    import torch

    if kind == "cuda":
        hip = getattr(torch.version, "hip", None)
        toolkit = f"CUDA {torch.version.cuda}" if torch.version.cuda else f"ROCm {hip}" if hip else None
        built = f"built with {toolkit}" if toolkit else "built without CUDA"
        return f"torch {torch.__version__} ({built}) sees no CUDA GPU"
    return f"torch {torch.__version__} sees no MPS device (Apple silicon with macOS 12.3 or later)"
