TENSORLAYOUT_SIMD=scalar $TL --version | sed -n 2p | cut -d" " -f1-2
