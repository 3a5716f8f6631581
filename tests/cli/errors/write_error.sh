$TL inspect examples/hw.json > /dev/full
