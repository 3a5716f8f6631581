# Truncations of a .npy file through its preamble, its header and its data
# (the unit tests cut at every byte, under the sanitizers; this samples them)
for n in 0 1 5 6 7 9 10 11 20 40 60 64 100 126 127 128 129 150 174 175; do
    head -c $n examples/nchw.npy > t.npy; printf "%s: " $n
    $TL inspect t.npy 2>&1 >/dev/null | sed "s/^tensorlayout: //"
done
