"""The engine: the Cython kernels (event loop, queue orders, predictors, SWF
tokenizer) behind a small Python API (simulation, workload, SWF reading and
filtering, metrics, predictor registry, priority functions). It imports
nothing from the other layers."""
