mkfifo p; cat examples/hw.bin > p & $TL dump examples/hw.json p; wait
