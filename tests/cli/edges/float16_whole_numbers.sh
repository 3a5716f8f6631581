# Whole numbers print with their shortest digits padded with zeros, as numpy
# prints them: FLOAT16 65504, 32768, 2050 and 1 (numpy: 65500.0 32770.0 2050.0 1.0)
printf "\377\173\000\170\001\150\000\074" > h.bin; $TL dump "{\"dataType\":\"FLOAT16\",\"sizes\":[4]}" h.bin; $TL dump --json "{\"dataType\":\"FLOAT16\",\"sizes\":[4]}" h.bin
