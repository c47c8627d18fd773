# gluonedu developer entry points.
#   make lab    - create/update the lab's virtual environment (.venv) with what the notebooks
#                 need (the notebook, fast and tensorboard extras), then start JupyterLab
#                 on notebooks/
#   make test   - create/update the developers' environment (.venv-dev: everything, with the
#                 test, dist and docs extras), the MXNet 1.9.1 oracle and Chromium (for the
#                 browser tests), then run pytest + nbval on the curriculum
#                 (notebooks/NN_name.ipynb), and nbval once more without the BLAS pins; the
#                 tests build the docs too
#   make execute - re-execute curriculum notebooks in place (NB=...), as the tests run them
#   make docs   - the API reference and the curriculum as HTML in build/docs (Sphinx)
#   make parity - the MXNet 1.9.1 parity suites only (tests/parity)
#   make assignments - the curriculum's student versions, in the nbgrader course
#                 build/assignments (COURSE_DIR); docs/exercises.md
#   make grade NB=03_momentum - autograde the course's submissions, write the feedback
#                 and grades.csv
#   make formgrader - JupyterLab on the course, opening nbgrader's Formgrader
#   make hub    - a class on this server (root): JupyterHub on 127.0.0.1:HUB_PORT, one
#                 Unix user per line of ROSTER, each student's JupyterLab run as that user,
#                 the course in the instructor's home and nbgrader's exchange (docs/hub.md)
#   make hub-venv - the class environment (.venv-hub) `make hub` runs from, only
#   make test-hub-ray - notebook 12's Ray clusters on a hub (root; 2.5 minutes, so not
#                 in make test): each student's own, the class's shared one, isolation
#   make cuda-check - compile the optimizers' CUDA kernels and run them on the CPU (no GPU)
#   make gpu-check - on a machine with a GPU: CuPy, the GPU tests and the GPU step benchmark
#   make bench  - the step, conv and instrument-overhead benchmarks against MXNet 1.9.1
#                 (and PyTorch), compared with benchmarks/baselines.json; make
#                 bench-baseline records that baseline anew (docs/benchmarks.md)
#   make api-coverage - which of MXNet 1.9.1's public names gluonedu has, lacks, or leaves
#                 out on purpose: docs/api-coverage.md (scripts/api_coverage.py)
#   make ref-venv - build the MXNet 1.9.1 reference environment (the parity oracle) only
#   make clean  - remove the virtual environment(s) and caches
# Only python3 (3.10+) with the venv module is needed; everything else comes from PyPI.

# The lab's environment holds what the notebooks need and nothing else: the tests, the
# docs, the assignments and grading (Sphinx, nbgrader, Playwright, Ray) live in their own,
# so that none of them changes what a student's JupyterLab shows.
VENV     ?= .venv
DEV_VENV ?= .venv-dev
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

# The curriculum: notebooks/NN_name.ipynb, name of [a-z0-9_] only (scripts/curriculum.py).
# Any other notebook there (a teacher's Untitled.ipynb, JupyterLab's 03_momentum-Copy1.ipynb)
# is not tested.
CURRICULUM := $(shell $(PYTHON) scripts/curriculum.py)

# Where `make docs` writes the HTML.
DOCS_BUILD ?= build/docs

# MXNet 1.9.1 reference environment: the oracle the parity tests (tests/parity) compare
# against. The tests find its interpreter through GLUONEDU_MXNET_PYTHON.
REF_VENV ?= .venv-mxnet
REF_PYTHON ?= $(PYTHON)
MXNET_PYTHON := $(abspath $(REF_VENV))/bin/python

LAB_PYTHON  := $(VENV)/bin/python
LAB_STAMP   := $(VENV)/.installed-lab
VENV_PYTHON := $(DEV_VENV)/bin/python
STAMP       := $(DEV_VENV)/.installed
REF_STAMP   := $(REF_VENV)/.installed

# A class on one server (docs/hub.md, `make hub`). The class environment holds gluonedu
# with the lab's extras, for every student's kernel, and beside it JupyterHub, JupyterLab
# and nbgrader (etc/hub/requirements.txt) and configurable-http-proxy (npm). Every user
# runs it, so it is built from a Python every user can run: the system's by default (a
# pyenv Python under /root is closed to them).
HUB_VENV   ?= .venv-hub
HUB_PYTHON ?= $(firstword $(wildcard /usr/bin/python3) $(PYTHON))
HUB_STAMP  := $(HUB_VENV)/.installed
# Where `make hub` serves (127.0.0.1 only: a TLS reverse proxy in front serves the class),
# whom (username,role lines), and where it keeps its state and the exchange.
HUB_PORT ?= 8000
ROSTER   ?= etc/hub/roster.example.csv
HUB_DIR  ?= /srv/gluonedu-hub
# Extra arguments for scripts/hub.py, e.g. HUB_ARGS='--exchange /srv/nbgrader/exchange'
HUB_ARGS ?=
# `make test` builds the class environment where the hub test can run: as root, with npm.
HUB_TEST_ENV := $(if $(and $(filter 0,$(shell id -u)),$(shell command -v npm)),$(HUB_STAMP))

# JupyterLab refuses to start as root without --allow-root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)

# Everything jupyter / IPython / matplotlib write during tests stays inside the venv.
TEST_VAR := $(abspath $(DEV_VENV))/var

# JupyterLab settings every environment with a lab carries (<venv>/share/jupyter/lab/settings):
# the widget manager saves widget state with the notebook, so that a notebook run and saved
# reopens with its widgets rather than "model not found". And the server's pre-save hook
# (<venv>/etc/jupyter): a save keeps the saved state of the widgets the outputs still show
# but the kernel no longer holds (a lesson opened and saved before its cells run again).
LAB_OVERRIDES := etc/jupyterlab/overrides.json
LAB_SERVER_CONFIG := etc/jupyter/jupyter_server_config.json
install_lab_config = mkdir -p $(1)/share/jupyter/lab/settings $(1)/etc/jupyter && \
  cp $(LAB_OVERRIDES) $(1)/share/jupyter/lab/settings/ && \
  cp $(LAB_SERVER_CONFIG) $(1)/etc/jupyter/

.PHONY: all venv lab test execute docs parity api-coverage cuda-check gpu-check clean ref-venv chromium

all: test

venv: $(STAMP)

# The recipes that can fail say why themselves: they are silent (@), so that make never
# echoes an "error:" text of a command that succeeds.
$(LAB_PYTHON) $(VENV_PYTHON):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "error: gluonedu needs Python 3.10+; '$(PYTHON)' is $$($(PYTHON) --version 2>&1). Use 'make PYTHON=python3.X ...'." >&2; exit 1; }
	@echo "creating the virtual environment $(@D:/bin=) ($(PYTHON) -m venv)"
	@$(PYTHON) -m venv $(@D:/bin=) || \
	  { echo "error: '$(PYTHON) -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)." >&2; exit 1; }
	$@ -m pip install --upgrade pip

# Each stamp: its extras installed (again whenever pyproject.toml changes), and the lab
# settings. The developers' environment holds what the lab's does, and more. Editable in
# compat mode: the clone on sys.path as a plain entry, so that a folder named gluonedu
# where Python starts (the one holding the clone) cannot shadow the package.
$(LAB_STAMP): pyproject.toml $(LAB_OVERRIDES) $(LAB_SERVER_CONFIG) | $(LAB_PYTHON)
	$(LAB_PYTHON) -m pip install -e '.[$(LAB_EXTRAS)]' --config-settings editable_mode=compat
	@$(call install_lab_config,$(VENV))
	@touch $@

$(STAMP): pyproject.toml $(LAB_OVERRIDES) $(LAB_SERVER_CONFIG) | $(VENV_PYTHON)
	$(VENV_PYTHON) -m pip install -e '.[$(TEST_EXTRAS)]' --config-settings editable_mode=compat
	@$(call install_lab_config,$(DEV_VENV))
	@touch $@ $(DEV_VENV)/.installed-lab

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
# Parity tests skip (naming why) without a working oracle, but fail when CI is set. The
# slowest tests are listed at the end: the whole of make test must stay under 20 minutes.
test: export GLUONEDU_MXNET_PYTHON = $(MXNET_PYTHON)
test: $(STAMP) $(REF_STAMP) chromium $(HUB_TEST_ENV)
	$(VENV_PYTHON) -m pytest tests $(CURRICULUM) --nbval --nbval-current-env --nbval-sanitize-with nbval_sanitize.cfg -n $(PYTEST_WORKERS) --dist loadfile --durations=15 $(PYTEST_ARGS)
	@echo "the curriculum again without the BLAS pins (OPENBLAS_NUM_THREADS=2, the machine's own kernels)"
	@env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=2 $(VENV_PYTHON) -m pytest $(CURRICULUM) --nbval --nbval-current-env --nbval-sanitize-with nbval_sanitize.cfg -n $(PYTEST_WORKERS) --dist loadfile -p no:cacheprovider $(PYTEST_ARGS) || [ $$? -eq 5 ]

# Re-execute curriculum notebooks in place, as the tests run them, and write their widget
# state as JupyterLab does (scripts/widget_state.py: opening one then changes nothing):
# `make execute NB=notebooks/05_noise_and_batch_size.ipynb` (default: all of them).
NB ?= $(CURRICULUM)
execute: export MPLBACKEND = module://matplotlib_inline.backend_inline
execute: $(STAMP)
	@for nb in $(NB); do \
	  echo "executing $$nb"; \
	  $(DEV_VENV)/bin/jupyter nbconvert --to notebook --execute --inplace --log-level=WARN $$nb || exit 1; \
	done
	@$(VENV_PYTHON) scripts/widget_state.py $(NB)

# The API reference (autodoc from the docstrings) and the curriculum as saved, not re-run
# (myst-nb). tests/test_docs.py builds the same with warnings as errors.
docs: $(STAMP)
	$(VENV_PYTHON) -m sphinx -W --keep-going -q -b html docs $(DOCS_BUILD)
	@echo "the API reference and the curriculum: $(DOCS_BUILD)/index.html"

# The optimizers' CUDA kernels, translated from their Python rules, compiled by NVRTC (a
# wheel of the test extra) for sm_80 and sm_90 and run on the CPU (the system's C++
# compiler) against those rules and the numba path, without a GPU or a CUDA toolkit;
# `make test` runs it too.
cuda-check: $(STAMP)
	$(VENV_PYTHON) -m pytest -n 0 -v -rs tests/optimizer/test_cuda_kernels_compile.py

# On a machine with an NVIDIA GPU (CUDA 12): CuPy into the developers' environment (the gpu
# extra), the GPU tests (which skip, naming why, without CuPy or a GPU), then the GPU step
# benchmark's table, ready to paste into a note.
gpu-check: $(STAMP)
	$(VENV_PYTHON) -m pip install -q -e '.[gpu]' --config-settings editable_mode=compat
	$(VENV_PYTHON) -m pytest -n 0 -q -rs tests/gluon/test_trainer_gpu.py tests/optimizer/test_fused_gpu.py
	$(VENV_PYTHON) benchmarks/step_gpu.py --rounds 3 --repeat 20

parity: export GLUONEDU_MXNET_PYTHON = $(MXNET_PYTHON)
parity: $(STAMP) $(REF_STAMP)
	$(DEV_VENV)/bin/python -m pytest tests/parity $(PYTEST_ARGS)

# Speed against the recorded baseline (benchmarks/baselines.json, docs/benchmarks.md): the
# three benchmarks with the settings the baseline was recorded with, then the comparison,
# which fails naming each figure more than 25% worse. Timings are not tests, so this is
# not part of `make test`. `make bench-baseline` records a new baseline from three runs;
# BENCH_NOTE='...' says in it how busy the machine was.
BENCH_DIR ?= build/bench
BENCH_NOTE ?=
BENCH_STEP := benchmarks/step.py --quick --rounds 5 --repeat 5
BENCH_CONV := benchmarks/conv.py --rounds 3 --repeat 5
BENCH_INSTRUMENT := benchmarks/instrument_overhead.py --rounds 60 --steps 5
bench_run = mkdir -p $(1) && $(VENV_PYTHON) $(BENCH_STEP) --json $(1)/step.json && \
	$(VENV_PYTHON) $(BENCH_CONV) --json $(1)/conv.json && \
	$(VENV_PYTHON) $(BENCH_INSTRUMENT) --json $(1)/instrument_overhead.json
.PHONY: bench bench-baseline
bench bench-baseline: export GLUONEDU_MXNET_PYTHON = $(MXNET_PYTHON)
bench-baseline: export BENCH_NOTE := $(BENCH_NOTE)
bench: $(STAMP) $(REF_STAMP)
	$(call bench_run,$(BENCH_DIR))
	$(VENV_PYTHON) benchmarks/check_baselines.py $(BENCH_DIR)/step.json $(BENCH_DIR)/conv.json $(BENCH_DIR)/instrument_overhead.json
bench-baseline: $(STAMP) $(REF_STAMP)
	$(call bench_run,$(BENCH_DIR)/run1)
	$(call bench_run,$(BENCH_DIR)/run2)
	$(call bench_run,$(BENCH_DIR)/run3)
	$(VENV_PYTHON) benchmarks/check_baselines.py --record --command 'make bench-baseline' --note "$$BENCH_NOTE" $(BENCH_DIR)/run1 $(BENCH_DIR)/run2 $(BENCH_DIR)/run3

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
	rm -rf $(VENV) $(DEV_VENV) $(REF_VENV) $(HUB_VENV) .pytest_cache build dist *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +

# The nbgrader course (docs/exercises.md): `make assignments` writes it, `make grade` and
# `make formgrader` work in it.
COURSE_DIR ?= build/assignments
# Where `make formgrader` serves (beside `make lab` on LAB_PORT).
FORMGRADER_PORT ?= 8890
# REGRADE=1: `make grade` autogrades again the submissions it has autograded before.
REGRADE ?=

# Student versions of the curriculum notebooks, made with nbgrader:
# $(COURSE_DIR)/release/<notebook>/<notebook>.ipynb, one assignment per notebook.
.PHONY: assignments grade formgrader
assignments: $(STAMP)
	$(DEV_VENV)/bin/python scripts/assignments.py --course-dir $(COURSE_DIR)

# nbgrader from the developers' environment, whatever the shell's PATH (nbgrader runs
# its helper alembic by name); run in the course directory, it reads the course's
# nbgrader_config.py (gluonedu's settings, scripts/nbgrader_settings.py).
grade formgrader: export PATH := $(abspath $(DEV_VENV))/bin:$(PATH)

# `make grade NB=03_momentum`: autograde the submissions
# $(COURSE_DIR)/submitted/<student>/<name>/<name>.ipynb of the assignments NB names
# (default: every one that has submissions), write each student's feedback
# (feedback/<student>/<name>/<name>.html) and the whole gradebook to grades.csv.
# A submission autograded before is skipped (its manual grades stay) unless REGRADE=1.
GRADED = $(strip $(foreach name,$(basename $(notdir $(NB))),$(if $(wildcard $(COURSE_DIR)/submitted/*/$(name)/$(name).ipynb),$(name))))
grade: $(STAMP)
	@[ -f $(COURSE_DIR)/gradebook.db ] || { echo "error: no nbgrader course in $(COURSE_DIR); run 'make assignments' first." >&2; exit 1; }
	@[ -n "$(GRADED)" ] || { echo "error: no submission to grade: put each at $(COURSE_DIR)/submitted/<student>/<name>/<name>.ipynb (NB=$(if $(filter command line,$(origin NB)),$(NB),every assignment))." >&2; exit 1; }
	cd $(COURSE_DIR) && for name in $(GRADED); do \
	  nbgrader autograde $$name $(if $(REGRADE),--force) && nbgrader generate_feedback $$name --force || exit 1; \
	done && nbgrader export
	@echo "grades: $(COURSE_DIR)/grades.csv; feedback: $(COURSE_DIR)/feedback/<student>/<name>/<name>.html"

# JupyterLab on the course directory, opening nbgrader's Formgrader: the assignments, the
# autograded submissions, manual grading and feedback (also Nbgrader > Formgrader).
formgrader: $(STAMP)
	@[ -f $(COURSE_DIR)/nbgrader_config.py ] || { echo "error: no nbgrader course in $(COURSE_DIR); run 'make assignments' first." >&2; exit 1; }
	cd $(COURSE_DIR) && jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/formgrader --ip=127.0.0.1 --port=$(FORMGRADER_PORT) $(ALLOW_ROOT) $(LAB_ARGS)

.PHONY: hub hub-venv test-hub-ray
hub-venv: $(HUB_STAMP)

$(HUB_STAMP): pyproject.toml etc/hub/requirements.txt $(LAB_OVERRIDES) $(LAB_SERVER_CONFIG)
	@command -v npm >/dev/null 2>&1 || \
	  { echo "error: the hub's proxy, configurable-http-proxy, comes from npm, which is missing (Debian: apt-get install npm)." >&2; exit 1; }
	@[ -x $(HUB_VENV)/bin/python ] || { $(HUB_PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' && $(HUB_PYTHON) -m venv $(HUB_VENV); } || \
	  { echo "error: no class environment from '$(HUB_PYTHON)' (Python 3.10+ with venv, one every user can run); name another: make hub HUB_PYTHON=/usr/bin/python3.X" >&2; exit 1; }
	$(HUB_VENV)/bin/python -m pip install --upgrade pip
	$(HUB_VENV)/bin/python -m pip install -e '.[$(LAB_EXTRAS),dist]' -r etc/hub/requirements.txt --config-settings editable_mode=compat
	npm install --prefix $(HUB_VENV)/lib/node configurable-http-proxy@4
	@$(call install_lab_config,$(HUB_VENV))
	@touch $@

# The hub in the foreground (Ctrl-C stops it, and the users' servers); scripts/hub.py says
# what is wrong before it makes anything (a bad roster, a port in use, not root).
hub: $(HUB_STAMP)
	$(HUB_VENV)/bin/python scripts/hub.py --roster $(ROSTER) --port $(HUB_PORT) --hub-dir $(HUB_DIR) $(HUB_ARGS)

# Notebook 12's Ray clusters on a hub, as root: each user's own (the default,
# tests/hub/test_hub_ray_per_user.py) and the class's shared one (tests/hub/test_hub_ray.py).
test-hub-ray: $(STAMP) $(HUB_STAMP)
	GLUONEDU_TEST_HUB_RAY=1 $(VENV_PYTHON) -m pytest tests/hub/test_hub_ray_per_user.py tests/hub/test_hub_ray.py -n 0 $(PYTEST_ARGS)
