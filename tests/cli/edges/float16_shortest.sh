printf "\146\056\146\062\146\074\110\102" > h.bin; $TL dump "{\"dataType\":\"FLOAT16\",\"sizes\":[4]}" h.bin
