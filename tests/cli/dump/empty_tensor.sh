# A tensor with a 0 in its shape dumps as numpy prints it, [] (issue 45: exit
# 4); --json nests empty lists as tolist() does.
$TL dump examples/mixed.safetensors:empty.buffer; echo exit $?
$TL dump --json examples/mixed.safetensors:empty.buffer
/usr/bin/python3 -c '
import numpy as np
np.savez("e.npz", a=np.zeros((2, 3, 0), np.float32), b=np.zeros((0,), np.int8), c=np.zeros((3, 0, 2)))
for k in "abc":
    print(k, np.load("e.npz")[k].tolist())'
for k in a b c; do $TL dump --json e.npz:$k; done
$TL dump e.npz:a; echo exit $?
