printf "\001\011\370\367" > b.bin; $TL convert --type int8 --sizes 4 b.bin --to-type int4 -o o.bin; echo exit $?; $TL convert --type uint4 --sizes 4 b.bin --to-type int4 -o o.bin; echo exit $?
