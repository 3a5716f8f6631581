$TL dump examples/hw.json examples
