#!/bin/sh
# tests/slurm/run.sh BUILD_DIR: `make test-slurm` (not part of make test). Runs a sweep on a real
# Slurm cluster of one node, this machine, and checks that the CSV it gathers equals the CSV of
# the same sweep run locally (figures identical; the host-timing columns left out).
#
# 1. Installs Debian's slurmctld, slurmd, slurm-client and munge with apt-get when missing (root).
# 2. Starts a private munged (own key, socket and files under a scratch directory: a munged of
#    the host, if any, is not touched) and a private slurmctld + slurmd from a slurm.conf written
#    there (tests/slurm/slurm.conf.in): one node with this host's CPUs, no cgroups
#    (proctrack/linuxproc, task/none), no accounting database, ports SLURM_TEST_PORT and +1
#    (default 16817, 16818) so that a real Slurm on the standard ports is not disturbed.
# 3. scripts/sweep --slurm writes the job array; sbatch submits it and the gather job
#    (--dependency=afterok); squeue is polled until both have left the queue (timeout
#    SLURM_TEST_TIMEOUT seconds, default 600).
# 4. The same spec runs locally; scripts/sweep --compare checks the two CSVs.
# 5. The daemons it started are stopped by their process ids (trap on exit).
# Prints PASS/FAIL lines like the other tests and a summary line.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.."
REPO=$(pwd)
SPEC=${SLURM_TEST_SPEC:-workloads/sweeps/tiny.json}
PORT=${SLURM_TEST_PORT:-16817}
TIMEOUT=${SLURM_TEST_TIMEOUT:-600}
PY=/usr/bin/python3
npass=0; nfail=0
pass() { echo "PASS slurm-$1"; npass=$((npass + 1)); }
fail() { echo "FAIL slurm-$1: $2"; nfail=$((nfail + 1)); }
say() { echo "test-slurm: $*" >&2; }
t_start=$(date +%s)

# --- 1. packages --------------------------------------------------------------------------
need=""
for c in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
  command -v "${c%%:*}" >/dev/null 2>&1 || [ -x "/usr/sbin/${c%%:*}" ] || need="$need ${c#*:}"
done
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "FAIL slurm-packages: missing$need; as root run: apt-get install -y$need"; exit 1
  fi
  say "installing$need (apt-get; about 2 minutes)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need) >&2 ||
    { echo "FAIL slurm-packages: apt-get install$need failed"; exit 1; }
fi
PATH=$PATH:/usr/sbin
pass packages

make --no-print-directory BUILD="$B" "$B/bin/sacc" "$B/bin/sasim" >&2 || { echo "FAIL slurm-build"; exit 1; }
SACC=$REPO/$B/bin/sacc; SASIM=$REPO/$B/bin/sasim
case $B in /*) SACC=$B/bin/sacc; SASIM=$B/bin/sasim ;; esac

# --- 2. daemons ---------------------------------------------------------------------------
# A scratch directory under /tmp, mode 711: munged wants the socket directory searchable by
# all and refuses a key file others can read.
T=$(mktemp -d /tmp/sacc-slurm.XXXXXX); chmod 711 "$T"
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null; done
  [ -f "$T/munged.pid" ] && kill "$(cat "$T/munged.pid")" 2>/dev/null
  sleep 1
  if [ "${SLURM_TEST_KEEP:-0}" = 1 ]; then say "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mungekey -c -k "$T/munge.key" 2>/dev/null || { dd if=/dev/urandom of="$T/munge.key" bs=128 count=1 2>/dev/null; }
chmod 600 "$T/munge.key"
munged --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
  --log-file="$T/munged.log" --seed-file="$T/munged.seed" --force 2>"$T/munged.err"
if munge -S "$T/munge.sock" -n 2>/dev/null | unmunge -S "$T/munge.sock" >/dev/null 2>&1; then pass munged
else fail munged "munged did not start: $(cat "$T/munged.err" "$T/munged.log" 2>/dev/null | tail -n 5)"; exit 1; fi

node=$(hostname -s)
cpus=$(nproc)
sed -e "s|@DIR@|$T|g" -e "s|@NODE@|$node|g" -e "s|@CPUS@|$cpus|g" -e "s|@PORT@|$PORT|g" \
    -e "s|@PORT1@|$((PORT + 1))|g" tests/slurm/slurm.conf.in >"$T/slurm.conf"
mkdir -p "$T/state" "$T/spool"
export SLURM_CONF=$T/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$T/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N "$node" >"$T/slurmd.out" 2>&1 &
pids="$pids $!"
up=0
for i in $(seq 1 60); do
  if sinfo -h -N -o '%t' 2>/dev/null | grep -q '^idle'; then up=1; break; fi
  sleep 1
done
if [ $up = 1 ]; then pass cluster-up
else
  fail cluster-up "the node is not idle after 60 s: $(sinfo -N 2>&1 | tail -n 2) | $(tail -n 5 "$T/slurmctld.log" "$T/slurmd.log" 2>/dev/null)"
  exit 1
fi
say "one-node cluster up after $(( $(date +%s) - t_start )) s"

# --- 3. the sweep on Slurm ----------------------------------------------------------------
SW="$PY scripts/sweep --sacc $SACC --sasim $SASIM"
$SW "$SPEC" --slurm --out "$T/cluster" >"$T/slurm-write.out" 2>&1 ||
  { fail sbatch-script "$(cat "$T/slurm-write.out")"; exit 1; }
t0=$(date +%s)
job=$(sbatch --parsable "$T/cluster/sweep.sbatch" 2>"$T/sbatch.err")
gjob=$(sbatch --parsable --dependency=afterok:"${job%%;*}" "$T/cluster/gather.sbatch" 2>>"$T/sbatch.err")
if [ -n "$job" ] && [ -n "$gjob" ]; then pass submit; else fail submit "$(cat "$T/sbatch.err")"; exit 1; fi
say "submitted array job $job and gather job $gjob"
done_ok=0
while [ $(( $(date +%s) - t0 )) -lt "$TIMEOUT" ]; do
  left=$(squeue -h -j "${job%%;*},${gjob%%;*}" -o '%i %T' 2>/dev/null | wc -l)
  [ "$left" -eq 0 ] && { done_ok=1; break; }
  sleep 2
done
t_slurm=$(( $(date +%s) - t0 ))
if [ $done_ok = 1 ]; then pass jobs-finished
else fail jobs-finished "still queued after $TIMEOUT s: $(squeue 2>&1 | tail -n 5)"; exit 1; fi
say "array and gather jobs finished in $t_slurm s"
n=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["points"]))' "$T/cluster/plan.json")
nout=$(ls "$T/cluster/slurm"/point-*.out 2>/dev/null | wc -l)
[ "$nout" -eq "$n" ] && pass array-tasks || fail array-tasks "$nout task logs for $n points"
if [ -s "$T/cluster/results.csv" ] && grep -q 'results.csv: ' "$T/cluster/slurm/gather.out"; then pass gathered
else fail gathered "no CSV from the gather job: $(tail -n 5 "$T/cluster/slurm/gather.out" 2>&1)"; fi

# --- 4. the same sweep locally ------------------------------------------------------------
t0=$(date +%s)
$SW "$SPEC" --out "$T/local" --no-plot >"$T/local.out" 2>&1 || fail local-run "$(tail -n 5 "$T/local.out")"
t_local=$(( $(date +%s) - t0 ))
if $PY scripts/sweep --compare "$T/local/results.csv" "$T/cluster/results.csv" >"$T/cmp.out" 2>&1; then pass same-csv
else fail same-csv "$(cat "$T/cmp.out")"; fi
ok=$(grep -c ',ok,' "$T/cluster/results.csv")
[ "$ok" -eq "$n" ] && pass all-ok || fail all-ok "$ok of $n points ok"
# Resume on the cluster: a second --slurm finds nothing to do.
$SW "$SPEC" --slurm --out "$T/cluster" >"$T/slurm-again.out" 2>&1
grep -q 'every point of .* is finished' "$T/slurm-again.out" && pass resume || fail resume "$(cat "$T/slurm-again.out")"

say "$n points: Slurm $t_slurm s (array + gather), local $t_local s; whole test $(( $(date +%s) - t_start )) s"
echo "$npass passed, $nfail failed"
[ $nfail -eq 0 ]
