# Line-it Arena. `make run` installs and runs the platform; `make test` installs and runs every test.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin

.PHONY: install engine system-deps services test lint run bench clean lock

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

install: $(BIN)/.installed engine

# The engine's hot modules compiled with mypyc (skipped when current; without a C compiler the
# engine runs from its Python source). See scripts/build_engine.py.
engine: $(BIN)/.installed
	$(BIN)/python scripts/build_engine.py

system-deps:
	./scripts/install-system-deps.sh

services:
	./scripts/start-services.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy lineit lineit_platform bots tournaments notifications

test: install system-deps services lint
	$(BIN)/pytest

run: install
	LINEIT_BROWSER=0 ./scripts/install-system-deps.sh
	$(BIN)/python manage.py runplatform

bench: install
	$(BIN)/python benchmarks/engine.py

# The lock files the Docker image installs from, every file pinned by hash (pip-tools): the
# platform's dependencies (pyproject.toml) and the image's build tools (deploy/build-requirements.in).
# Only PyPI's files and hashes, whatever this machine's pip configuration adds; existing pins are
# kept (delete a line, or the file, to move a package on).
PIP_COMPILE = env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(abspath $(BIN))/pip-compile --quiet --generate-hashes \
	--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links --index-url https://pypi.org/simple
lock: $(BIN)/.installed
	$(PIP_COMPILE) --extra s3 -o requirements.lock pyproject.toml
	cd deploy && $(PIP_COMPILE) -o build-requirements.lock build-requirements.in

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
	rm -f lineit/engine/*.so lineit/engine/native.json
