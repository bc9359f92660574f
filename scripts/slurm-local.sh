#!/usr/bin/env bash
# A one-machine Slurm cluster in a folder of its own, to try scripts/render-slurm.sbatch
# without a render farm (the tests use it too). Nothing under /etc is read or changed:
# munge's key and socket, slurm.conf, state and logs all live in DIR.
#
#   scripts/slurm-local.sh start DIR   # prints the line to paste: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm-local.sh stop DIR
#
# Needs Debian's slurmctld, slurmd and munge (make setup installs them), and root: slurmd
# starts jobs as the user who submitted them.
set -euo pipefail
if [ $# -ne 2 ] || { [ "$1" != start ] && [ "$1" != stop ]; }; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi
dir=$(realpath -m "$2")

if [ "$1" = stop ]; then
  pids=()
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then pids+=("$(cat "$dir/$daemon.pid")"); fi
  done
  [ ${#pids[@]} -gt 0 ] || exit 0
  kill "${pids[@]}" 2>/dev/null || true
  # A daemon started with SIGTERM blocked (a mask inherited from its launcher) ignores it.
  for _ in $(seq 1 50); do
    kill -0 "${pids[@]}" 2>/dev/null || exit 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  exit 0
fi

for tool in munged slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed (make setup installs slurmctld, slurmd and munge)" >&2; exit 1; }
done
mkdir -p "$dir/state" "$dir/spool"
chmod 700 "$dir"  # munged refuses a socket folder others can write to
if [ ! -f "$dir/munge.key" ]; then
  head -c 1024 /dev/urandom > "$dir/munge.key"
  chmod 400 "$dir/munge.key"
fi
free_port() { python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }
host=$(hostname -s)
cat > "$dir/slurm.conf" <<EOF
ClusterName=vidfx
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf
# Each daemon goes to the background itself, holding none of this script's output;
# -f lets munged run as root.
munged -f --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" </dev/null >/dev/null 2>&1
slurmctld -f "$SLURM_CONF" </dev/null >/dev/null 2>&1
slurmd -f "$SLURM_CONF" </dev/null >/dev/null 2>&1
for _ in $(seq 1 300); do
  if [ "$(sinfo -h -o %t 2>/dev/null)" = idle ]; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.1
done
echo "$0: the node did not come up in 30 s; see $dir/slurmctld.log and $dir/slurmd.log" >&2
"$0" stop "$dir"
exit 1
