"""``mx.test_utils`` against MXNet 1.9.1.

The random helpers (seeded through NumPy's global generator) must give MXNet's arrays and
shapes exactly; the tolerances, reductions and statistics checks MXNet's values; the
assertion helpers must pass and fail where MXNet's do, with the same exception type;
``get_mnist`` must read the same dict from MNIST files in the working folder. The oracle
runs once per session in its own interpreter, in a folder holding those files.
"""
import numpy as np
import pytest

import test_utils_parity_driver as driver
import vision_files
from harness import oracle_case_arrays, run_oracle


def _write_mnist(folder):
    vision_files.random_mnist(str(folder), 6, seed=21, train=True)
    vision_files.random_mnist(str(folder), 3, seed=22, train=False)


@pytest.fixture(scope='session')
def test_utils_oracle(tmp_path_factory):
    """``(working folder, (results, meta))`` of every case run once on MXNet 1.9.1."""
    workdir = tmp_path_factory.mktemp('mxnet_test_utils_oracle')
    _write_mnist(workdir)
    return workdir, run_oracle(driver.__file__, workdir)


@pytest.mark.parametrize('name', sorted(driver.CASES))
def test_test_utils_match_mxnet(name, test_utils_oracle, monkeypatch):
    import gluonedu
    workdir, oracle = test_utils_oracle
    expected = oracle_case_arrays(*oracle, name)
    monkeypatch.chdir(workdir)
    got = driver.run_case(gluonedu, name)
    assert sorted(got) == sorted(expected)
    for key in sorted(expected):
        np.testing.assert_array_equal(got[key], expected[key], err_msg='%s: %s' % (name, key))
