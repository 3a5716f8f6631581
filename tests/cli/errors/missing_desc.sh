$TL inspect
