$TL convert examples/hw.json examples/hw.bin -o out.bin --to-strides 5,1 --out-desc out.json && $TL dump --physical out.json out.bin && wc -c < out.bin
