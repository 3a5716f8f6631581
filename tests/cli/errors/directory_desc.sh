$TL inspect examples
