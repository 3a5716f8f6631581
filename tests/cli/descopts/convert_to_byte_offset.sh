# --to-byte-offset: zero bytes, then the elements (--to-desc's byteOffset, as an option)
$TL convert --type u1 --sizes 2,2 examples/hw.bin --to WH --to-byte-offset 3 -o out.bin
od -An -tu1 out.bin
$TL convert --type u1 --sizes 2,2 examples/hw.bin --to WH --to-byte-offset 3 --json -o out.bin
