$TL inspect '{"dataType": "FLOAT32", "sizes": [5000000000, 1], "strides": [1, 5000000000], "totalTensorSizeInBytes": 14, "guaranteedBaseOffsetAlignment": 24, "byteOffset": 8}'
