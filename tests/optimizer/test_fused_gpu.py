"""The CuPy kernels equal the reference on a GPU; skipped (saying why) without one."""
import numpy as np
import pytest

import gluonedu  # noqa: F401  (declares every built-in kernel)
from gluonedu.optimizer._fused.cupy_backend import kernel_source
from gluonedu.optimizer.fastpath import KERNELS


def _gpu_missing():
    try:
        import cupy
    except ImportError:
        return 'CuPy is not installed (pip install "gluonedu[gpu]")'
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return 'no CUDA GPU is visible'
    except Exception as exc:  # noqa: BLE001 - any CUDA failure means "no usable GPU"
        return 'no usable CUDA GPU (%s)' % exc
    return None


def test_every_kernel_calls_its_translated_rule_with_its_arguments():
    for kernel in KERNELS.values():
        in_params, out_params, body, preamble = kernel_source(kernel)
        assert out_params == ', '.join('float32 %s' % n for n in kernel.writes)
        # the rule, one element: every argument, then every written array, by name
        assert body.endswith('%s(%s);' % (kernel.name, ', '.join(kernel.parameters +
                                                                  kernel.writes))), body
        for name in kernel.writes:   # the translated rule assigns every written array
            assert 'out_%s = ' % name in preamble, (kernel.name, name)
        for name in kernel.arrays + kernel.per_parameter + kernel.constants:
            assert name in in_params + out_params


@pytest.mark.skipif(_gpu_missing() is not None, reason=str(_gpu_missing()))
@pytest.mark.parametrize('dtype,mp', [(np.float32, False), (np.float16, True)])
def test_cupy_kernels_equal_reference(dtype, mp):
    import gluonedu as mx
    from gluonedu import nd
    from gluonedu.optimizer import Updater
    from gluonedu.optimizer._fused import FusedUpdater
    from .test_fused import CASES, SHAPES
    for name, kwargs in CASES:
        results = []
        for cls in (Updater, FusedUpdater):
            mx.random.seed(0)   # SGLD: the same noise on both paths
            opt = mx.optimizer.create(name, learning_rate=0.05, multi_precision=mp, **kwargs)
            opt.set_lr_mult({1: 0.5})
            updater = cls(opt)
            rng = np.random.RandomState(0)
            weights = [nd.array(rng.randn(*s), dtype=dtype, ctx=mx.gpu(0)) for s in SHAPES]
            for _ in range(3):
                grads = [nd.array(rng.randn(*s), dtype=dtype, ctx=mx.gpu(0)) for s in SHAPES]
                updater(list(range(len(SHAPES))), grads, weights)
            if cls is FusedUpdater:
                assert all(p == 'fused:cupy' for _, p in updater.last_paths), updater.last_paths
            results.append([w.asnumpy() for w in weights])
        for got, want in zip(*results):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=name)
