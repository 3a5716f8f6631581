$TL offset examples/hw.json --byte 18446744073709551616
