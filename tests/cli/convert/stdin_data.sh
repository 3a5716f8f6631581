$TL convert examples/hw.json - -o - --to WH < examples/hw.bin | cmp - examples/wh.bin && echo identical
