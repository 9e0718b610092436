# Every target creates .venv and installs what it needs: a fresh machine only has Python 3.11 + pip.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SAMPLE ?= sample_transcripts/coding-session-long.jsonl
LINT_PATHS := compactor tests $(wildcard bench)

.PHONY: run test test-slow coverage check lint typecheck format bench test-real-llm test-resume clean
# Test workers: one more than the cores (at most 4; tests/conftest.py says why);
# PYTEST_WORKERS=0 runs the suite in this process.
PYTEST_WORKERS ?= auto --maxprocesses=4

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

OUT ?= build

run: $(STAMP)  ## compact a sample with the embedded model (no key, no network) and show its summary
	mkdir -p $(OUT)
	$(BIN)/compact run $(SAMPLE) --model local -o $(OUT)/sample.compact.jsonl
	$(BIN)/compact show $(OUT)/sample.compact.jsonl
	@echo "==> compact is $(BIN)/compact (put it on PATH: source $(VENV)/bin/activate), the compacted sample is $(OUT)/sample.compact.jsonl; next, try: compact check --explain $(SAMPLE)"

# COVERAGE=1 runs it under coverage, failing below the floor in pyproject.toml (make check does).
test: $(STAMP)  ## the whole test suite, one worker per core and one more
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) $(if $(filter 1,$(COVERAGE)),--cov --cov-report=term)

test-slow: $(STAMP)  ## the suite with every property test at its full example count (up to 3,000)
	COMPACT_SLOW_TESTS=1 $(MAKE) test

coverage:  ## the whole test suite under coverage; fails below the floor in pyproject.toml
	$(MAKE) test COVERAGE=1

lint: $(STAMP)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/ruff check $(LINT_PATHS)

typecheck: $(STAMP)
	$(BIN)/mypy

check: lint typecheck coverage  ## format check + ruff + mypy --strict + the suite with its coverage floor

format: $(STAMP)
	$(BIN)/ruff format $(LINT_PATHS)
	$(BIN)/ruff check --fix $(LINT_PATHS)

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

test-real-llm: $(STAMP)  ## opt-in: build llama.cpp (cached venv), serve SmolLM2-135M, run compact against it
	bash scripts/real_llm.sh

test-resume: $(STAMP)  ## opt-in: install Claude Code + Codex (npm, cached), resume our --append output
	bash scripts/resume_clients.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .coverage .coverage.*
