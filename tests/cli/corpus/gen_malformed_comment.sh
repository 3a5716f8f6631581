$TL inspect bad/gen_malformed_comment.json
