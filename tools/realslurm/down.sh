#!/usr/bin/env bash
# Stop the daemons up.sh started, by the PIDs in their PID files (never by name).
# Usage: bash tools/realslurm/down.sh [--purge]   (--purge also deletes $REALSLURM_DIR)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/env.sh"
D="$REALSLURM_DIR"

stop() {  # stop PIDFILE: TERM, wait up to 20 s, then KILL
  local f=$1 pid
  [[ -f "$f" ]] || return 0
  pid="$(tr -dc 0-9 < "$f")"
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    echo "stopping $(basename "$f" .pid) (pid $pid)"
    kill -TERM "$pid"
    for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$f"
}

for n in $REALSLURM_NODES; do stop "$D/run/slurmd-$n.pid"; done
stop "$D/run/slurmctld.pid"
stop "$D/run/slurmdbd.pid"
stop "$D/mysql/mariadbd.pid"
stop "$D/munge/munged.pid"
if [[ -f "$D/run/munge-symlink" ]]; then  # the default-socket symlink up.sh made
  link="$(cat "$D/run/munge-symlink")"
  [[ -L "$link" && "$(readlink "$link")" == "$D/munge/munge.socket.2" ]] && rm -f "$link"
  rm -f "$D/run/munge-symlink"
fi
[[ "${1:-}" == "--purge" ]] && rm -rf "$D"
exit 0
