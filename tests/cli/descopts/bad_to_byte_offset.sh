$TL convert --type f4 --sizes 2,3 examples/hw.bin --to-desc examples/hw.json --to-byte-offset 8 -o out.bin
echo "exit $?"
ls out.bin 2>/dev/null || echo no out.bin
