"""One numba policy (gluonedu._numba) for the optimizer's fused steps and the layers'
kernels: whether numba runs, where compiled kernels are cached, and that nothing is
written to the process's environment."""
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from gluonedu import _numba

needs_numba = pytest.mark.skipif(not _numba.available(),
                                 reason='numba is not installed (pip install gluonedu[fast])')


def test_gluonedu_numba_0_turns_it_off_at_once(monkeypatch):
    monkeypatch.setenv('GLUONEDU_NUMBA', '0')
    assert not _numba.available()
    monkeypatch.setenv('GLUONEDU_NUMBA', '1')
    assert _numba.available() == _numba._INSTALLED


def test_the_cache_is_numbas_variable_else_the_environment_else_the_temp_dir(
        monkeypatch, tmp_path):
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path / 'chosen'))
    assert _numba.cache_dir() == str(tmp_path / 'chosen')
    monkeypatch.delenv('NUMBA_CACHE_DIR')
    monkeypatch.setattr(sys, 'prefix', str(tmp_path / 'venv'))
    assert _numba.cache_dir() == str(tmp_path / 'venv' / 'var' / 'numba-cache')
    monkeypatch.setattr(os, 'access', lambda path, mode: False)     # a read-only venv
    assert _numba.cache_dir() == os.path.join(tempfile.gettempdir(),
                                              'gluonedu-numba-cache-%d' % os.getuid())


@needs_numba
def test_every_kernel_is_cached_in_one_place_and_the_environment_is_left_alone(tmp_path):
    """A fresh process trains a small convolutional net (convolutions, Winograd's among
    them, pooling, BatchNorm) with the fused Adam step: every compiled kernel, the
    optimizer's and the layers', lands in the policy's cache directory (here one made for
    the test), none in the package's folders, and the process's environment gains no
    NUMBA_ variable."""
    cache = tmp_path / 'cache'
    script = textwrap.dedent('''
        import os, sys
        from gluonedu import _numba
        _numba.cache_dir = lambda: sys.argv[1]          # a fresh environment's cache
        import gluonedu as mx
        from gluonedu import autograd, gluon, nd
        before = set(os.environ)
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Conv2D(16, 3, in_channels=4), gluon.nn.BatchNorm(),
                gluon.nn.Conv2D(16, 3, padding=1, in_channels=16),   # Winograd's
                gluon.nn.MaxPool2D(), gluon.nn.Dense(3))
        net.initialize(mx.init.Xavier())
        trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
        x = nd.random.normal(shape=(4, 4, 8, 8))
        x.attach_grad()                                 # the convolution's dx: col2im
        for _ in range(2):
            with autograd.record():
                loss = net(x).sum()
            loss.backward()
            trainer.step(4)
        import numba
        print(numba.config.CACHE_DIR)
        print(sorted(k for k in set(os.environ) - before if k.startswith('NUMBA')))
    ''')
    env = {k: v for k, v in os.environ.items() if not k.startswith('NUMBA_')}
    env.pop('GLUONEDU_NUMBA', None)
    started = time.time() - 1
    out = subprocess.run([sys.executable, '-c', script, str(cache)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    cache_dir, new_variables = out.stdout.strip().splitlines()[-2:]
    assert cache_dir == str(cache)
    assert new_variables == '[]'
    indexes = {path.name.split('.')[0] + '.' + path.name.split('.')[1].split('-')[0]
               for path in cache.rglob('*.nbi')}
    for kernel in ('batchnorm_numba.stats', 'batchnorm_numba.backward_data',
                   'pool_numba.max_pool_2d', 'im2col_numba.col2im_2d',
                   'winograd_numba.data_tiles'):
        assert kernel in indexes, sorted(indexes)
    assert any(name.startswith('gluonedu_fused_adam') for name in indexes), sorted(indexes)
    package = Path(_numba.__file__).parent
    written_there = [str(path) for pattern in ('*.nbi', '*.nbc')
                     for path in package.rglob(pattern) if path.stat().st_mtime >= started]
    assert not written_there
