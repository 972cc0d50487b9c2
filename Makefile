# The two commands of the quick start: `make demo` and `make test`.
# Both work on a fresh machine with only python3 and make: they create .venv and
# install the locked dependencies (requirements.lock) into it first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export DAGSTER_HOME := $(CURDIR)/var/dagster_home
export DAGSTER_DISABLE_TELEMETRY := 1
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: demo test lint types contracts pytest venv clean lock bench bench-full

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m pipelines.demo

lint: $(STAMP)
	$(BIN)/ruff check .

types: $(STAMP)
	$(BIN)/mypy

contracts: $(STAMP)
	$(BIN)/lint-imports

pytest: $(STAMP)
	$(BIN)/python -m pytest

test: lint types contracts pytest

bench: $(STAMP)
	$(BIN)/python -m bench

# Serving benchmark over a directory of full-corpus indexes (default: the release of `make bench-full`):
#   make bench-serve OUT=var/bench-serve [INDEX_DIR=var/bench-full/indexes] [BENCH_SECONDS=60] [BENCH_CLIENTS=8]
INDEX_DIR ?= var/bench-full/indexes
BENCH_SECONDS ?= 60
BENCH_CLIENTS ?= 8
.PHONY: bench-serve
bench-serve: $(STAMP)
	@test -n "$(OUT)" || (echo "usage: make bench-serve OUT=DIR [INDEX_DIR=DIR]" >&2; exit 2)
	$(BIN)/python -m bench.bench_serve_full --index-dir $(INDEX_DIR) --out $(OUT) --seconds $(BENCH_SECONDS) --clients $(BENCH_CLIENTS)

# The full-corpus benchmark (not part of `make test`; bench/README.md): CORPORA holds the exported
# lex-corpus-lu-legilux/ and lex-corpus-eu-eurlex/ (only read); everything is built into OUT.
bench-full: $(STAMP)
	@test -n "$(CORPORA)" -a -n "$(OUT)" || { echo "usage: make bench-full CORPORA=DIR OUT=DIR"; exit 2; }
	$(BIN)/python -m bench.bench_full --corpora "$(CORPORA)" --out "$(OUT)" $(BENCH_FULL_ARGS)

# Regenerate the lock file from pyproject.toml (needs the network to the package index).
lock:
	$(PYTHON) -m pip install --quiet uv && $(PYTHON) -m uv pip compile pyproject.toml --extra dev --extra hybrid --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV) var build *.egg-info
