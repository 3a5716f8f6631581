# An encoded tensor (SPEC 15): a member of np.savez_compressed is stored
# deflated; list --json names its encoding beside the decoded type, and
# every command reads it through the one decode path, as it reads the same
# array stored.
/usr/bin/python3 -c '
import numpy as np
a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
np.savez_compressed("c.npz", w=a, b=np.array([1.5, -2.0], dtype=np.float16))
np.savez("s.npz", w=a, b=np.array([1.5, -2.0], dtype=np.float16))
'
$TL list --json c.npz | grep -E '"(name|dataType|deflated|encoding)"'
$TL list --json s.npz | grep -E '"encoding"'
$TL dump c.npz:b; echo exit $?
$TL compare c.npz:w s.npz:w; echo exit $?
$TL convert c.npz:w --to-type FLOAT16 -o w.npy; echo exit $?
$TL compare w.npy s.npz:w; echo exit $?
$TL convert c.npz --to-type FLOAT32 -o all.safetensors; echo exit $?
$TL list all.safetensors | head -n 3
