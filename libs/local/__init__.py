"""Running the product on one machine: the backing stores (found, or private ones started under
`.data/`) and the parts as processes. `make run` (deploy/), the end-to-end and reliability tests
and the benchmarks share it; it imports nothing above `libs`."""
