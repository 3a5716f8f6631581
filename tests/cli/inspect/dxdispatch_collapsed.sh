# DxDispatch's collapsed form (the type beside the fields) reads as the
# wrapped one does, and its mistakes are named.
W='{"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": "FLOAT16", "Sizes": [1,2,2,2], "Strides": [8,1,4,2]}}'
C='{"Type": "DML_TENSOR_TYPE_BUFFER", "DataType": "FLOAT16", "Sizes": [1,2,2,2], "Strides": [8,1,4,2]}'
$TL inspect --json "$W" > w.json; $TL inspect --json "$C" > c.json; cmp w.json c.json && echo same
$TL inspect "$C" | head -n 4
$TL size '{"type": "buffer", "dataType": "UINT8", "sizes": [5]}'
$TL size '{"Type": "DML_TENSOR_TYPE_TEXTURE", "DataType": "UINT8", "Sizes": [5]}'; echo "exit $?"
$TL size '{"type": "FLOAT16", "sizes": [5]}'; echo "exit $?"
$TL size '{"Type": "DML_TENSOR_TYPE_BUFFER", "DataType": "UINT8", "Sizes": [0]}'; echo "exit $?"
$TL size '{"Type": "DML_TENSOR_TYPE_BUFFER", "DataType": "UINT8", "Sizes": [5], "Desc": {}}'; echo "exit $?"
$TL size '{"Type": "DML_TENSOR_TYPE_BUFFER", "DataTyp": "UINT8", "Sizes": [5]}'; echo "exit $?"
