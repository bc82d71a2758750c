# ragtest developer tasks. `make demo` installs and runs the whole job offline; `make test` runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# The demo page ships in the repository (examples/wikipedia, CC BY-SA 4.0; see its ATTRIBUTION.md).
WIKI_CACHE ?= examples/wikipedia
TOPIC ?= Python (programming language)
RUN_DIR ?= runs/python

.PHONY: install demo test test-all check lint typecheck imports docs bench clean

STAMP := $(VENV)/.installed

# torch first, pinned to the CPU build this machine provides locally; sentence-transformers then keeps it.
# (Elsewhere: install whatever torch build you like first; ragtest accepts torch>=2.1.)
$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[offline,openai,distributed,llamaindex,docs,dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(VENV)/bin/ragtest run --topic "$(TOPIC)" --wiki-cache $(WIKI_CACHE) --offline --size 20 --out $(RUN_DIR)

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

test-all: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -m ""

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check ragtest_core ragtest testgen rag_under_test evaluation

imports: $(STAMP)
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

check: lint typecheck imports

# The docs site (mkdocs.yml, docs/), built strictly: a broken link or a missing page fails the build.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir build/site

bench:
	HF_HUB_OFFLINE=1 $(PY) -m bench

clean:
	rm -rf runs build .pytest_cache .mypy_cache .ruff_cache
