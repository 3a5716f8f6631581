mkfifo d; cat examples/hw.json > d & $TL size d; wait
