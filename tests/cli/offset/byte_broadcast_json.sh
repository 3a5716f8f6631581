$TL offset --json examples/broadcast.json --byte 4
