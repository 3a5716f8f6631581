# --to once a rank, in one pass (SPEC 19): conv2d and conv1d weights with
# --to OHWI --to OWI; two layouts of one rank are a usage error; each must
# change some tensor; one tensor takes the layout of its rank.
/usr/bin/python3 -c '
import numpy as np
np.savez("cv.npz", c2=np.arange(54, dtype=np.float32).reshape(2, 3, 3, 3),
         c1=np.arange(30, dtype=np.float32).reshape(2, 3, 5), b=np.arange(2, dtype=np.float32))'
$TL convert cv.npz --to OHWI --to OWI -o o.npz --json | grep -E '"(name|shape|changed)"'
/usr/bin/python3 -c '
import numpy as np
z = np.load("o.npz")
c2 = np.arange(54, dtype=np.float32).reshape(2, 3, 3, 3).transpose(0, 2, 3, 1)
c1 = np.arange(30, dtype=np.float32).reshape(2, 3, 5).transpose(0, 2, 1)
print("numpy agrees:", np.array_equal(z["c2"], c2), np.array_equal(z["c1"], c1))'
$TL convert cv.npz --to OHWI --to NHWC -o x.npz; echo exit $?
$TL convert cv.npz --to OHWI --to OWI --to HW -o x.npz; echo exit $?
$TL convert cv.npz:c1 --to OHWI --to OWI -o c1.npy; echo exit $?
$TL convert cv.npz:b --to OHWI --to OWI -o b.npy; echo exit $?
ls x.npz b.npy 2>&1
