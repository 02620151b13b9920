"""Builds the Cython extensions of simcore (metadata is in pyproject.toml).

One extension module per .pyx; they share declarations through the .pxd files
beside them (cimport), so a new module is one more line below.
"""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

MODULES = (
    "simcore.engine._orders",  # queue-order key functions and registry
    "simcore.engine._predictor",  # Predictor interface, simple predictors
    "simcore.engine._regression",  # regression predictor, NAG, losses
    "simcore.engine._jobs",  # a workload's arrays, validated once
    "simcore.engine._core",  # the event loop
    "simcore.engine._slurm_fairshare",  # the Slurm mode's fair share: association tree, usage, factors
    "simcore.engine._slurm",  # the Slurm mode: main scheduler and backfill cycle on nodes
    "simcore.engine._selection",  # job selection: observation, rewards, vector step
    "simcore.engine._swf",  # SWF tokenizer
    "simcore.studies.learned_policies._trials",  # trial scores (chapter 3)
    "simcore.studies.coscheduling._sharing",  # co-scheduling event loop, ASAX learner
)

# the job selection vector env steps its simulations on several threads (prange)
OPENMP = {"simcore.engine._selection"}

extensions = [
    Extension(
        name,
        [name.replace(".", "/") + ".pyx"],
        include_dirs=[numpy.get_include()],
        extra_compile_args=["-O3"] + (["-fopenmp"] if name in OPENMP else []),
        extra_link_args=["-fopenmp"] if name in OPENMP else [],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
