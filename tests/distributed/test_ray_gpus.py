"""`--ray-gpus`: how many GPUs Ray's embedding workers request (`num_gpus` on the ingest's actor pool), from the flag
to the pool, and on a real two-node cluster of CPUs: `auto` ingests there as before, a request the cluster cannot
meet is a clear error before any work."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragtest import make_config
from ragtest.cli import main
from ragtest.cli_args import build_parser, config_from_args
from ragtest.distributed.ingest import EMBED_BATCH, GPU_EMBED_BATCH, EmbedPool, embed_pool
from ragtest_core.errors import RagtestError


def test_the_pool_for_each_setting() -> None:
    assert embed_pool("0", cluster_gpus=4, workers=3) == EmbedPool(3, 0.0)  # the default: CPUs, as before
    assert embed_pool("auto", cluster_gpus=0, workers=3) == EmbedPool(3, 0.0)
    cpu = embed_pool("auto", 0, 3)
    assert (cpu.device, cpu.batch_size) == (None, EMBED_BATCH)
    gpu = embed_pool("auto", cluster_gpus=2, workers=8)  # one worker per GPU
    assert gpu == EmbedPool(2, 1.0) and (gpu.device, gpu.batch_size) == ("cuda", GPU_EMBED_BATCH)
    assert embed_pool("auto", cluster_gpus=4, workers=2) == EmbedPool(2, 1.0)  # --ray-workers caps it
    assert embed_pool("0.5", cluster_gpus=1, workers=8) == EmbedPool(2, 0.5)  # two workers share the GPU
    assert embed_pool("1", cluster_gpus=3, workers=8) == EmbedPool(3, 1.0)
    with pytest.raises(RagtestError, match=r"--ray-gpus 1: .* 1 GPU\(s\), but the Ray cluster has no GPU"):
        embed_pool("1", cluster_gpus=0, workers=2)
    with pytest.raises(RagtestError, match=r"--ray-gpus 2: .* has 1 GPU\(s\); use --ray-gpus auto"):
        embed_pool("2", cluster_gpus=1, workers=2)


def test_the_flag_and_keyword() -> None:
    parser = build_parser()
    base = ["generate", "--source", "docs", "--ray"]
    assert config_from_args(parser.parse_args(base)).ray_gpus == "0"
    assert config_from_args(parser.parse_args([*base, "--ray-gpus", "AUTO"])).ray_gpus == "auto"
    assert config_from_args(parser.parse_args([*base, "--ray-gpus", "0.5"])).ray_gpus == "0.5"
    assert make_config(source="docs", ray_gpus="1").ray_gpus == "1"
    for wrong in ("two", "-1", "nan"):
        with pytest.raises(RagtestError, match=r"--ray-gpus must be 'auto' or a number of GPUs of at least 0"):
            config_from_args(parser.parse_args([*base, "--ray-gpus", wrong]))


def test_on_a_cluster_of_cpus(
    ray_cluster: str, wiki_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(wiki_dir / "Polar_bear.txt", corpus / "Polar_bear.txt")
    generate = ["--quiet", "generate", "--source", str(corpus), "--size", "2", "--allow-fewer", "--ray", ray_cluster]
    capsys.readouterr()
    assert main([*generate, "--output", str(tmp_path / "many" / "testset.jsonl"), "--ray-gpus", "1000"]) != 0
    assert (
        "--ray-gpus 1000: each embedding worker would take 1000 GPU(s), but the Ray cluster has"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "many" / "testset.jsonl").exists()
    testset = tmp_path / "auto" / "testset.jsonl"
    assert main([*generate, "--output", str(testset), "--ray-gpus", "auto"]) == 0  # no GPU here: the CPUs
    manifest = json.loads(testset.with_name("testset.manifest.json").read_text())
    assert manifest["stats"]["chunks_embedded"] == manifest["stats"]["chunks"] > 10
    assert manifest["config"]["ray_gpus"] == "auto"
