# The peak resident memory (getrusage of the child) of a 2 GB conversion to
# a pipe stays far below the output's size.
case "${TL_EXEC_PREFIX:-}" in *valgrind*) echo "skip: no peak memory to measure under valgrind"; exit 77 ;; esac
command -v python3 >/dev/null || { echo "skip: no python3 to read getrusage"; exit 77; }
head -c 4194304 /dev/zero > z.bin
python3 - "$TL_BIN" <<'PY'
import resource, subprocess, sys
desc = '{"dataType":"FLOAT32","sizes":[512,1048576],"strides":[0,1]}'
p = subprocess.Popen([sys.argv[1], "convert", desc, "z.bin", "-o", "-", "--to", "HW"],
                     stdout=subprocess.PIPE)
n = 0
while True:
    b = p.stdout.read(1 << 20)
    if not b:
        break
    n += len(b)
p.wait()
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(n, "bytes;", "peak under 256 MiB" if peak < 256 else "peak %d MiB" % peak)
PY
