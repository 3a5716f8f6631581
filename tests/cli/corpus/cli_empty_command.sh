$TL ""
