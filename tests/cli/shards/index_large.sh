# A shard index's weight map is checked in linear time (issue 73): 100,000
# entries, each naming a shard of its own, then one name again; and the same
# map without it, whose first shard is missing.
awk 'BEGIN { printf "{\"weight_map\": {"; for (i = 0; i < 100000; i++) printf "%s\"t%d\": \"s%d.safetensors\"", i ? ", " : "", i, i; printf ", \"t5\": \"s5.safetensors\"}}\n" }' > twice.index.json
awk 'BEGIN { printf "{\"weight_map\": {"; for (i = 0; i < 100000; i++) printf "%s\"t%d\": \"s%d.safetensors\"", i ? ", " : "", i, i; printf "}}\n" }' > model.safetensors.index.json
$TL list twice.index.json; echo exit $?
$TL list model.safetensors.index.json; echo exit $?
