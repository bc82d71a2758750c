"""The docs site's CLI reference is generated from the settings declarations (docs/hooks/cli_reference.py, written
into docs/cli.md by the MkDocs hook docs/hooks/reference_pages.py): a setting added the way a developer adds one, a
field of a section model in `ragtest.config`, is on the page with its flag, keyword, default, environment variable and
help, and the site builds strictly with it. The same hook writes the metrics page's table of definitions
(docs/hooks/metric_reference.py): a metric registered before the build is on it."""

from __future__ import annotations

import argparse
import html as html_text
from pathlib import Path
from typing import Annotated

import cli_reference
import pytest
from cli_reference import render_cli_reference, subcommands
from pydantic import Field

from evaluation import register_metric, unregister_metric
from evaluation.registry import metric_explanation
from ragtest.cli_args import build_parser
from ragtest.config import GenerationConfig, RunConfig
from ragtest.settings import Opt, iter_settings
from tests.app.test_metric_reference import WobbleMetric

ROOT = Path(__file__).resolve().parents[2]


class WobbleGeneration(GenerationConfig):
    """A test-set generation section with one more setting, declared as every setting is."""

    wobble_factor: Annotated[
        float,
        Field(ge=0.0, le=2.0, description="how much the throwaway knob wobbles"),
        Opt(env="RAGTEST_WOBBLE"),
    ] = 0.5
    hidden_knob: Annotated[int, Field(ge=0, description="a knob only Python sets"), Opt(cli=False)] = 3


class WobbleConfig(RunConfig):
    generation: WobbleGeneration = Field(default_factory=WobbleGeneration)


def group_section(page: str, group: str) -> str:
    """The part of the page under a settings group's heading, up to the next heading."""
    start = page.index(f"{{#settings-{group}}}")
    return page[start : page.index("\n#", start)]


def test_a_setting_added_to_the_declarations_is_on_the_page_with_its_flag_default_and_variable() -> None:
    assert "wobble" not in render_cli_reference()
    page = render_cli_reference(WobbleConfig)
    row = "| `--wobble-factor X` | `wobble_factor` | `0.5` | `RAGTEST_WOBBLE` | How much the throwaway knob wobbles. |"
    assert row in group_section(page, "generation")
    assert "| `RAGTEST_WOBBLE` | `--wobble-factor` | How much the throwaway knob wobbles. |" in page
    assert "wobble" not in group_section(page, "llm")
    no_flag = "| `(no flag: make_config only)` | `hidden_knob` | `3` |   | A knob only Python sets. |"
    assert no_flag in group_section(page, "generation")


def test_every_flag_of_every_command_and_every_setting_is_on_the_page() -> None:
    page = render_cli_reference()
    commands = list(subcommands(build_parser()))
    names = ["generate", "answer", "evaluate", "run", "compare", "review", "refresh", "meta-eval"]
    assert [c.name for c in commands] == names
    for command in commands:
        assert f"### ragtest {command.name} {{#ragtest-{command.name}}}" in page
        for action in command.parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in page or f", {flag}" in page, f"{command.name} {flag} is not on the page"
    for setting in iter_settings(RunConfig):
        assert f"| `{setting.keyword}` |" in page, setting.keyword
        if setting.opt.env:
            assert f"| `{setting.opt.env}` | `{setting.flag}` |" in page
    assert "`--chunk-size N` | `chunk_size` | `512` |" in page
    assert "`--llm-timeout SECONDS` | `llm_timeout` | `60` |" in page


def test_the_site_builds_strictly_with_the_generated_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `make docs` runs (`mkdocs build --strict`), in this process so that the hook sees the added setting."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setattr(cli_reference, "RunConfig", WobbleConfig)
    site = tmp_path / "site"
    register_metric(WobbleMetric)  # and a metric, registered as a user registers one: on the metrics page
    try:
        build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site), strict=True))
    finally:
        unregister_metric(WobbleMetric.name)
    html = (site / "cli" / "index.html").read_text(encoding="utf-8")
    assert 'id="settings-generation"' in html
    assert "<code>--chunk-size N</code>" in html
    assert "<code>--wobble-factor X</code>" in html and "<code>RAGTEST_WOBBLE</code>" in html
    assert "ragtest:cli-reference" not in html  # the marker was replaced
    assert "/".join(("..", "shared")) not in html  # no path a clone lacks
    metrics = (site / "metrics" / "index.html").read_text(encoding="utf-8")
    assert "<td><code>wobble_score</code></td>" in metrics
    assert "<td>How far the answer wobbles | between &lt;two&gt; readings.</td>" in metrics
    faithfulness = metric_explanation("faithfulness")
    assert (
        f"<td>{html_text.escape(faithfulness.definition, quote=False)}</td>" in metrics
        and "ragtest:metric-definitions" not in metrics
    )
    assert "faithfulness = supported statements / all statements" in metrics  # the hand-written formulas stay
    assert (site / "api" / "index.html").exists()
