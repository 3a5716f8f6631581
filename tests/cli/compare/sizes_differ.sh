$TL compare examples/hw.json examples/hw.bin examples/dhw.json examples/dhw.bin; echo exit $?
$TL compare --json examples/hw.json examples/hw.bin examples/dhw.json examples/dhw.bin; echo exit $?
