# Two commands do all the set-up:  make run  and  make test.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q
PORT   ?= 8501
NPM    ?= npm

.PHONY: run test install install-dev lint format e2e wordnet clean js

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# Re-install only when a requirements file changes.
$(VENV)/.installed: requirements.txt constraints.txt | $(PY)
	$(PIP) install -r requirements.txt -c constraints.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(PIP) install -r requirements-dev.txt -c constraints.txt
	# irrCAC is the tests' reference for Gwet's AC2 and Fleiss with missing ratings; its own
	# pins (scipy==1.12, pandas<3) clash with ours, and it runs fine on them: no deps.
	$(PIP) install --no-deps irrCAC==0.4.4
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

# The annotation client's JavaScript tools (eslint, axe-core for the browser tests): pinned
# in package-lock.json; node_modules/ is not committed.
node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	touch $@

## Lint and unit-test the annotation client's JavaScript (eslint; node's test runner).
js: node_modules/.installed
	$(NPM) run --silent lint
	$(NPM) test --silent

## Start the app on the embedded SQLite database with the demo projects.
run: install
	$(PY) cli.py demo --if-empty
	$(VENV)/bin/streamlit run serve.py --server.headless true --server.port $(PORT)

## WordNet for METEOR (Debian packages, unpacked into data/nltk_data; optional).
wordnet:
	-bash scripts/install_wordnet.sh

## Install everything and run the whole suite (browser tests need /usr/bin/chromium).
test: install-dev wordnet js
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest

lint: install-dev node_modules/.installed
	$(NPM) run --silent lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-output node_modules
