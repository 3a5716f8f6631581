$TL offset examples/padded.json --byte 0x14; $TL offset examples/padded.json --byte 0X0c; $TL offset examples/padded.json --byte 0xzz; echo exit $?
