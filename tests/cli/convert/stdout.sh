$TL convert examples/dhw.json examples/dhw.bin -o - --to WHD | od -An -f
