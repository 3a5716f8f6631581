$TL inspect bad/tf_st_gaps_inspect.safetensors:b; echo exit $?
