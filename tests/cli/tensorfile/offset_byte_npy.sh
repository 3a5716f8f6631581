for b in 0 127 128 131 132 175 176; do printf "%s: " $b; $TL offset examples/nchw.npy --byte $b | tr "\n" " "; echo; done
