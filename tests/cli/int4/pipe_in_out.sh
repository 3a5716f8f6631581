cat examples/int4_weight.bin | $TL convert --type int4 --sizes 3,5 - --to WH -o - | od -An -tx1
