$TL inspect bad/gen_malformed_unterminated_string.json
