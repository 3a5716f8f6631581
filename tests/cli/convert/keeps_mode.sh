printf x > out.bin && chmod 640 out.bin && $TL convert examples/hw.json examples/hw.bin -o out.bin --to WH && stat -c %a out.bin
