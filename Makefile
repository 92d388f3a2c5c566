# The two quick-start commands: `make run` (the room on http://127.0.0.1:8000) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench clean browser-deps

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,openspiel]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/trickroom serve --host 127.0.0.1 --port 8000

# Browser tests need Debian's chromium; install it when missing (root, as on the dev and CI machines).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || \
		{ echo "Installing chromium for the browser tests..."; \
		  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || \
		  echo "Could not install chromium: browser tests will be skipped (or fail under TRICKROOM_REQUIRE_SERVICES)."; }

lint: $(STAMP)
	$(BIN)/ruff check trickroom tests bench tools

typecheck: $(STAMP)
	$(BIN)/mypy

# The tests run in TEST_WORKERS processes (one per core here), a test file per process at a time: a file's
# module fixtures (a room, a browser) are made once. TEST_WORKERS=0 runs them in this process, one by one.
TEST_WORKERS ?= 2
pytest: $(STAMP) browser-deps
	$(BIN)/pytest -q $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
