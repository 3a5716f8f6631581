# A folder the user may not write in (mode 555; as root, the test drops to
# user nobody, whom the mode stops): no temporary file, OUT untouched.
d=$(mktemp -d /tmp/tl-nobody.XXXXXX)
cp "$TL_BIN" "$d/tensorlayout"; chmod 755 "$d/tensorlayout"
cp examples/hw.json examples/hw.bin "$d"; echo old > "$d/out.bin"; chmod 644 "$d/out.bin"
chmod 555 "$d"
as=; [ "$(id -u)" = 0 ] && as="setpriv --reuid=65534 --regid=65534 --clear-groups"
cd "$d"
$as $TL_EXEC_PREFIX ./tensorlayout convert hw.json hw.bin -o out.bin --to WH; echo exit $?
cat out.bin; ls -A
cd /; chmod 755 "$d"; rm -rf "$d"
