$TL inspect "
  {\"dataType\": \"UINT16\", \"sizes\": [2, 3, 4, 5], \"layout\": [0, 2, 3, 1], \"broadcast\": \"C\"}"
