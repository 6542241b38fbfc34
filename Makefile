# slurmlab: `make lab` opens the course, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_DEV := $(VENV)/.installed-dev
STAMP_LAB := $(VENV)/.installed-lab

.PHONY: lab test lint format bench realslurm fidelity clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_LAB): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[jupyter]'
	touch $@

$(STAMP_DEV): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,jupyter]'
	touch $@

# root (containers, cloud VMs) needs --allow-root to start JupyterLab
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP_LAB)
	$(BIN)/jupyter lab $(ALLOW_ROOT) course/00-welcome.ipynb

test: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	SLURMLAB_SLOW=1 $(BIN)/python -m pytest tests --nbval-lax course

lint: $(STAMP_DEV)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP_DEV)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/bench_sacct.py

# Regenerate the real-Slurm fixtures (manual, needs root: installs slurm-wlm and MariaDB).
realslurm: $(STAMP_DEV)
	bash tools/realslurm/run_all.sh

fidelity: $(STAMP_DEV)
	$(BIN)/python tools/realslurm/scorecard.py --readme

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
