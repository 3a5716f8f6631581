# 2 GB to a pipe under a 700 MB address-space limit: bounded windows, never the whole output
(ulimit -v 700000; $TL --version) > /dev/null 2>&1 || { echo "skip: this build cannot run under ulimit -v (sanitizer or valgrind)"; exit 77; }
head -c 4194304 /dev/zero > z.bin
(ulimit -v 700000; $TL convert "{\"dataType\":\"FLOAT32\",\"sizes\":[512,1048576],\"strides\":[0,1]}" z.bin -o - --to HW) | wc -c
