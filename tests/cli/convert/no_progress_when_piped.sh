head -c 1048576 /dev/zero > big.bin; $TL convert '{"dataType": "UINT8", "sizes": [300, 1024, 1024], "strides": [0, 1024, 1]}' big.bin -o /dev/null --to WHD; echo exit $?
