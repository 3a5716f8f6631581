# The input's bytes that a window is built from are read with pread() into
# memory of the writer's own.  Where pread() fails, the window is built from
# the input's mapping instead; where it reads little at a time or is
# interrupted, it is called again: the same file comes out either way, the
# NHWC transpose of the input (three images of one window each, at a file
# offset), as Python computes it.
command -v python3 >/dev/null || { echo "skip: no python3 to write the input"; exit 77; }
python3 -c 'import sys; sys.stdout.buffer.write(bytes(32) + bytes(range(256)) * 6000)' > in.bin
D='{"dataType": "FLOAT32", "sizes": [3, 40, 50, 64], "fileOffset": 32}'
$TL convert "$D" in.bin --to NHWC -o a.bin; echo exit $?
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=pread_fails $TL convert "$D" in.bin --to NHWC -o b.bin; echo exit $?
cmp a.bin b.bin && echo same
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=pread_short $TL convert "$D" in.bin --to NHWC -o c.bin; echo exit $?
cmp a.bin c.bin && echo same
python3 - <<'PY'
src = open("in.bin", "rb").read()[32:]
n, c, h, w = 3, 40, 50, 64
out = bytearray()
for i in range(n):
    for y in range(h):
        for x in range(w):
            for k in range(c):
                at = 4 * (((i * c + k) * h + y) * w + x)
                out += src[at:at + 4]
print("NHWC as Python computes it" if bytes(out) == open("a.bin", "rb").read() else "differs")
PY
