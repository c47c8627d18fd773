"""Every optimizer kernel's CUDA C, translated from its Python rule, compiles for the GPUs
CuPy targets, and computes what the rule computes — with no GPU.

The CuPy backend hands each Kernel's CUDA C (:mod:`gluonedu.optimizer._fused.cuda_source`)
to ``cupy.ElementwiseKernel`` (NVRTC, at the first fused step on a GPU), so a rule the
translator mistranslates would show only on a GPU — which neither CI nor most sessions
have. Here each kernel is wrapped as CuPy wraps it (its preamble first; the inputs as
``const float`` values, ``raw`` inputs as arrays, the outputs as ``float &`` references
to the element, one thread per element), each in a namespace of its own (CuPy compiles
each kernel alone), and the whole set is compiled by NVRTC — CuPy's own compiler, from the
``nvidia-cuda-nvrtc-cu12`` wheel of the test extra — for sm_80 (A100) and sm_90 (H100), to
machine code, with ``--fmad=false`` as the backend compiles them, and no warning
allowed. The same kernels, as a loop on the CPU compiled by the system's C++ compiler (no
contraction either), run on random inputs — and on gradients holding NaN and ±Inf — and
give bit for bit the float32 values of the Python rule applied element by element, and
those of the numba path's loop (where numba is installed). Skipped, naming why, where the
NVRTC wheel or a C++ compiler is missing.
"""
import ctypes
import importlib.util
import shutil
import subprocess
from pathlib import Path

import numpy as np

import pytest

import gluonedu  # noqa: F401  (registers every optimizer's kernels)
from gluonedu.optimizer._fused.cupy_backend import kernel_source
from gluonedu.optimizer._fused.cuda_source import TranslationError
from gluonedu.optimizer.fastpath import KERNELS

ARCHITECTURES = ('sm_80', 'sm_90')
TYPES = {'float32': 'float', 'int32': 'int'}


def _parameters(text):
    """``[(raw, C type, name)]`` of an ElementwiseKernel parameter list."""
    out = []
    for item in filter(None, (p.strip() for p in text.split(','))):
        words = item.split()
        raw = words[0] == 'raw'
        dtype, name = words[-2:]
        out.append((raw, TYPES[dtype], name))
    return out


def elementwise_source(kernel, device=True):
    """``kernel`` as a CUDA kernel that does what CuPy's ElementwiseKernel makes of it
    (``device=False``: the same body as a loop on the CPU)."""
    in_params, out_params, body, preamble = kernel_source(kernel)
    inputs, outputs = _parameters(in_params), _parameters(out_params)
    scalars = set(kernel.constants)
    args, loads = ['const int _n'], []
    for raw, ctype, name in inputs:
        if raw:
            args.append('const %s* __restrict__ %s' % (ctype, name))
        elif name in scalars:
            args.append('const %s %s' % (ctype, name))
        else:
            args.append('const %s* __restrict__ _in_%s' % (ctype, name))
            loads.append('const %s %s = _in_%s[i];' % (ctype, name, name))
    for _, ctype, name in outputs:
        args.append('%s* __restrict__ _out_%s' % (ctype, name))
        loads.append('%s &%s = _out_%s[i];' % (ctype, name, name))
    header, loop = (('__global__ ', 'int i = blockIdx.x * blockDim.x + threadIdx.x; i < _n; '
                     'i += blockDim.x * gridDim.x') if device else ('', 'int i = 0; i < _n; ++i'))
    return '''namespace kernel_%s {
%s
extern "C" %svoid gluonedu_%s(%s) {
    for (%s) {
        %s
        %s
    }
}
}
''' % (kernel.name, preamble, header, kernel.name, ', '.join(args), loop,
       '\n        '.join(loads), body.replace('\n', '\n        '))


def test_every_rule_is_translated():
    untranslated = {}
    for name, kernel in KERNELS.items():
        try:
            kernel_source(kernel)
        except TranslationError as error:
            untranslated[name] = str(error)
    assert KERNELS and not untranslated, untranslated


def _nvrtc():
    """libnvrtc from the ``nvidia-cuda-nvrtc-cu12`` wheel, with its functions' signatures."""
    spec = importlib.util.find_spec('nvidia.cuda_nvrtc')
    libraries = sorted(Path(p) / 'lib' for p in (spec.submodule_search_locations or [])) \
        if spec else []
    found = [lib / 'libnvrtc.so.12' for lib in libraries if (lib / 'libnvrtc.so.12').exists()]
    if not found:
        pytest.skip('NVRTC is not installed (the nvidia-cuda-nvrtc-cu12 wheel of the test '
                    "extra: pip install -e '.[test]'): the CUDA bodies are not compiled")
    nvrtc = ctypes.CDLL(str(found[0]))
    program, size = ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)
    for name, args in {
            'nvrtcCreateProgram': [program, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                   ctypes.c_void_p, ctypes.c_void_p],
            'nvrtcCompileProgram': [ctypes.c_void_p, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_char_p)],
            'nvrtcGetProgramLogSize': [ctypes.c_void_p, size],
            'nvrtcGetProgramLog': [ctypes.c_void_p, ctypes.c_char_p],
            'nvrtcGetCUBINSize': [ctypes.c_void_p, size],
            'nvrtcGetCUBIN': [ctypes.c_void_p, ctypes.c_char_p],
            'nvrtcDestroyProgram': [program],
            'nvrtcGetErrorString': [ctypes.c_int]}.items():
        getattr(nvrtc, name).argtypes = args
    nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
    return nvrtc


def nvrtc_compile(source, arch, options=()):
    """``(cubin bytes, compiler log)`` of CUDA C ``source`` compiled by NVRTC for ``arch``."""
    nvrtc = _nvrtc()

    def check(result):
        assert result == 0, nvrtc.nvrtcGetErrorString(result).decode()

    program = ctypes.c_void_p()
    check(nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b'kernels.cu', 0,
                                   None, None))
    try:
        flags = ['--gpu-architecture=%s' % arch] + list(options)
        compiled = nvrtc.nvrtcCompileProgram(
            program, len(flags), (ctypes.c_char_p * len(flags))(*(f.encode() for f in flags)))
        size = ctypes.c_size_t()
        check(nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size)))
        log = ctypes.create_string_buffer(size.value)
        check(nvrtc.nvrtcGetProgramLog(program, log))
        log = log.value.decode(errors='replace')
        assert compiled == 0, '%s\n%s' % (nvrtc.nvrtcGetErrorString(compiled).decode(),
                                          log[-5000:])
        check(nvrtc.nvrtcGetCUBINSize(program, ctypes.byref(size)))
        cubin = ctypes.create_string_buffer(size.value)
        check(nvrtc.nvrtcGetCUBIN(program, cubin))
        return cubin.raw, log
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))


@pytest.mark.parametrize('arch', ARCHITECTURES)
def test_every_cuda_body_compiles(arch):
    source = '\n'.join(elementwise_source(k) for _, k in sorted(KERNELS.items()))
    cubin, log = nvrtc_compile(source, arch, ['--fmad=false'])
    assert 'warning' not in log.lower(), log[-5000:]
    for name in KERNELS:
        assert ('gluonedu_%s' % name).encode() in cubin, name


def test_nvrtc_refuses_what_is_not_cuda():
    """The compile test can fail: a body that does not compile is reported with NVRTC's
    log, and a warning shows in the log the test reads."""
    with pytest.raises(AssertionError, match='undefined'):
        nvrtc_compile('extern "C" __global__ void k(float *x) { x[0] = undefined_name; }',
                      ARCHITECTURES[0])
    _, log = nvrtc_compile('extern "C" __global__ void k(float *x) { int unused; x[0] = 1; }',
                           ARCHITECTURES[0])
    assert 'warning' in log.lower() and 'unused' in log


N = 64
#: The constants the rules test against 0 (clip bounds, LBSGD's accumulation): both sides
#: of each test are run.
SWITCHES = ('clip', 'clip_weights', 'accumulated')


def _inputs(kernel, rng, switched_on):
    """Random float32 arrays (states positive, as the rules keep them; the gradient's first
    entries NaN, +Inf, -Inf and 0), per-segment scalars and constants of ``kernel``
    (``SWITCHES`` at -1 unless ``switched_on``); every element in one segment."""
    arrays = {name: (rng.uniform(-1, 1, N) if name in ('weight', 'grad')
                     else rng.uniform(0.1, 1, N)).astype(np.float32) for name in kernel.arrays}
    if 'grad' in arrays:
        arrays['grad'][:4] = [np.nan, np.inf, -np.inf, 0]
    scalars = {name: np.float32(rng.uniform(0.1, 0.9) if switched_on or name not in SWITCHES
                                else -1)
               for name in kernel.per_parameter + kernel.constants}
    return arrays, scalars


def _by_the_rule(kernel, arrays, scalars):
    """The written arrays after the Python rule ran on each element, in float32."""
    out = {name: np.empty(N, np.float32) for name in kernel.writes}
    with np.errstate(all='ignore'):     # the non-finite gradients
        for i in range(N):
            values = kernel.rule(**{name: arrays[name][i] for name in kernel.arrays},
                                 **scalars)
            values = values if isinstance(values, tuple) else (values,)
            for name, value in zip(kernel.writes, values):
                out[name][i] = value
    return out


def _by_the_body(library, kernel, arrays, scalars):
    """The written arrays after the C body ran on the CPU (``library``: the compiled set)."""
    in_params, out_params, _, _ = kernel_source(kernel)
    written = {name: arrays[name].copy() for name in kernel.writes}
    pointer = lambda a: a.ctypes.data_as(ctypes.c_void_p)   # noqa: E731
    args = [ctypes.c_int(N)]
    for raw, _, name in _parameters(in_params):
        if raw:
            args.append(pointer(np.full(1, scalars[name[:-len('_seg')]], np.float32)))
        elif name == 'seg_id':
            args.append(pointer(np.zeros(N, np.int32)))
        elif name in scalars:
            args.append(ctypes.c_float(scalars[name]))
        else:
            args.append(pointer(arrays[name]))
    args += [pointer(written[name]) for _, _, name in _parameters(out_params)]
    getattr(library, 'gluonedu_' + kernel.name)(*args)
    return written


@pytest.fixture(scope='module')
def cpu_kernels(tmp_path_factory):
    """Every kernel compiled for the CPU, as one shared library."""
    compiler = shutil.which('g++') or shutil.which('c++')
    if compiler is None:
        pytest.skip('no C++ compiler: the CUDA kernels are not run on the CPU')
    directory = tmp_path_factory.mktemp('cpu_kernels')
    source = directory / 'kernels.cpp'
    source.write_text('#include <cmath>\n#define __device__\n' + '\n'.join(
        elementwise_source(k, device=False) for _, k in sorted(KERNELS.items())))
    built = subprocess.run([compiler, '-O1', '-ffp-contract=off', '-fno-fast-math', '-shared',
                            '-fPIC', '-o', str(directory / 'kernels.so'), str(source)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-5000:]
    return ctypes.CDLL(str(directory / 'kernels.so'))


@pytest.mark.parametrize('name', sorted(KERNELS))
def test_cuda_kernel_computes_its_rule_on_the_cpu(cpu_kernels, name):
    kernel = KERNELS[name]
    rng = np.random.default_rng(sorted(KERNELS).index(name))
    for switched_on in (True, False):
        arrays, scalars = _inputs(kernel, rng, switched_on)
        expected = _by_the_rule(kernel, arrays, scalars)
        got = _by_the_body(cpu_kernels, kernel, arrays, scalars)
        for written in kernel.writes:
            np.testing.assert_array_equal(got[written], expected[written], err_msg='%s: %s%s' % (
                name, written, '' if switched_on else ' (switches off)'))
