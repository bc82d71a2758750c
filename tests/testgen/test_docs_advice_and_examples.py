"""The documentation writer's rules from the errors of held-out rounds six to eleven (griffe, alembic; urllib3,
mkdocstrings-python, anyio; mkdocstrings, towncrier, pytest-asyncio, pymdown-extensions, trio, markdown-exec; cattrs,
falcon, babel, h11, nox; rq, apscheduler, huey, flask-sqlalchemy, wtforms; factory-boy, flask-caching,
pytest-django, pytest-xdist, sphinx-copybutton, flask-wtf; each read after its measurement): advice headings,
answers that are pleasantries, negatives, needs, pointers or another way, answers that undo the task or restate it
before a code block, adjectival -ing headings, roles and judgements read as definitions, partial and conditional
answers, clause subjects, the docs talking about themselves, tasks of a command's own section or naming their own
means, example, type and generic parameter names, glossary entries that spell their name out, defaults that must
agree with their subject, and mkdocs-autorefs links. The pages are the sentences that went wrong, each beside a near
neighbour that must still give its question."""

from __future__ import annotations

from pathlib import Path

from testgen import ExtractiveWriter, chunk_documents, read_files
from testgen.structure import ChunkLine
from testgen.writers.clause import Casing
from testgen.writers.defaults import default_question
from testgen.writers.docs import glossary_fact, instruction_fact, named_as_thing, option_fact
from testgen.writers.headings import task_phrase
from testgen.writers.instructions import instructs
from testgen.writers.morphology import gerund_base
from testgen.writers.patterns import turn_all


def _questions(tmp_path: Path, name: str, markdown: str) -> dict[str, str]:
    """Every question the offline writer drafts from one Markdown page: question -> reference."""
    page = tmp_path / name
    page.write_text(markdown, encoding="utf-8")
    chunks = chunk_documents(read_files(page).documents)
    writer = ExtractiveWriter()
    writer.prepare(chunks)
    found = {fact.question: fact.reference for chunk in chunks for fact in writer._chunk_doc_facts(chunk)}
    found.update({fact.turned.question: fact.sentence for chunk in chunks for fact in writer.facts(chunk)})
    return found


def test_advice_headings_name_no_task() -> None:
    casing = Casing("")
    assert task_phrase("Prefer canonical imports", casing) is None
    assert task_phrase("Avoid forward references in base classes", casing) is None
    assert task_phrase("Consider using a cache", casing) is None
    assert task_phrase("Install dependencies", casing) == "install dependencies"


def test_pleasantries_negatives_and_still_do_not_instruct() -> None:
    assert not instructs("Feel free to store different values to help you filter objects according to your needs.")
    assert not instructs("You don't have to load anything through the Griffe loader.")
    assert not instructs("You do not need to restart the server.")
    assert not instructs("If you want to specify the type without a name, you still have to wrap the type in parens.")
    assert instructs("You just need to import the `Docstring` class.")
    assert instructs("To expose lazy module members during inspection, define `__dir__` to include their names.")


def test_an_ing_word_the_section_uses_as_an_adjective_names_a_thing() -> None:
    body = [ChunkLine("prose", "Use `make check-api` to check if there are any breaking changes.")]
    assert named_as_thing("Breaking changes and deprecations", body)
    sending = [ChunkLine("prose", "When sending JSON data, pass the `json` argument.")]
    assert not named_as_thing("Sending JSON data", sending)


def test_a_glossary_entry_that_spells_its_name_out_defines_nothing() -> None:
    spelled = ChunkLine("item", "`type_parameters`: The type parameters of the class.", term="`type_parameters`")
    assert glossary_fact(spelled) is None
    defined = ChunkLine("item", "`httpcore`: The underlying transport implementation for `httpx`.", term="`httpcore`")
    fact = glossary_fact(defined)
    assert fact is not None and fact.question == "What is `httpcore`?"


def test_sentences_that_answer_in_part_or_lean_on_their_section(tmp_path: Path) -> None:
    questions = _questions(
        tmp_path,
        "architecture.md",
        "# Project architecture\n\n## Sources\n\nSources are located in the packages/ subfolders, following the "
        "src-layout.\n\n## Output formats\n\nMDX is the default output and Markdown is also supported via a flag.\n\n"
        "Rye is an all-in-one solution for Python project management, written in Rust.\n\n"
        "## Operations\n\nThe replace parameter also enables conditional execution of operation behavior.\n\n"
        "The `EnvironmentContext` class provides most of the API used within an env.py script.\n\n"
        "## Checking\n\nTelling if a type construct is compatible with another one is not trivial, especially "
        "statically.\n\n## Loading\n\nThe `__all__` list marks hello as public.\n",
    )
    assert "What is Rye?" in questions
    assert "What does the EnvironmentContext class provide?" in questions
    for bad in ("sources", "What is MDX?", "replace parameter", "telling", "__all__"):
        assert not any(bad.lower() in question.lower() for question in questions), (bad, questions)


def test_a_command_sections_task_names_the_command(tmp_path: Path) -> None:
    questions = _questions(
        tmp_path,
        "commands.md",
        "# Management commands\n\n## `fuzz`\n\nRun the fuzzer over the parser.\n\n"
        "To reproduce a failure, pass its seed, for example `make fuzz seeds=12345`.\n\n"
        "## Releasing\n\nTo publish a release, run `make release version=1.2.3`.\n",
    )
    assert "How do you publish a release?" in questions
    assert not any("reproduce" in question for question in questions), questions


def test_autorefs_links_keep_their_words(tmp_path: Path) -> None:
    questions = _questions(
        tmp_path,
        "navigating.md",
        "# Navigating APIs\n\n## Expressions\n\nExpressions are trees of names.\n\n"
        "To modernize an expression, simply call its [`modernize()`][griffe.Expr.modernize] method.\n\n"
        "See [the guide][guide] for [more][].\n\n[guide]: https://example.org/guide\n",
    )
    reference = questions["How do you modernize an expression?"]
    assert reference == "To modernize an expression, simply call its `modernize()` method."
    page = tmp_path / "navigating.md"
    [document] = read_files(page).documents
    assert "[" not in document.page_content.replace("[more][]", "") and "the guide" in document.page_content


def test_answers_that_need_undo_or_replace_the_task(tmp_path: Path) -> None:
    assert not instructs("Occasionally you may need to call synchronous code in the event loop thread.")
    assert instructs("To use urllib3 in Node.js, you need to use Node.js version 20 or newer.")
    questions = _questions(
        tmp_path,
        "environments.md",
        "# Environments\n\n## Entering environments\n\nYou can type `exit` to leave the environment.\n\n"
        "## Using system certificate stores\n\nTo opt-out of using system certificates you can pass the "
        "`--use-deprecated=legacy-certs` flag to pip.\n\n"
        "## Using the PYTHONPATH environment variable\n\nWe recommend using the `paths` method instead.\n\n"
        "## Running local proxies\n\nRun an HTTP proxy locally:\n\n```bash\n$ python -m dummyserver.proxy\n```\n\n"
        "## Spawning a shell\n\nYou can spawn a shell within an environment by using the `shell` command.\n",
    )
    assert "How do you spawn a shell?" in questions
    for task in ("enter environments", "use system certificate stores", "use the PYTHONPATH", "run local proxies"):
        assert not any(task in question for question in questions), (task, questions)


def test_instructions_that_name_their_own_means(tmp_path: Path) -> None:
    questions = _questions(
        tmp_path,
        "advanced.md",
        "# Advanced usage\n\n## Proxies\n\nYou can use `ProxyManager` to tunnel requests through an HTTP proxy.\n\n"
        "## gevent\n\nTo use gevent to serve your application, write a script that imports its `WSGIServer`.\n",
    )
    assert "How do you use gevent to serve your application?" in questions
    assert not any("ProxyManager" in question for question in questions), questions


def test_conditional_partial_and_self_referring_sentences(tmp_path: Path) -> None:
    questions = _questions(
        tmp_path,
        "guide.md",
        "# User guide\n\n## Certificate verification\n\nThe `PoolManager` will raise `SSLError` if verification "
        "fails.\n\nThe `HTTPResponse` object provides status, data, and headers attributes.\n\n"
        "## Usage\n\nThe more in-depth advanced usage guide is the place to go for lower-level tweaking.\n\n"
        "## TLS versions\n\nStarting in v2.0 by default urllib3 uses TLS 1.2 and later.\n\n"
        "## Call graphs\n\nPython 3.14 added support for call graph introspection on asyncio.\n",
    )
    assert "What does the HTTPResponse object provide?" in questions
    for bad in ("raise", "guide", "starting", "3.14"):
        assert not any(bad in question.lower() for question in questions), (bad, questions)


def test_a_type_column_names_no_option() -> None:
    assert option_fact(ChunkLine("item", "`str`: The text to convert.", term="`str`"), "Parameters") is None
    named = option_fact(ChunkLine("item", "`timeout`: The timeout to use.", term="`timeout`"), "Parameters")
    assert named is not None and named.question == "What does the `timeout` parameter control?"


def test_cautions_finer_tasks_and_noun_lists_are_no_how_to(tmp_path: Path) -> None:
    casing = Casing("")
    assert not instructs("Make sure only the emoji tests get updated.")
    assert (
        instruction_fact("When specifying a snippet, you can specify which lines you wish to include.", casing) is None
    )
    fact = instruction_fact("To create a custom field class, create a subclass of `Field`.", casing)
    assert fact is not None and fact.question == "How do you create a custom field class?"
    assert task_phrase("Cancel points and schedule points", casing) is None
    assert task_phrase("Install Flask and Jinja", Casing("Use Flask with Jinja.")) == "install Flask and Jinja"
    questions = _questions(
        tmp_path,
        "channels.md",
        "# Channels\n\n## Buffering in channels\n\nYou can disable buffering entirely, by doing "
        "`open_memory_channel(0)`.\n",
    )
    assert not any("buffer" in question for question in questions), questions


def test_items_names_people_imperatives_and_one_of_several(tmp_path: Path) -> None:
    assert (
        default_question(
            "By default, if Material for MkDocs is used, custom icons will be rendered.", "Tree", Casing(""), 10
        )
        is None
    )
    questions = _questions(
        tmp_path,
        "libraries.md",
        "# Awesome libraries\n\n## Web\n\n- Slurry - Slurry is a microframework for building reactive applications.\n"
        "\n## People\n\nNathaniel J. Smith is the Trio BDFL.\n\n## Factories\n\nAssume conftest.py provides two "
        "named factories.\n\n## Highlight\n\nThe Highlight extension provides a third line number style called "
        "pymdownx-inline.\n\nThe Tasklist extension adds GFM style task lists.\n",
    )
    assert "What does the Tasklist extension add?" in questions
    for bad in ("Slurry", "Smith", "conftest", "Highlight"):
        assert not any(bad in question for question in questions), (bad, questions)


def test_defaults_and_gerund_subjects_agree_with_their_verb() -> None:
    sentence = "Building man pages requires only Sphinx itself and its plugins."
    assert [t.question for t in turn_all(sentence, Casing(sentence), 10)] == ["What does Building man pages require?"]
    casing = Casing("Use Nox and Falcon. Nox runs sessions.")
    found = default_question("By default, Nox will output colorful logs.", "Usage", casing, 12)
    assert found is not None and found[0] == "Does Nox output colorful logs by default?"
    sentence = "By default, Falcon's built-in CORS support is disabled, so that requests are blocked."
    found = default_question(sentence, "CORS", casing, 12)
    assert found is not None and found[0] == "Is Falcon's built-in CORS support disabled by default?"


def test_pointers_extras_troubleshooting_and_list_leads(tmp_path: Path) -> None:
    assert task_phrase("Welcome to Nox", Casing("")) is None
    questions = _questions(
        tmp_path,
        "deploy.md",
        "# Deploying\n\n## Introducing hooks\n\nCheck out the hooks reference to learn more.\n\n"
        "## Queueing sessions\n\nYou can also pass the notified session positional arguments.\n\n"
        "## Connecting NGINX and uWSGI\n\nCheck your uWSGI and NGINX logs for errors if the application does not "
        "start.\n\n## Who is using Falcon?\n\nFalcon is used by a growing number of organizations, including:\n\n"
        "- Example Corp\n\n## Packaging\n\nBuilding man pages requires only Sphinx itself and its "
        "plugins.\n\n## Status values\n\n`PAUSED` is a little more subtle than the others.\n",
    )
    for bad in ("hooks", "queue", "connect", "Who", "PAUSED", "What do building"):
        assert not any(bad in question for question in questions), (bad, questions)


def test_tenth_round_forms_options_labels_and_roles(tmp_path: Path) -> None:
    assert (gerund_base("putting"), gerund_base("routing"), gerund_base("hopping")) == ("put", "route", "hop")
    casing = Casing("")
    assert instruction_fact("When creating a worker, you can pass in a custom serializer for jobs.", casing) is None
    assert instruction_fact("To pause a job, use either method.", casing) is None
    assert instruction_fact("If you want to run the very latest, you can clone the source repo.", casing) is None
    assert not instructs("You control the object's constructor, its lifecycle, and everything else about it.")
    spelled = ChunkLine("item", "`widget`: The widget used to render the field.", term="`widget`")
    assert glossary_fact(spelled) is None
    (tmp_path / "api.rst").write_text(
        "API\n===\n\nThe :class:`.Pagination` object's :attr:`.Pagination.items` attribute is the list of items for "
        "the current page. Create a :file:`.venv` folder.\n",
        encoding="utf-8",
    )
    [document] = read_files(tmp_path / "api.rst").documents
    assert "The `Pagination` object's `Pagination.items` attribute" in document.page_content
    assert "`.venv`" in document.page_content
    questions = _questions(
        tmp_path,
        "deploy.md",
        "# Deployment\n\n## Kubernetes\n\nKubernetes is a minimal worker deployment fragment:\n\n```yaml\nkind: x\n```"
        "\n\n## Storage\n\nDequeues use select ... for update skip locked.\n\nFileHuey raises `ValueError` at "
        "enqueue otherwise.\n\nDjango 6.0 includes django.tasks, a standard interface for tasks.\n\n"
        "## Forms\n\nRequirements Some CSRF-prevention methods require the use of browser cookies.\n\n"
        "The `SignedSerializer` adds an HMAC signature to every message.\n",
    )
    assert "What does the SignedSerializer add to every message?" in questions
    for bad in ("Kubernetes", "Dequeues", "FileHuey", "Django", "Requirements"):
        assert not any(bad in question for question in questions), (bad, questions)


def test_generic_parameters_run_together_descriptions_and_code_leads(tmp_path: Path) -> None:
    for name in ("kwargs", "arg"):
        line = ChunkLine("item", f"`{name}`: The default arguments to pass to the method.", term=f"`{name}`")
        assert option_fact(line, "Parameters") is None and glossary_fact(line) is None
    joined = "`dict_factory`: The actual factory to use for the dict can be set as a keyword argument."
    assert option_fact(ChunkLine("item", joined, term="`dict_factory`"), "Parameters") is None
    assert glossary_fact(ChunkLine("item", joined, term="`dict_factory`")) is None
    kept = "`allow_origins`: A list of origins that should be permitted to make cross-origin requests."
    assert option_fact(ChunkLine("item", kept, term="`allow_origins`"), "Parameters") is not None
    assert not instructs("To instantiate a `python3.9` subprocess and send tests to it, you may type.")
    assert not instructs("Suppose you have a package `mypkg` which contains some tests.")
    questions = _questions(
        tmp_path,
        "fixtures.md",
        "# Fixtures\n\n## More\n\nMore information on fixtures is available in the pytest documentation.\n\n"
        "Just as Django's ImageField requires the Python Imaging Library, this ImageField requires it too.\n\n"
        "The `live_server` fixture uses `transactional_db`.\n",
    )
    assert "What does the live_server fixture use?" in questions
    assert not any("information" in q or "Just" in q or "just" in q for q in questions), questions
