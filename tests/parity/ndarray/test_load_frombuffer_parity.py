"""``nd.load_frombuffer`` against MXNet 1.9.1: buffers of files MXNet's ``nd.save`` wrote
give the same arrays (names, dtypes, shapes, values); damaged buffers and values that are
no buffer give the same error classes."""
import json
from pathlib import Path

import numpy as np
import pytest

from harness import run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_load_frombuffer.py')
CASES = ['dict', 'list', 'truncated', 'garbage', 'empty', 'text', 'number', 'bytearray']


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('mxnet_load_frombuffer')
    results, _ = run_oracle(ORACLE_SCRIPT, workdir)
    return workdir, json.loads(str(results['outcomes']))


def _argument(workdir, case):
    if case == 'text':
        return 'not a file'
    if case == 'number':
        return 3
    if case == 'bytearray':
        return bytearray((workdir / 'list.bin').read_bytes())
    return (workdir / (case + '.bin')).read_bytes()


@pytest.mark.parametrize('case', CASES)
def test_load_frombuffer_matches_mxnet(case, mxnet_outcomes):
    from gluonedu import nd
    workdir, results = mxnet_outcomes
    theirs = results[case]
    try:
        loaded = nd.load_frombuffer(_argument(workdir, case))
    except Exception as exc:  # the outcome to compare
        assert theirs == {'error': type(exc).__name__}, (case, exc)
        return
    assert 'ok' in theirs, 'MXNet raises %s, gluonedu returns a result' % theirs
    items = loaded.items() if isinstance(loaded, dict) else enumerate(loaded)
    ours = {str(k): v for k, v in items}
    assert sorted(ours) == sorted(theirs['ok'])
    for key, (dtype, shape, values) in theirs['ok'].items():
        assert ours[key].dtype.__name__ == dtype and list(ours[key].shape) == shape, key
        np.testing.assert_array_equal(ours[key].asnumpy(), np.array(values, dtype=dtype))
