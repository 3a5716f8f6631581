$TL dump
