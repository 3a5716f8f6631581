$TL convert examples/hw.json examples/hw.bin -o out.bin --to WH && cmp out.bin examples/wh.bin && echo identical to examples/wh.bin
