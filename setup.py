"""Builds the Cython extensions of simcore (metadata is in pyproject.toml)."""

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension(f"simcore.engine.{name}", [f"simcore/engine/{name}.pyx"],
              include_dirs=[numpy.get_include()],
              extra_compile_args=["-O3"],
              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")])
    for name in ("_core", "_swf")
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
