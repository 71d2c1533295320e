# CUDA's __block_size__ declares .reqntid, but also makes the kernel's blocks clusters of one
# (.blocksareclusters, .reqnctapercluster 1, 1, 1), a cluster launch that ran 1.8-2.6x slower (session 26,
# run 1). Inductor's PTX declares .reqntid alone: drop the other two so that section reqntid times only it.
/^\.blocksareclusters$/d
/^\.reqnctapercluster 1, 1, 1$/d
