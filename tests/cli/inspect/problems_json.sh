$TL inspect --json '{"dataType": "UINT8", "sizes": [3], "totalTensorSizeInBytes": 2, "guaranteedBaseOffsetAlignment": 64, "byteOffset": 32}'
