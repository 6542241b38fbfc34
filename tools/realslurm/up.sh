#!/usr/bin/env bash
# Bring up a small real Slurm 22.05 cluster on this machine, with all state under
# $REALSLURM_DIR (default /tmp/slurmlab-realslurm): munge, MariaDB, slurmdbd, slurmctld
# and one `slurmd -N NAME` per node. Needs root. Stop it with down.sh.
# Usage: bash tools/realslurm/up.sh [--install] [--conf-extra FILE]
#   --install          run apt-get first
#   --conf-extra FILE  append FILE (a template like conf/preemption.conf.in) to slurm.conf;
#                      its NodeName= lines replace the shared lines of the same nodes
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/env.sh"
D="$REALSLURM_DIR"

install=0 extra=""
while (($#)); do
  case "$1" in
    --install) install=1; shift ;;
    --conf-extra) extra="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    *) echo "up.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if ((install)); then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm slurmdbd mariadb-server munge
fi
[[ -z "$extra" || -f "$extra" ]] || { echo "up.sh: no file $extra" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "up.sh must run as root" >&2; exit 1; }
if compgen -G "$D/run/*.pid" >/dev/null || compgen -G "$D/*/*.pid" >/dev/null; then
  echo "PID files exist in $D/run: run down.sh first" >&2; exit 1
fi

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local n=$1 what=$2; shift 2
  for ((i = 0; i < n * 2; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "timed out waiting for $what" >&2; exit 1
}

echo "== fresh work dir $D"
rm -rf "$D"
mkdir -p "$D"/{etc,run,log,spool/ctld,spool/d,dev,munge,mysql,jobs,out}
chmod 755 "$D"; chmod 1777 "$D/jobs" "$D/out"
HOST="$(hostname -s)"
for f in slurm.conf gres.conf slurmdbd.conf cgroup.conf; do
  sed -e "s|@DIR@|$D|g" -e "s|@HOST@|$HOST|g" "$HERE/conf/$f.in" > "$D/etc/$f"
done
if [[ -n "$extra" ]]; then  # a scenario's own settings (e.g. preemption), after the rest
  # A NodeName= line there replaces the shared line of the same nodes (e.g. threads).
  for names in $(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$extra"); do
    grep -v -F "NodeName=$names " "$D/etc/slurm.conf" > "$D/etc/slurm.conf.new"
    mv "$D/etc/slurm.conf.new" "$D/etc/slurm.conf"
  done
  sed -e "s|@DIR@|$D|g" -e "s|@HOST@|$HOST|g" "$extra" >> "$D/etc/slurm.conf"
fi
chmod 600 "$D/etc/slurmdbd.conf"
for n in $REALSLURM_NODES; do mkdir -p "$D/spool/d/$n"; done
# Emulated GPUs: character devices with NVIDIA's major number 195.
for i in 0 1 2 3; do mknod -m 666 "$D/dev/nvidia$i" c 195 "$i"; done

echo "== users"
for u in $REALSLURM_USERS; do id -u "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u"; done

echo "== munge"
chown munge:munge "$D/munge"; chmod 755 "$D/munge"
dd if=/dev/urandom bs=1 count=1024 of="$D/munge/munge.key" status=none
chown munge:munge "$D/munge/munge.key"; chmod 400 "$D/munge/munge.key"
runuser -u munge -- munged --key-file="$D/munge/munge.key" \
  --socket="$D/munge/munge.socket.2" --pid-file="$D/munge/munged.pid" \
  --log-file="$D/munge/munged.log" --seed-file="$D/munge/munged.seed"
wait_for 10 munge munge -n -S "$D/munge/munge.socket.2"
# Clients that talk to slurmdbd directly (sacctmgr, sacct) ignore AuthInfo=socket= in
# 22.05 and use the default socket, so point the default path at ours if it is free.
if [[ ! -e /run/munge/munge.socket.2 ]]; then
  mkdir -p /run/munge
  ln -s "$D/munge/munge.socket.2" /run/munge/munge.socket.2
  echo /run/munge/munge.socket.2 > "$D/run/munge-symlink"
fi

echo "== mariadb"
chown mysql:mysql "$D/mysql"
mariadb-install-db --datadir="$D/mysql/data" --user=mysql --auth-root-authentication-method=socket \
  --skip-test-db >"$D/log/mariadb-install.log" 2>&1
mariadbd --no-defaults --datadir="$D/mysql/data" --user=mysql --socket="$D/mysql/mysql.sock" \
  --bind-address=127.0.0.1 --port=13306 --pid-file="$D/mysql/mariadbd.pid" \
  --log-error="$D/mysql/mariadbd.log" --innodb-buffer-pool-size=256M \
  --innodb-lock-wait-timeout=900 >/dev/null 2>&1 &
wait_for 60 mariadb mariadb --no-defaults -S "$D/mysql/mysql.sock" -u root -e 'select 1'
mariadb --no-defaults -S "$D/mysql/mysql.sock" -u root <<'SQL'
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmlab';
CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'slurmlab';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
SQL

echo "== slurmdbd"
slurmdbd  # reads slurmdbd.conf next to $SLURM_CONF
wait_for 60 slurmdbd sacctmgr -n list cluster

echo "== accounts and QOS"
"$HERE/accounts.sh"

echo "== slurmctld"
slurmctld -f "$SLURM_CONF"
wait_for 60 slurmctld scontrol ping
echo "== slurmd"
for n in $REALSLURM_NODES; do slurmd -f "$SLURM_CONF" -N "$n"; done
all_idle() { [[ "$(sinfo -h -N -o '%N %t' | awk '$2=="idle"' | sort -u | wc -l)" == 6 ]]; }
wait_for 90 "all six nodes idle" all_idle
sinfo -N -l
echo "== up: export SLURM_CONF=$SLURM_CONF"
