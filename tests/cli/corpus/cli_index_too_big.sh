$TL offset examples/hw.json 18446744073709551616,0
