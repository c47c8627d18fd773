# gluonedu developer entry points.
#   make lab    - create/update the virtual environment with what the notebooks need (the
#                 notebook, fast and tensorboard extras), then start JupyterLab on notebooks/
#   make test   - add the test, dist and docs extras, the MXNet 1.9.1 oracle and Chromium
#                 (for the browser tests), then run pytest + nbval on the curriculum
#                 (notebooks/NN_*.ipynb), and nbval once more without the BLAS pins; the
#                 tests build the docs too
#   make execute - re-execute curriculum notebooks in place (NB=...), as the tests run them
#   make docs   - the API reference and the curriculum as HTML in build/docs (Sphinx)
#   make parity - the MXNet 1.9.1 parity suites only (tests/parity)
#   make api-coverage - which of MXNet 1.9.1's public names gluonedu has, lacks, or leaves
#                 out on purpose: docs/api-coverage.md (scripts/api_coverage.py)
#   make ref-venv - build the MXNet 1.9.1 reference environment (the parity oracle) only
#   make clean  - remove the virtual environment(s) and caches
# Only python3 (3.10+) with the venv module is needed; everything else comes from PyPI.

VENV     ?= .venv
PYTHON   ?= python3
LAB_PORT ?= 8888
# Extra arguments for `jupyter lab`, e.g. LAB_ARGS=--no-browser
LAB_ARGS ?=
# Extra arguments for pytest, e.g. PYTEST_ARGS='-x -k trainer' or PYTEST_ARGS='-m "not slow"'
PYTEST_ARGS ?=
# pytest-xdist workers for `make test` (one per core; 0 runs everything in one process).
PYTEST_WORKERS ?= auto

# What `make lab` installs: what the curriculum imports. Ray (the dist extra) is left
# out: it is the largest package and only notebook 12 needs it, which says how to add it.
LAB_EXTRAS  := notebook,fast,tensorboard
# What `make test` installs on top: pytest, nbval and the browser tests; Ray; Sphinx.
TEST_EXTRAS := $(LAB_EXTRAS),test,dist,docs

# The curriculum: notebooks/NN_name.ipynb. Any other notebook there (a teacher's own
# Untitled.ipynb) is not tested.
CURRICULUM := $(wildcard notebooks/[0-9][0-9]_*.ipynb)

# Where `make docs` writes the HTML.
DOCS_BUILD ?= build/docs

# MXNet 1.9.1 reference environment: the oracle the parity tests (tests/parity) compare
# against. The tests find its interpreter through GLUONEDU_MXNET_PYTHON.
REF_VENV ?= .venv-mxnet
REF_PYTHON ?= $(PYTHON)
MXNET_PYTHON := $(abspath $(REF_VENV))/bin/python

VENV_PYTHON := $(VENV)/bin/python
LAB_STAMP   := $(VENV)/.installed-lab
STAMP       := $(VENV)/.installed
REF_STAMP   := $(REF_VENV)/.installed

# JupyterLab refuses to start as root without --allow-root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# Everything jupyter / IPython / matplotlib write during tests stays inside the venv.
TEST_VAR := $(abspath $(VENV))/var

.PHONY: all venv lab test execute docs parity api-coverage clean ref-venv chromium

all: test

venv: $(STAMP)

# The recipes that can fail say why themselves: they are silent (@), so that make never
# echoes an "error:" text of a command that succeeds.
$(VENV_PYTHON):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "error: gluonedu needs Python 3.10+; '$(PYTHON)' is $$($(PYTHON) --version 2>&1). Use 'make PYTHON=python3.X ...'." >&2; exit 1; }
	@echo "creating the virtual environment $(VENV) ($(PYTHON) -m venv)"
	@$(PYTHON) -m venv $(VENV) || \
	  { echo "error: '$(PYTHON) -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)." >&2; exit 1; }
	$(VENV_PYTHON) -m pip install --upgrade pip

# Each stamp: its extras installed (again whenever pyproject.toml changes). What `make
# test` installs includes what `make lab` needs.
$(LAB_STAMP): pyproject.toml | $(VENV_PYTHON)
	$(VENV_PYTHON) -m pip install -e '.[$(LAB_EXTRAS)]'
	@touch $@

$(STAMP): pyproject.toml | $(VENV_PYTHON)
	$(VENV_PYTHON) -m pip install -e '.[$(TEST_EXTRAS)]'
	@touch $@ $(LAB_STAMP)

lab: $(LAB_STAMP)
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=$(CURDIR)/notebooks --ip=127.0.0.1 --port=$(LAB_PORT) $(ALLOW_ROOT) $(LAB_ARGS)

test: export JUPYTER_CONFIG_DIR  = $(TEST_VAR)/jupyter/config
test: export JUPYTER_DATA_DIR    = $(TEST_VAR)/jupyter/data
test: export JUPYTER_RUNTIME_DIR = $(TEST_VAR)/jupyter/runtime
test: export JUPYTER_PLATFORM_DIRS = 1
test: export IPYTHONDIR          = $(TEST_VAR)/ipython
test: export MPLCONFIGDIR        = $(TEST_VAR)/matplotlib
test: export MPLBACKEND          = Agg
# The notebooks' stored outputs are compared digit for digit, and OpenBLAS's float32 products
# round differently with the thread count and the CPU kernel it picks: the notebooks are
# executed (`make execute`) and tested with one thread and Haswell's (AVX2) kernels, the
# same on every x86-64 machine, whatever its core count. What a lesson prints and asserts
# must hold on a student's BLAS too: `make test` runs the curriculum a second time without
# these pins (two threads, the machine's own kernels), nbval strict again, where a value
# that truly depends on the machine sits in a cell tagged nbval-ignore-output; and
# tests/test_exercise_mutants.py runs every lesson and exercise without them as well.
test execute: export OPENBLAS_NUM_THREADS = 1
test execute: export OPENBLAS_CORETYPE    = Haswell
# Parity tests skip (naming why) without a working oracle, but fail when CI is set.
test: export GLUONEDU_MXNET_PYTHON = $(MXNET_PYTHON)
test: $(STAMP) $(REF_STAMP) chromium
	$(VENV_PYTHON) -m pytest tests $(CURRICULUM) --nbval --nbval-current-env --nbval-sanitize-with nbval_sanitize.cfg -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)
	@echo "the curriculum again without the BLAS pins (OPENBLAS_NUM_THREADS=2, the machine's own kernels)"
	@env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=2 $(VENV_PYTHON) -m pytest $(CURRICULUM) --nbval --nbval-current-env --nbval-sanitize-with nbval_sanitize.cfg -n $(PYTEST_WORKERS) --dist loadfile -p no:cacheprovider $(PYTEST_ARGS) || [ $$? -eq 5 ]

# Re-execute curriculum notebooks in place, as the tests run them:
# `make execute NB=notebooks/05_noise_and_batch_size.ipynb` (default: all of them).
NB ?= $(CURRICULUM)
execute: export MPLBACKEND = module://matplotlib_inline.backend_inline
execute: $(STAMP)
	@for nb in $(NB); do \
	  echo "executing $$nb"; \
	  $(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace --log-level=WARN $$nb || exit 1; \
	done

# The API reference (autodoc from the docstrings) and the curriculum as saved, not re-run
# (myst-nb). tests/test_docs.py builds the same with warnings as errors.
docs: $(STAMP)
	$(VENV_PYTHON) -m sphinx -W --keep-going -q -b html docs $(DOCS_BUILD)
	@echo "the API reference and the curriculum: $(DOCS_BUILD)/index.html"

parity: export GLUONEDU_MXNET_PYTHON = $(MXNET_PYTHON)
parity: $(STAMP) $(REF_STAMP)
	$(VENV)/bin/python -m pytest tests/parity $(PYTEST_ARGS)

# The API coverage report, from MXNet 1.9.1's names listed by the reference interpreter.
# The script says what went wrong itself (and refuses to shrink the in-scope set).
api-coverage: export GLUONEDU_MXNET_PYTHON = $(MXNET_PYTHON)
api-coverage: $(STAMP) $(REF_STAMP)
	@$(VENV_PYTHON) scripts/api_coverage.py

# The browser test (tests/browser) drives Debian's Chromium at /usr/bin/chromium through
# Playwright (which never downloads a browser here). Installed with apt-get when missing and
# we are root (as in CI); otherwise this says what to install, and the test fails under CI
# and skips elsewhere.
chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing chromium (apt-get) for the browser test"; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  else \
	    echo "note: /usr/bin/chromium is missing; the browser test needs it: sudo apt-get install chromium" >&2; \
	  fi; \
	fi

# MXNet 1.9.1 + NumPy < 1.24 as the reference oracle for the parity tests (`make test` builds it
# first). pip keeps its wheel cache (~/.cache/pip, or PIP_CACHE_DIR): a rebuild reuses the wheels.
# numpy<1.24 has wheels only up to CPython 3.11, so REF_PYTHON must be 3.8-3.11.
# libmxnet.so bundles libopenblas/libgfortran but links the system libgomp.so.1 and libquadmath.so.0.
ref-venv: $(REF_STAMP)

$(REF_STAMP):
	$(REF_PYTHON) -m venv $(REF_VENV)
	$(REF_VENV)/bin/python -m pip install --upgrade pip
	$(REF_VENV)/bin/python -m pip install mxnet==1.9.1 "numpy<1.24"
	@$(REF_VENV)/bin/python -c "import mxnet as mx; print('mxnet', mx.__version__, mx.nd.ones((2, 2)))" || \
	  { echo "error: mxnet does not import; it needs libgomp.so.1 and libquadmath.so.0 (Debian: apt-get install libgomp1 libquadmath0)." >&2; exit 1; }
	touch $@

clean:
	rm -rf $(VENV) $(REF_VENV) .pytest_cache build dist *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +

# Student versions of the curriculum notebooks, made with nbgrader (docs/exercises.md):
# build/assignments/release/<notebook>/<notebook>.ipynb, one assignment per notebook.
.PHONY: assignments
assignments: $(STAMP)
	$(VENV)/bin/python scripts/assignments.py --course-dir build/assignments
