$TL inspect bad/byte_offset_string.json
