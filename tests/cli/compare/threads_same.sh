for t in 1 2 3; do $TL compare examples/readback.json examples/readback.bin examples/reference.npy --threads $t --show 2 | md5sum; done | uniq -c | sed "s/ *//"
