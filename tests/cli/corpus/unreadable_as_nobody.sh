# Files the user may not read: as root, the test drops to user nobody; as an
# ordinary user, the files' mode 000 stops their owner too.  The binary runs
# from a copy in a folder anyone can enter, wherever the checkout lives.
d=$(mktemp -d /tmp/tl-nobody.XXXXXX); chmod 755 "$d"
cp "$TL_BIN" "$d/tensorlayout"; chmod 755 "$d/tensorlayout"
cp examples/hw.json examples/hw.bin "$d"; chmod 000 "$d/hw.bin"
as=; [ "$(id -u)" = 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
cd "$d"
$as $TL_EXEC_PREFIX ./tensorlayout dump hw.json hw.bin; echo exit $?
chmod 000 hw.json
$as $TL_EXEC_PREFIX ./tensorlayout size hw.json; echo exit $?
cd /; rm -rf "$d"
