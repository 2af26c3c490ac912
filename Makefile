# meldcam: `make run` serves the app, `make test` runs every check.
# Both bootstrap .venv/ (and the Debian packages the project needs) on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Debian packages: card art and its SVG renderer for the scene generator; chromium for the
# browser tests (driven by Playwright, never downloaded by it).
APT_PACKAGES := gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core fonts-dejavu-extra chromium fonts-liberation2 fonts-freefont-ttf fonts-comic-neue fonts-lato fonts-roboto-unhinted fonts-open-sans fonts-inter fonts-cabin fonts-cantarell fonts-league-spartan fonts-clear-sans fonts-quicksand
STAMP_APT := $(VENV)/.apt-stamp
STAMP_PIP := $(VENV)/.pip-stamp

.PHONY: run test lint types doctest bench apt venv clean train train-deps bench-scan

run: $(STAMP_PIP)
	$(BIN)/meldcam serve --port 8000

test: $(STAMP_PIP) $(STAMP_APT)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy scorer vision web datasets bench
	$(BIN)/pytest -q

bench: $(STAMP_PIP)
	$(BIN)/python bench/rules.py

bench-scan: $(STAMP_PIP)
	$(BIN)/python bench/scan.py

# Training (CPU, offline): generate scenes, build sets, train classifier + detector, export ONNX
# to models/, evaluate into models/metrics.json. Resumable: rerun to continue. See models/*.md.
STAMP_TRAIN := $(VENV)/.train-stamp
TRAIN_ARGS ?=
export YOLO_OFFLINE := 1
export YOLO_AUTOINSTALL := 0
export YOLO_CONFIG_DIR := $(CURDIR)/.yolo

train-deps: $(STAMP_TRAIN)

$(STAMP_TRAIN): $(STAMP_PIP) $(STAMP_APT)
	$(BIN)/pip install -q -e '.[train]' --config-settings editable_mode=compat
	$(BIN)/pip install -q --no-deps 'ultralytics>=8.3'
	-$(BIN)/pip uninstall -q -y opencv-python
	touch $@

train: $(STAMP_TRAIN)
	mkdir -p runs
	set -o pipefail; $(BIN)/python -m vision.train.pipeline $(TRAIN_ARGS) 2>&1 | tee -a runs/train.log

venv: $(STAMP_PIP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP_PIP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $@

apt: $(STAMP_APT)

$(STAMP_APT): Makefile | $(BIN)/python
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	touch $@

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
