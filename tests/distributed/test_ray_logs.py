"""Where Ray's lines go while a stage runs (`ragtest.distributed.logs`), without starting Ray: the run folder's
ray.log, and the console only with `--ray-logs`. (A real `--ray` run through the CLI: test_ray_pipeline.py.)"""

from __future__ import annotations

import io
import logging
import os
import sys
from pathlib import Path

import pytest

from ragtest.cli_args import build_parser, config_from_args
from ragtest.distributed.logs import RAY_LOG_FILE, RayLog, logger


def say(marker: str) -> None:
    """A line from each of Ray's voices: its core logger, Ray Data's, ragtest's note, native code on fd 2."""
    logging.getLogger("ray").warning("%s from ray", marker)
    logging.getLogger("ray.data._internal.execution").info("%s from ray.data", marker)
    logger.info("%s from ragtest", marker)


@pytest.mark.parametrize("echo", [False, True])
def test_ray_lines_go_to_the_run_log_and_to_the_console_only_when_asked(
    echo: bool, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    console = logging.StreamHandler(sys.stderr)  # what Ray's own handlers do: write to stderr
    ray_logger = logging.getLogger("ray")
    ray_logger.addHandler(console)
    level = ray_logger.level
    ray_logger.setLevel(logging.INFO)
    log = RayLog(tmp_path / "run" / RAY_LOG_FILE, echo=echo)
    try:
        with log.captured():
            say("during")
            with log.native_stderr():
                os.write(2, b"native during\n")
            print("ragtest's own line", file=sys.stderr)
        say("after")
    finally:
        ray_logger.removeHandler(console)
        ray_logger.setLevel(level)
    err = capfd.readouterr().err
    written = (tmp_path / "run" / RAY_LOG_FILE).read_text(encoding="utf-8")
    assert written.count("during from ray\n") == written.count("during from ray.data") == 1
    assert "during from ragtest" in written
    assert "after from" not in written and "ragtest's own line" not in written
    assert ("native during" in written) is not echo  # with --ray-logs native code writes to the console as it does
    assert "ragtest's own line" in err and "after from ray" in err  # the console handler is back after the stage
    assert ("during from ray\n" in err) is echo and ("native during" in err) is echo
    assert "from ragtest" not in err  # ragtest's notes are for the file only
    assert "Ray logged" not in err  # no error among them


def test_an_error_ray_logged_is_pointed_at_on_the_console(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    log = RayLog(tmp_path / RAY_LOG_FILE, echo=False)
    with log.captured():
        logging.getLogger("ray.data").error("a worker died")
    err = capfd.readouterr().err
    assert err == f"ragtest: Ray logged 1 error(s): see {log.path}\n"
    assert log.path.read_text(encoding="utf-8").count("a worker died") == 1


def test_a_handler_left_on_a_closed_stream_is_set_aside_too(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Ray's handler keeps the stderr of the moment Ray was imported; in a long process that stream may be gone."""
    stale = io.StringIO()
    stale.close()
    ray_data = logging.getLogger("ray.data")
    handler = logging.StreamHandler(stale)
    ray_data.addHandler(handler)
    try:
        log = RayLog(tmp_path / RAY_LOG_FILE, echo=False)
        with log.captured():
            ray_data.error("a worker died")
    finally:
        ray_data.removeHandler(handler)
    assert capfd.readouterr().err == f"ragtest: Ray logged 1 error(s): see {log.path}\n"


def test_ray_logs_is_a_declared_setting() -> None:
    parser = build_parser()
    given = config_from_args(parser.parse_args(["evaluate", "--input", "x", "--ray", "--ray-logs"]))
    assert given.ray_logs is True
    assert config_from_args(parser.parse_args(["evaluate", "--input", "x", "--ray"])).ray_logs is False
