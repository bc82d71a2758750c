"""Where the documents come from: Wikipedia topics (pinned to revisions) and local files."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from ragtest.settings import Opt, Section
from testgen.wikipedia_source import CACHE_ENV, OFFLINE_ENV


class SourceConfig(Section):
    """Where the documents come from."""

    group = "sources"
    model_config = ConfigDict(coerce_numbers_to_str=True)

    topic: Annotated[
        str | None,
        Field(
            description='a Wikipedia page title, e.g. "Python (programming language)" ("Title@revid" pins a revision)'
        ),
    ] = None
    source: Annotated[
        str | None, Field(description="a local file or folder of documents (.txt, .md, .rst, .ipynb, .html, .pdf)")
    ] = None
    revision: Annotated[
        str | None, Field(description="the revision id of --topic's page to load (pins the test set's source)")
    ] = None
    topics_file: Annotated[
        str | None,
        Field(description="a file of Wikipedia topics, one a line: Title or Title@revid"),
        Opt(flag="--topics", metavar="FILE"),
    ] = None
    wiki_cache: Annotated[
        str | None,
        Field(description="folder of cached Wikipedia pages (Title_with_underscores.txt)"),
        Opt(env=CACHE_ENV, metavar="DIR"),
    ] = None
    wiki_timeout_s: Annotated[
        float, Field(gt=0, description="seconds per Wikipedia request"), Opt(flag="--wiki-timeout")
    ] = 10.0
    offline: Annotated[
        bool,
        Field(description="read Wikipedia pages from the cache only, never the network"),
        Opt(env=OFFLINE_ENV),
    ] = False
