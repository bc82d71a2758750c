"""Each setting is declared once (a field of a model in ragtest.config); the CLI flags, make_config and the
manifest's record are derived from it."""

from __future__ import annotations

import argparse
import inspect
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field

import ragtest
from ragtest.cli import main
from ragtest.cli_args import build_parser, config_from_args
from ragtest.config import GenerationConfig, RunConfig
from ragtest.manifest import build_manifest
from ragtest.run_state import RunState
from ragtest.settings import (
    Opt,
    config_factory,
    config_secrets,
    iter_settings,
    redact_argv,
    settings_by_keyword,
    settings_record,
    to_flags,
)
from ragtest_core.errors import RagtestError


class ThrowawayGeneration(GenerationConfig):
    """The one place the throwaway setting is written."""

    wobble_factor: Annotated[float, Field(ge=0.0, le=2.0, description="how much the throwaway knob wobbles")] = 0.5


class ThrowawayConfig(RunConfig):
    generation: ThrowawayGeneration = Field(default_factory=ThrowawayGeneration)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_a_setting_declared_in_one_place_reaches_help_make_config_and_the_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = build_parser(ThrowawayConfig)
    with pytest.raises(SystemExit):
        parser.parse_args(["generate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--wobble-factor X how much the throwaway knob wobbles (default: 0.5)" in help_text

    from_cli = config_from_args(parser.parse_args(["run", "--wobble-factor", "1.5", "--size", "3"]), ThrowawayConfig)
    assert from_cli.generation.wobble_factor == 1.5 and from_cli.generation.size == 3

    make = config_factory(ThrowawayConfig, positional=("topic", "source"))
    assert inspect.signature(make).parameters["wobble_factor"].default == 0.5
    config = make("Brown bear", wobble_factor=0.25)
    assert config.generation.wobble_factor == 0.25
    with pytest.raises(RagtestError, match=r"--wobble-factor must be at most 2.0, got 3"):
        make(wobble_factor=3)

    manifest = build_manifest(RunState(config=config, run_dir=tmp_path))
    assert manifest["config"]["generation"]["wobble_factor"] == 0.25


def test_every_flag_of_every_command_has_help_and_every_setting_flag_a_make_config_keyword() -> None:
    keywords = set(inspect.signature(ragtest.make_config).parameters)
    settings = settings_by_keyword(RunConfig)
    for command, parser in subcommands(build_parser()).items():
        for action in parser._actions:
            assert action.help and action.help.strip(), f"{command} {action.option_strings} has no help"
            if action.dest in settings and command != "compare":
                assert action.dest in keywords, f"make_config has no {action.dest}"
            takes_value = action.option_strings and action.nargs != 0 and action.dest != "help"
            if takes_value and not action.required:
                assert "(default: " in action.help, f"{command} {action.option_strings} shows no default"


def test_top_level_help_reads_as_user_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "builds a test set of questions from your documents" in text
    for word in ("config_from_args", "NOT_CONFIG", "argparse", "dest"):
        assert word not in text


def test_flags_keep_their_names_and_read_as_declared() -> None:
    args = build_parser().parse_args(
        ["run", "--topics", "t.txt", "--wiki-timeout", "3", "--llm-timeout", "7", "--no-cache", "--rag", "m:RAG",
         "--rag-arg", "k=3",
         "--rag-arg", "url=http://x", "--metrics", "faithfulness, hit_rate", "--separators", "\\n\\n", ". ",
         "--llm-fixed-concurrency", "--offline"]
    )  # fmt: skip
    config = config_from_args(args)
    assert config.sources.topics_file == "t.txt" and config.sources.wiki_timeout_s == 3.0
    assert config.llm.timeout == 7.0 and config.llm.cache is False
    assert config.llm.runtime().fixed_concurrency is True and config.sources.offline is True
    assert config.rag_args == {"k": 3, "url": "http://x"}
    assert config.metrics == ["faithfulness", "hit_rate"]
    assert config.generation.separators == ("\n\n", ". ")


def test_environment_variables_are_declared_and_explicit_values_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGTEST_WIKI_CACHE", "/pages")
    monkeypatch.setenv("RAGTEST_OFFLINE", "1")
    monkeypatch.setenv("RAGTEST_CACHE_DIR", "/cache")
    config = ragtest.make_config("Brown bear")
    assert config.sources.wiki_cache == "/pages" and config.sources.offline is True
    assert config.llm.cache_dir == "/cache"
    assert ragtest.make_config(wiki_cache="/mine", offline=False).sources.wiki_cache == "/mine"
    monkeypatch.setenv("RAGTEST_OFFLINE", "0")
    assert ragtest.make_config().sources.offline is False
    declared = {s.opt.env for s in iter_settings(RunConfig) if s.opt.env}
    assert declared == {
        "RAGTEST_WIKI_CACHE",
        "RAGTEST_OFFLINE",
        "RAGTEST_CACHE_DIR",
        "RAGTEST_PRICES",
        "RAGTEST_RAY_ADDRESS",
    }


def test_make_config_names_unknown_keywords_and_invalid_values() -> None:
    with pytest.raises(TypeError, match="did you mean chunk_size"):
        ragtest.make_config(chunk_sise=100)
    with pytest.raises(RagtestError, match=r"--chunk-overlap \(200\) must be smaller than --chunk-size \(100\)"):
        ragtest.make_config(chunk_size=100, chunk_overlap=200)
    with pytest.raises(RagtestError, match=r"--critic must be one of"):
        ragtest.make_config(critic="maybe")
    assert ragtest.make_config(revision=123).sources.revision == "123"


def test_the_reproduce_command_and_the_record_are_derived_from_the_declarations() -> None:
    config = ragtest.make_config(source="docs", size=7, separators=("\n", ". "), strict_types=True)
    generation = [s for s in iter_settings(RunConfig) if s.group == "generation"]
    words = to_flags(config, generation)
    assert words[:4] == ["--size", "7", "--seed", "42"]
    assert words[words.index("--separators") : words.index("--separators") + 3] == ["--separators", "\\n", ". "]
    assert "--strict-types" in words and "--questions-per-context" not in words
    again = config_from_args(build_parser().parse_args(["generate", "--source", "docs", *words]))
    assert again == config


def test_secret_settings_are_redacted_in_the_record() -> None:
    class WithSecret(RunConfig):
        api_token: Annotated[str | None, Field(description="a token"), Opt(group="llm", secret=True)] = None

    record = settings_record(WithSecret(api_token="sk-123"))
    assert record["api_token"] == "<redacted>"
    # a yes/no flag takes no word: the secret flag after it still has its value hidden
    argv = ["--offline", "--api-token", "plain42", "--no-offline", "--size", "5"]
    assert redact_argv(argv, WithSecret) == ["--offline", "--api-token", "<redacted>", "--no-offline", "--size", "5"]


def test_secrets_are_redacted_in_the_record_the_flags_and_the_command_line() -> None:
    """`settings_record`, `to_flags(redacted=True)` and `redact_argv` hide credentials in URLs, adapter arguments
    named like keys and header values (the manifest's config, reproduce command and command)."""
    config = ragtest.make_config(
        source="docs",
        llm_base_url="http://u:PW123@h:8000/v1",
        rag="m:RAG",
        rag_args={"api_key": "K456", "headers": {"Authorization": "Bearer T789"}, "url": "http://h/r?token=Q0"},
    )
    record = settings_record(config)
    assert record["llm"]["base_url"] == "http://<redacted>@h:8000/v1"
    assert record["rag_args"] == {
        "api_key": "<redacted>",
        "headers": {"Authorization": "<redacted>"},
        "url": "http://h/r?token=<redacted>",
    }
    settings = [s for s in iter_settings(RunConfig) if s.keyword in ("llm_base_url", "rag_args")]
    words = to_flags(config, settings, redacted=True)
    assert not any(secret in " ".join(words) for secret in ("PW123", "K456", "T789", "Q0"))
    argv = ["ragtest", "run", "--llm-base-url", "http://u:PW123@h/v1", "--rag-arg", "api_key=K456",
            "--rag-arg", 'headers={"Authorization": "Bearer T789"}', "--rag-arg=url=http://h/r?token=Q0",
            "--llm=http://a:b@h/v1", "--size", "5"]  # fmt: skip
    redacted = redact_argv(argv, RunConfig)
    assert not any(secret in " ".join(redacted) for secret in ("PW123", "K456", "T789", "Q0", "a:b@"))
    assert redacted[:3] == ["ragtest", "run", "--llm-base-url"] and redacted[-2:] == ["--size", "5"]
    assert redacted[5] == "api_key=<redacted>" and redacted[7] == 'headers={"Authorization": "<redacted>"}'
    assert sorted(config_secrets(config)) == sorted(["u:PW123", "PW123", "K456", "Bearer T789", "Q0"])


def test_a_setting_the_command_would_not_use_is_refused_as_declared(tmp_path: Path) -> None:
    """The refusal is derived from the declarations: a new generation setting is refused on a given test set with no
    list to keep, and the manifest records only the settings of the stages that ran."""
    parser = build_parser(ThrowawayConfig)
    with pytest.raises(RagtestError, match=r"--wobble-factor is not used by `run` with --testset: it is used by"):
        config_from_args(parser.parse_args(["run", "--testset", "t.jsonl", "--wobble-factor", "1.5"]), ThrowawayConfig)
    with pytest.raises(RagtestError, match=r"--rag-chunk-overlap \(300\) must be smaller than --rag-chunk-size"):
        ragtest.make_config(rag_chunk_size=200, rag_chunk_overlap=300)
    # meta-eval's own --seed/--metrics/--judge are not the run settings of the same names
    meta = config_from_args(build_parser().parse_args(["meta-eval", "--wikieval", "w.jsonl", "--seed", "3"]))
    assert meta.generation.seed == 42

    config = ragtest.make_config(testset="t.jsonl", rag_chunk_size=256, metrics="hit_rate")
    state = RunState(config=config, run_dir=tmp_path, stats={"stages": ["answer", "evaluate"]})
    record = build_manifest(state)["config"]
    assert record["testset"] == "t.jsonl" and record["rag_chunk_size"] == 256 and record["metrics"] == ["hit_rate"]
    assert "generation" not in record and "sources" not in record and "rag_args" not in record
    adapter = ragtest.make_config(source="docs", rag="m:RAG", rag_args={"k": 3})
    record = build_manifest(RunState(config=adapter, run_dir=tmp_path, stats={"stages": ["generate", "answer"]}))
    assert record["config"]["rag_args"] == {"k": 3} and record["config"]["sources"]["source"] == "docs"
    assert not {"rag_k", "rag_chunk_size", "metrics", "testset"} & set(record["config"])
