#!/bin/sh
# interrupt.sh - conversions ended by a signal at random moments leave
# nothing behind (SPEC section 15): no temporary file, no temporary folder,
# and no partial output; an output that is there is the whole one.
#
# Four jobs, each timed once to learn how long it takes: one tensor
# (NCHW to NHWC, 32 MiB, a mapped temporary file), a whole safetensors file
# to BFLOAT16, a whole file to .npz, and a sharded model of four 16 MiB
# shards to FLOAT32 (a temporary folder, four shards written at once by
# four threads: five temporary paths pending together).  Each run starts a job, waits a random time between 0 and 1.3
# times the job's length, sends SIGINT, SIGTERM or SIGHUP, waits for it,
# and looks at the folder.  (A signal that comes after the output was put
# in place, before the process ended, leaves the whole output and a
# signal's exit status: that is right.)
#
# Usage: TL=/path/to/tensorlayout sh tests/interrupt.sh [RUNS] [SEED]
set -u
: "${TL:?set TL to the tensorlayout binary}"
runs=${1:-${TL_INTERRUPT_RUNS:-320}}
seed=${2:-$(date +%s)}
label=${TL_LABEL:-interrupt}
work=$(mktemp -d "${TMPDIR:-/tmp}/tl-interrupt.XXXXXX") || exit 3
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 3

# ---- inputs --------------------------------------------------------------
head -c 33554432 /dev/urandom >big.bin
echo '{"dataType":"FLOAT32","sizes":[8,64,128,128]}' >big.json
map() {     # map PREFIX: three FLOAT32 tensors over big.bin
    printf '{"tensors":[{"name":"%sa","dataType":"FLOAT32","sizes":[2048,1024],"fileOffset":0},' "$1"
    printf '{"name":"%sb","dataType":"FLOAT32","sizes":[2048,1024],"fileOffset":8388608},' "$1"
    printf '{"name":"%sc","dataType":"FLOAT32","sizes":[4096,1024],"fileOffset":16777216}]}\n' "$1"
}
map "" >map.json
$TL convert map.json big.bin --to-type FLOAT16 -o model.safetensors >/dev/null || exit 3
mkdir in
{
    printf '{"metadata": {"total_size": 0}, "weight_map": {'
    sep=
    for k in 1 2 3 4; do
        map "l$k." >shard.json
        $TL convert shard.json big.bin --to-type FLOAT16 \
            -o in/model-0000$k-of-00004.safetensors >/dev/null || exit 3
        for t in a b c; do
            printf '%s"l%s.%s": "model-0000%s-of-00004.safetensors"' "$sep" $k $t $k
            sep=', '
        done
    done
    printf '}}\n'
} >in/model.safetensors.index.json
mkdir -p out ref

# job N OUTPUT: runs job N into OUTPUT (a file, or a folder for job 4), as
# the process itself (exec: the signal goes to the tool, not to a
# subshell)
job() {
    case $1 in
    1) exec $TL convert big.json big.bin --to NHWC -o "$2" ;;
    2) exec $TL convert model.safetensors --to-type BFLOAT16 -o "$2" ;;
    3) exec $TL convert model.safetensors --to-type FLOAT32 -o "$2" ;;
    4) exec $TL convert in/model.safetensors.index.json --to-type FLOAT32 --threads 8 -o "$2/" ;;
    esac
}
name() {
    case $1 in 1) echo out.bin ;; 2) echo out.safetensors ;; 3) echo out.npz ;; 4) echo model ;; esac
}

# each job once, whole, timed in milliseconds
now_ms() { date +%s%N | cut -c1-13; }
for n in 1 2 3 4; do
    t0=$(now_ms)
    (job $n "ref/$(name $n)") >/dev/null 2>job.err || { echo "job $n fails uninterrupted:"; cat job.err; exit 1; }
    t1=$(now_ms)
    eval "ms$n=\$((t1 - t0 + 1))"
done

# the random schedule: job, delay in seconds, signal, one line a run
awk -v n="$runs" -v seed="$seed" -v m1="$ms1" -v m2="$ms2" -v m3="$ms3" -v m4="$ms4" 'BEGIN {
    srand(seed); split(m1 " " m2 " " m3 " " m4, ms, " "); split("INT TERM HUP", sig, " ")
    for (i = 0; i < n; i++) {
        j = int(rand() * 4) + 1
        printf "%d %.3f %s\n", j, rand() * ms[j] * 1.3 / 1000, sig[int(rand() * 3) + 1]
    }
}' >schedule

passed=0
failed=0
whole=0
while read -r n delay sig; do
    out=$(name "$n")
    job "$n" "out/$out" >/dev/null 2>job.err &
    pid=$!
    sleep "$delay"
    kill -s "$sig" $pid 2>/dev/null
    wait $pid 2>/dev/null
    status=$?
    bad=
    left=$(ls -A out | grep -v "^$out\$")
    [ -n "$left" ] && bad="left behind: $left"
    if [ -e "out/$out" ]; then
        if [ -d "out/$out" ]; then
            diff -r "out/$out" "ref/$out" >/dev/null || bad="$bad; a partial output folder"
        else
            cmp -s "out/$out" "ref/$out" || bad="$bad; a partial output"
        fi
        whole=$((whole + 1))
    elif [ $status -eq 0 ]; then
        bad="$bad; exit 0 and no output"
    fi
    if [ -n "$bad" ]; then
        echo "FAIL job $n ($out), SIG$sig after ${delay}s, exit $status: $bad"
        sed 's/^/    /' job.err | head -n 3
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
    rm -rf out && mkdir out
done <schedule
echo "($runs runs, seed $seed, $whole finished before the signal; jobs of $ms1, $ms2, $ms3, $ms4 ms)"
echo "$label: $passed passed, $failed failed"
[ $failed -eq 0 ]
