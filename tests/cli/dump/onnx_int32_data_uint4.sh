printf '\020\025\052\010\010\231\010\377\377\377\010\010\010\010\141aaaaaaaa' > u4.pb; $TL dump u4.pb; $TL dump --stats u4.pb
