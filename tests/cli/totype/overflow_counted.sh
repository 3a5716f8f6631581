# Overflow is told (issue 45: 3.4e38 became inf in FLOAT32 -> FLOAT16 with
# no count): a note counts the finite values that became +-inf, --json
# has the count; numpy's astype is the oracle, an infinity or a NaN that
# was one is not counted.
/usr/bin/python3 -c '
import numpy as np
a = np.array([1, 3.4e38, -1e5, 65504, 65519.99, 65520, np.inf, np.nan], np.float32)
np.save("a.npy", a)
rng = np.random.default_rng(7)
b = rng.uniform(-1, 1, (2, 3, 57, 61)).astype(np.float32)
b.flat[[5, 777, 9000, 20000, 20861]] = [1e5, -7e4, 3e38, 65520, -1e6]
b.flat[100], b.flat[200] = np.inf, np.nan
np.save("b.npy", b)
c = rng.uniform(-1, 1, 4099).astype(np.float32)
c[[0, 4098]] = [3.4e38, -3.4e38]
np.savez("w.npz", a=a, b=b, c=c, d=np.array([1e39, 1.0]), e=np.ones(3, np.float32))
with np.errstate(over="ignore"):
    for name, x, t in (("a", a, np.float16), ("b", b, np.float16), ("c", c, np.float16),
                       ("d", np.array([1e39, 1.0]), np.float32)):
        print("numpy", name, int(np.sum(np.isinf(x.astype(t)) & np.isfinite(x))))
'
$TL convert a.npy --to-type f16 -o a16.npy; echo exit $?
$TL convert b.npy --to NHWC --to-type f16 -o b16.npy --json | grep overflow
$TL convert b.npy --to-type f16 -o b16c.npy --threads 2 --json | grep overflow
$TL convert b.npy --to-type bf16 --format raw -o b.bf16 --json | grep overflow
$TL convert w.npz --to-type f16 -o w16.safetensors --json | grep -e '"name"' -e overflow
$TL convert w.npz --to-type f32 -o w32.npz
TENSORLAYOUT_NOTES=off $TL convert a.npy --to-type f16 -o a16b.npy; echo exit $?
/usr/bin/python3 -c '
import numpy as np
with np.errstate(over="ignore"):
    a, b = np.load("a.npy"), np.load("b.npy")
    print("a", np.array_equal(np.load("a16.npy"), a.astype(np.float16), equal_nan=True))
    print("b", np.array_equal(np.load("b16.npy"), b.astype(np.float16).transpose(0, 2, 3, 1), equal_nan=True))'
# BFLOAT16's edge, torch the oracle: 3.4e38 rounds past 0x7f7f, 3e38 not
$TL convert w.npz:c --to-type bf16 --format raw -o c.bf16 --json | grep overflow
/usr/bin/python3 -c '
import numpy as np, torch
c = torch.from_numpy(np.load("w.npz")["c"])
print("torch c", int((torch.isinf(c.bfloat16()) & torch.isfinite(c)).sum()))
print("bytes", np.array_equal(np.fromfile("c.bf16", np.int16), c.bfloat16().view(torch.int16).numpy()))'
# a GGUF tensor of blocks, decoded on the way out: counted the same way
/usr/bin/python3 -c '
import numpy as np
x = np.linspace(-1, 1, 256).astype(np.float32).reshape(4, 64)
x[1, 3], x[2, 7] = 1e6, -2e5
np.savez("q.npz", w=x)'
$TL convert q.npz --to-type Q8_0 -o q.gguf
$TL convert q.gguf --to-type f16 -o q16.safetensors --json | grep overflow
