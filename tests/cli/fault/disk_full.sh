# A full disk, as a small tmpfs in a mount namespace of the test's own (as an
# ordinary user, inside a user namespace, where the kernel allows one).
ns="unshare -m"; [ "$(id -u)" = 0 ] || ns="unshare -rm"
$ns true 2>/dev/null || { echo "skip: no mount namespace here ($ns is refused)"; exit 77; }
mkdir full; $ns sh -c "mount -t tmpfs -o size=8k tmpfs full && echo old > full/out.bin && $TL convert examples/image.json examples/image.bin -o full/out.bin --to NHWC; echo exit \$?; cat full/out.bin; ls -A full"
