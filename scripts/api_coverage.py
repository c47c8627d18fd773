"""The API coverage report: which of MXNet 1.9.1's public names gluonedu has.

``make api-coverage`` runs ``python scripts/api_coverage.py``. For every namespace of
:data:`NAMESPACES` it lists MXNet's public names (scripts/mxnet_api_names.py, run on the
reference interpreter: ``$GLUONEDU_MXNET_PYTHON``, else ``.venv-mxnet/bin/python``) and
sorts each into

* **has** — gluonedu has the name in the same namespace (``mx.nd.take``, ``NDArray.take``);
* **excluded** — left out on purpose; :data:`EXCLUDED` gives the one-line reason;
* **lacks** — everything else: in scope, not there yet.

It writes the table to docs/api-coverage.md (shown by docs/coverage.md) and the same
data to docs/api-coverage.json, which tests/test_api_coverage.py reads. Without the
reference interpreter it says so and re-uses the MXNet names recorded in that JSON file.

The in-scope set (has + lacks) only grows: tests/api_coverage_baseline.json records it,
and ``--raise-baseline`` rewrites that file from the current report, refusing if any name
would leave the in-scope set or the covered set.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REPORT_MD = REPO / 'docs' / 'api-coverage.md'
REPORT_JSON = REPO / 'docs' / 'api-coverage.json'
BASELINE = REPO / 'tests' / 'api_coverage_baseline.json'
NAMES_SCRIPT = REPO / 'scripts' / 'mxnet_api_names.py'
ORACLE_ENV = 'GLUONEDU_MXNET_PYTHON'

#: Each namespace: its dotted path from ``mx`` ('' is ``mx``) and what it is.
NAMESPACES = (
    ('', 'the top-level package and its parts'),
    ('nd', 'NDArray operators and functions'),
    ('nd.NDArray', 'NDArray methods and properties'),
    ('nd.sparse', 'sparse storage (row_sparse, csr)'),
    ('nd.random', 'random samplers'),
    ('nd.linalg', 'batched linear algebra'),
    ('autograd', 'automatic differentiation'),
    ('context', 'devices'),
    ('random', 'seeding and sampling'),
    ('gluon', 'Block, Parameter, Trainer'),
    ('gluon.nn', 'layers'),
    ('gluon.contrib.nn', 'contributed layers'),
    ('gluon.loss', 'losses'),
    ('gluon.rnn', 'recurrent layers and cells'),
    ('gluon.data', 'datasets, samplers, DataLoader'),
    ('gluon.data.vision', 'vision datasets'),
    ('gluon.data.vision.transforms', 'image transforms'),
    ('gluon.utils', 'gluon utilities'),
    ('init', 'initializers'),
    ('lr_scheduler', 'learning-rate schedulers'),
    ('optimizer', 'optimizers'),
    ('kv', 'key-value stores'),
    ('metric', 'evaluation metrics'),
    ('test_utils', 'test helpers'),
    ('io', 'data iterators'),
    ('image', 'image decoding, resizing and augmenters'),
    ('mod', 'the symbolic Module API'),
)

_PLUMBING = ('MXNet\'s ctypes/compatibility plumbing imported into the module, not API',
             r'check_call|c_array|c_array_buf|c_handle_array|c_str|string_types|numeric_types|'
             r'integer_types|classproperty|with_metaclass|Lock|MXCallbackList|NDArrayHandle|'
             r'mx_real_t|py_slice|py_sum|native_array|is_np_array|pi')
_SYMBOL = ('the symbolic API beyond what Gluon uses (executor modules, custom operators, '
           'symbol docs); gluonedu has mx.sym, hybridize, export and SymbolBlock')
_CONTRIB = 'contrib: experimental operators outside MXNet\'s stable API'
_NP = 'MXNet 2\'s NumPy interface (mx.np/npx), not MXNet 1.x Gluon'
_CODEC = 'needs an image/record codec (OpenCV, RecordIO), which gluonedu does not bundle'
_GPU = 'GPU-/accelerator-specific (cuDNN, TensorRT, TVM, oneDNN), nothing to do on NumPy'
_QUANT = 'int8 quantization for deployment (oneDNN), not training'
_LEGACY = 'deprecated in MXNet 1.x, kept there for old checkpoints (use the current operator)'
_MODULE_API = 'the pre-Gluon Module/Executor API, built on symbolic graphs'
_DOWNLOAD = 'downloads from the Internet; gluonedu never downloads'

#: namespace -> [(regular expression a name must match entirely, reason)], in order.
EXCLUDED = {
    '*': [(_PLUMBING[1], _PLUMBING[0])],
    '': [
        (r'sym|symbol|symbol_doc|np_symbol|AttrScope|attribute|name|executor|'
         r'executor_manager|visualization|viz|operator', _SYMBOL),
        (r'model|callback|monitor|mon|rnn', _MODULE_API),
        (r'np|npx|numpy|numpy_extension|numpy_dispatch_protocol|numpy_op_fallback|'
         r'numpy_op_signature|np_array|use_np|use_np_array', _NP),
        (r'recordio', _CODEC),
        (r'rtc|tvmop|library|libinfo|runtime|engine|profiler|kvstore_server', _GPU +
         '; or native-library internals'),
        (r'contrib', _CONTRIB),
        (r'onnx|th|torch|notebook|api|error|log|registry|ndarray_doc|base|cpu_pinned',
         'interop, internals or documentation helpers, not a training API'),
    ],
    'nd': [
        (r'contrib|image|op|gen_\w+|ndarray|utils|register|np|npx', 'a module of MXNet\'s '
         'generated operator bindings (the operators themselves are listed)'),
        (r'\w*_v1|Crop|SliceChannel', _LEGACY),
        (r'SoftmaxOutput|Softmax|LinearRegressionOutput|LogisticRegressionOutput|'
         r'MAERegressionOutput|SVMOutput|IdentityAttachKLSparseReg|MakeLoss|make_loss',
         _MODULE_API + ' (output layers with built-in losses)'),
        (r'CachedOp', _SYMBOL),
        (r'get_indexing_dispatch_code|get_oshape_of_gather_nd_op|'
         r'indexing_key_expand_implicit_axes', 'helpers of MXNet\'s own NDArray indexing code'),
        (r'from_dlpack|to_dlpack_for_read|to_dlpack_for_write',
         'DLPack exchange with MXNet\'s engine arrays'),
        (r'Custom', 'runs a Python mx.operator.CustomOp registered with MXNet\'s engine'),
        (r'\w*quantiz\w*|requantize|dequantize', _QUANT),
        (r'CuDNN\w*|\w*_tensorrt\w*|\w*mkldnn\w*|\w*onednn\w*', _GPU),
        (r'imdecode|\w*_image\w*|cvimdecode|cvimread|cvimresize|cvcopyMakeBorder|'
         r'copyMakeBorder', _CODEC),
    ],
    'nd.NDArray': [
        (r'tostype|as_np_ndarray|as_nd_ndarray', _NP),
        (r'handle|writable', 'the C handle of MXNet\'s engine array'),
        (r'to_dlpack_for_read|to_dlpack_for_write', 'DLPack exchange with MXNet\'s engine'),
    ],
    'nd.sparse': [(r'\w+_update', 'the sparse optimizer kernels; mx.optimizer applies them'),
                  (r'contrib|linalg|op|random|image', 'a module of generated bindings')],
    'autograd': [(r'Symbol|get_symbol', _SYMBOL)],
    'context': [(r'gpu_memory_info', 'queries a CUDA device\'s memory; no NumPy analogue')],
    'gluon': [(r'SymbolBlock|tensor_types', _SYMBOL)],
    'gluon.nn': [(r'SymbolBlock', _SYMBOL)],
    'gluon.data': [(r'RecordFileDataset', _CODEC)],
    'io': [(r'ImageRecord\w*|ImageDetRecordIter', _CODEC),
           (r'MXDataIter', 'wraps an iterator of MXNet\'s C++ library')],
    'gluon.data.vision': [(r'ImageRecordDataset', _CODEC)],
    'image': [(r'cv2', 'the OpenCV module MXNet\'s image code imports, not API')],
    'gluon.utils': [(r'download|check_sha1|replace_file', _DOWNLOAD)],
    'optimizer': [(r'Test', 'MXNet\'s own test optimizer, not for users'),
                  (r'ccSGD', _LEGACY)],
    'kv': [(r'KVStoreServer', 'the parameter-server process of MXNet\'s ps-lite; '
            'gluonedu\'s dist stores run on Ray')],
    'metric': [(r'Caffe|Torch', 'wraps a Caffe/Torch criterion through plugins')],
    'init': [(r'FusedRNN', 'for the cuDNN fused RNN layer'),
             (r'Load', 'loads a Module-API parameter file (arg:/aux: names)')],
    'test_utils': [
        (r'Symbol|check_symbolic_\w+|check_consistency|check_speed|simple_forward|'
         r'check_gluon_hybridize_consistency|same_symbol_structure|np_symbol|'
         r'check_numeric_gradient|numeric_grad|DummyIter|get_mnist_iterator', _SYMBOL),
        (r'download\w*|get_(mnist|cifar10|mnist_pkl|mnist_ubyte|bz2_data|zip_data|'
         r'im2rec_path)', _DOWNLOAD),
        (r'get_cuda_compute_capability|has_tvm_ops|is_cd_run|is_aarch64_run|Features|'
         r'is_op_runnable|use_np', _GPU + '; or build/CI introspection'),
    ],
}


def exclusion(namespace, name):
    """The reason ``name`` of ``namespace`` is left out on purpose, or None."""
    for pattern, reason in EXCLUDED.get(namespace, []) + EXCLUDED['*']:
        if re.fullmatch(pattern, name):
            return reason
    return None


def oracle_python():
    return Path(os.environ.get(ORACLE_ENV) or REPO / '.venv-mxnet' / 'bin' / 'python')


def mxnet_names():
    """``(version, {namespace: [names]})`` from MXNet, or None without the reference
    interpreter (the reason goes to stderr)."""
    python = oracle_python()
    if not python.exists():
        print('api-coverage: no MXNet reference interpreter at %s (make ref-venv, or set %s)'
              % (python, ORACLE_ENV), file=sys.stderr)
        return None
    run = subprocess.run([str(python), str(NAMES_SCRIPT)] + [ns for ns, _ in NAMESPACES],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        print('api-coverage: listing MXNet\'s names failed:\n' + run.stderr[-2000:],
              file=sys.stderr)
        return None
    listed = json.loads(run.stdout)
    return listed['mxnet_version'], listed['names']


def gluonedu_namespace(path):
    """The gluonedu object standing for ``mx.<path>``, or None if gluonedu lacks it."""
    import gluonedu
    obj = gluonedu
    for part in filter(None, path.split('.')):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def classify(namespace, names):
    """``{'mxnet': names, 'has': [...], 'lacks': [...], 'excluded': {name: reason}}``."""
    ours = gluonedu_namespace(namespace)
    entry = {'mxnet': sorted(names), 'has': [], 'lacks': [], 'excluded': {}}
    for name in entry['mxnet']:
        if ours is not None and hasattr(ours, name):
            entry['has'].append(name)
        elif exclusion(namespace, name):
            entry['excluded'][name] = exclusion(namespace, name)
        else:
            entry['lacks'].append(name)
    return entry


def build_report(version, names):
    return {'mxnet_version': version,
            'namespaces': {ns: classify(ns, names[ns]) for ns, _ in NAMESPACES}}


def load_report(path=REPORT_JSON):
    return json.loads(Path(path).read_text())


def in_scope(entry):
    return set(entry['has']) | set(entry['lacks'])


def _label(namespace):
    return 'mx.' + namespace if namespace else 'mx'


def _names(names):
    return ', '.join('`%s`' % n for n in names) if names else '—'


def render_markdown(report):
    lines = ['# API coverage against MXNet %s' % report['mxnet_version'], '',
             'Written by `make api-coverage` (scripts/api_coverage.py); do not edit by hand. '
             'Each namespace\'s public names in MXNet are sorted into what gluonedu **has**, '
             'what it **lacks** (in scope, not there yet), and what is **excluded** on '
             'purpose, with the reason. The in-scope set (has + lacks) only grows '
             '(tests/test_api_coverage.py).', '',
             '| namespace | what | MXNet | has | lacks | excluded | in scope covered |',
             '| --- | --- | ---: | ---: | ---: | ---: | ---: |']
    totals = [0, 0, 0, 0]
    for ns, what in NAMESPACES:
        e = report['namespaces'][ns]
        counts = [len(e['mxnet']), len(e['has']), len(e['lacks']), len(e['excluded'])]
        totals = [a + b for a, b in zip(totals, counts)]
        lines.append('| `%s` | %s | %d | %d | %d | %d | %s |' % (
            (_label(ns), what) + tuple(counts) + (_percent(counts[1], counts[1] + counts[2]),)))
    lines.append('| **all** | | %d | %d | %d | %d | %s |' % (
        tuple(totals) + (_percent(totals[1], totals[1] + totals[2]),)))
    for ns, what in NAMESPACES:
        e = report['namespaces'][ns]
        lines += ['', '## `%s` — %s' % (_label(ns), what), '',
                  '**Has** (%d): %s' % (len(e['has']), _names(e['has'])), '',
                  '**Lacks** (%d): %s' % (len(e['lacks']), _names(e['lacks']))]
        by_reason = {}
        for name, reason in sorted(e['excluded'].items()):
            by_reason.setdefault(reason, []).append(name)
        if by_reason:
            lines += ['', '**Excluded** (%d):' % len(e['excluded']), '']
            lines += ['- %s: %s' % (reason[0].upper() + reason[1:], _names(names))
                      for reason, names in sorted(by_reason.items())]
    return '\n'.join(lines) + '\n'


def _percent(part, whole):
    return '%.0f %%' % (100.0 * part / whole) if whole else '—'


def summary(report):
    rows = []
    for ns, _ in NAMESPACES:
        e = report['namespaces'][ns]
        rows.append('%-30s has %4d  lacks %4d  excluded %4d' % (
            _label(ns), len(e['has']), len(e['lacks']), len(e['excluded'])))
    return '\n'.join(rows)


def shrinkage(report, baseline):
    """The names the baseline has in scope (or covered) that ``report`` no longer has."""
    lost = []
    for ns, recorded in baseline['namespaces'].items():
        entry = report['namespaces'].get(ns, {'has': [], 'lacks': []})
        lost += ['%s.%s left the in-scope set' % (_label(ns), n)
                 for n in sorted(set(recorded['in_scope']) - in_scope(entry))]
        lost += ['%s.%s is no longer covered' % (_label(ns), n)
                 for n in sorted(set(recorded['has']) - set(entry['has']))]
    return lost


def baseline_of(report):
    return {'mxnet_version': report['mxnet_version'],
            'namespaces': {ns: {'in_scope': sorted(in_scope(e)), 'has': e['has']}
                           for ns, e in report['namespaces'].items()}}


def _write(path, text):
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_text(text)
    os.replace(tmp, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--raise-baseline', action='store_true',
                        help='record the current in-scope and covered sets as the baseline')
    args = parser.parse_args(argv)
    listed = mxnet_names()
    if listed is None:
        if not REPORT_JSON.exists():
            print('api-coverage: error: neither MXNet nor %s to take its names from'
                  % REPORT_JSON.relative_to(REPO), file=sys.stderr)
            return 1
        old = load_report()
        print('api-coverage: re-using the MXNet names recorded in %s'
              % REPORT_JSON.relative_to(REPO), file=sys.stderr)
        listed = old['mxnet_version'], {ns: e['mxnet'] for ns, e in old['namespaces'].items()}
    report = build_report(*listed)
    if BASELINE.exists():
        lost = shrinkage(report, json.loads(BASELINE.read_text()))
        if lost:
            print('api-coverage: error: the in-scope set only grows, but\n  ' +
                  '\n  '.join(lost), file=sys.stderr)
            return 1
    _write(REPORT_JSON, json.dumps(report, indent=1, sort_keys=True) + '\n')
    _write(REPORT_MD, render_markdown(report))
    if args.raise_baseline:
        _write(BASELINE, json.dumps(baseline_of(report), indent=1, sort_keys=True) + '\n')
    print(summary(report))
    print('wrote %s and %s%s' % (REPORT_MD.relative_to(REPO), REPORT_JSON.relative_to(REPO),
                                 ' and the baseline' if args.raise_baseline else ''))
    return 0


if __name__ == '__main__':
    sys.path.insert(0, str(REPO))      # this checkout's gluonedu
    sys.exit(main())
