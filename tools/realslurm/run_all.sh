#!/usr/bin/env bash
# Regenerate the real-Slurm fixtures (what `make realslurm` runs; needs root).
# For each scenario file in datasets/realslurm/scenarios/ (or just the names given as
# arguments): bring up a fresh cluster, replay the scenario, collect, tear down. A fresh
# cluster per scenario means job ids start at 1 and fair-share usage starts at zero.
# Usage: bash tools/realslurm/run_all.sh [SCENARIO_NAME ... | srun-env]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
source "$HERE/env.sh"
DATA="$REPO/datasets/realslurm"
PY="${PYTHON:-$REPO/.venv/bin/python}"
LOGS="${REALSLURM_DIR}-logs"   # daemon logs kept outside the repo for debugging
mkdir -p "$LOGS"

if ! command -v slurmctld >/dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm slurmdbd mariadb-server munge
fi

if (($#)); then names=("$@"); else
  names=(); for f in "$DATA"/scenarios/*.yaml; do names+=("$(basename "$f" .yaml)"); done
  names+=(srun-env)  # not a scenario: srun's task environments (capture_srun_env.py)
fi

trap 'bash "$HERE/down.sh"' EXIT
for name in "${names[@]}"; do
  echo "=============== $name"
  bash "$HERE/down.sh"
  # A scenario with its own settings (conf/NAME.conf.in, e.g. preemption) gets them appended
  # to slurm.conf, and its configuration is kept as NAME.slurm.conf and
  # NAME.scontrol-show-config.txt; the others share slurm.conf and scontrol-show-config.txt.
  extra=() conf_out="$DATA/slurm.conf" config_out="$DATA/scontrol-show-config.txt"
  if [[ -f "$HERE/conf/$name.conf.in" ]]; then
    extra=(--conf-extra "$HERE/conf/$name.conf.in")
    conf_out="$DATA/$name.slurm.conf" config_out="$DATA/$name.scontrol-show-config.txt"
  fi
  bash "$HERE/up.sh" "${extra[@]}" > "$LOGS/$name-up.log" 2>&1 \
    || { cat "$LOGS/$name-up.log"; exit 1; }
  # The configuration the fixtures were made with.
  cp "$REALSLURM_DIR/etc/slurm.conf" "$conf_out"
  cp "$REALSLURM_DIR/etc/gres.conf" "$DATA/"
  scontrol show config | grep -v -E '^(BOOT_TIME|Configuration data as of)' > "$config_out"
  rm -rf "${DATA:?}/$name"
  if [[ "$name" == srun-env ]]; then
    "$PY" "$HERE/capture_srun_env.py" --out "$DATA/$name"
  else
    "$PY" "$HERE/run_scenario.py" "$DATA/scenarios/$name.yaml" --out "$DATA/$name"
    # the scenario's origin (real Slurm's t0) and slurmctld_start (from slurmctld's log)
    PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$HERE/recalc_grid.py" --set "$name"
  fi
  rm -rf "$LOGS/$name"; cp -r "$REALSLURM_DIR/log" "$LOGS/$name"
done
echo "fixtures written under $DATA"
