"""pytest configuration: which device the tests put their tensors on.

CPU tensors by default (CI). On the GPU machine: ``pytest --device cuda`` or
``AMKL_TEST_DEVICE=cuda pytest``; the same tests then run on CUDA tensors in bfloat16, and a
test whose GPU path amkl does not implement yet is skipped only when amkl raises its
documented NotImplementedError (see helpers.unsupported_on_gpu_skips).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # for `import reference, helpers`


def pytest_addoption(parser):
    parser.addoption("--device", default=os.environ.get("AMKL_TEST_DEVICE", "cpu"),
                     choices=("cpu", "cuda"), help="device of the test tensors")


def pytest_configure(config):
    import helpers
    helpers.DEVICE = config.getoption("--device")
    if helpers.DEVICE == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise pytest.UsageError("--device cuda given, but torch sees no CUDA device")
