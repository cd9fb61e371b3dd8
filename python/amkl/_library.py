"""Loads the compiled extension (``_C.so``), which registers the ``torch.ops.amkl`` ops.

The extension has no Python C-API code; it is a plain shared library that registers its
ops with PyTorch's dispatcher when loaded, so ``torch.ops.load_library`` is all it takes.
"""

import os

import torch

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_C.so")

if not os.path.exists(_PATH):
    raise ImportError(
        f"amkl: the compiled extension {_PATH} is missing. Build it with "
        "`pip install --no-build-isolation .` from the repository root, or with CMake "
        "(-DAMKL_BUILD_PYTHON=ON), which places _C.so in python/amkl/."
    )
torch.ops.load_library(_PATH)

ops = torch.ops.amkl
