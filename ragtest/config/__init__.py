"""Run configuration: every setting of a run, each declared once as a typed field with its default, help text and
validation, in the stage or core model that owns it where there is one (`ragtest.settings` derives the CLI flags,
`make_config` and the manifest's record from these models).
"""

from ragtest.config.generation import GenerationConfig
from ragtest.config.llm import LLMSettings
from ragtest.config.run import RunConfig, parse_metric_list
from ragtest.config.sources import SourceConfig

__all__ = ["GenerationConfig", "LLMSettings", "RunConfig", "SourceConfig", "parse_metric_list"]
