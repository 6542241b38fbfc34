# Sourced by the realslurm scripts: where the cluster lives and how to reach it.
REALSLURM_DIR="${REALSLURM_DIR:-/tmp/slurmlab-realslurm}"
export REALSLURM_DIR
export SLURM_CONF="$REALSLURM_DIR/etc/slurm.conf"
export SLURM_TIME_FORMAT=standard
REALSLURM_NODES="gpu1 gpu2 gpu3 gpu4 cpu1 cpu2"
REALSLURM_USERS="alice bob carol"
