for t in uint4 INT4 DML_TENSOR_DATA_TYPE_INT4 int4 Uint4; do $TL size --type $t --sizes 3; done; $TL size --type int3 --sizes 3; echo exit $?
