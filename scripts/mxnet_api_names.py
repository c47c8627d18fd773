"""The public names of MXNet's Python API, per namespace, as JSON on stdout.

Run by scripts/api_coverage.py (and tests/parity/api_coverage/test_api_coverage_parity.py) with the
MXNet 1.9.1 reference interpreter, never with gluonedu's:
``python mxnet_api_names.py [--out FILE] NAMESPACE...``, each namespace a dotted path
from ``mx`` ('nd', 'gluon.nn', 'nd.NDArray', or '' for ``mx`` itself).

A namespace's public names are its ``__all__`` where it has one, else what ``dir()``
shows, less names starting with ``_``, submodules (listed only for ``mx`` itself, where
they are the API's parts) and objects imported from outside MXNet (``OrderedDict``,
``ctypes.c_int``, ``math.sqrt``).
"""
import json
import os
import sys
import types
import warnings


def _defined_outside_mxnet(value, mxnet_dir):
    """Whether ``value`` comes from a module installed outside MXNet's package (MXNet's
    generated operators name a module, 'ndarray', that is not imported anywhere)."""
    module = getattr(value, '__module__', None)
    if not isinstance(module, str) or isinstance(value, types.ModuleType):
        return False
    source = getattr(sys.modules.get(module.split('.')[0]), '__file__', None)
    return source is not None and not os.path.abspath(source).startswith(mxnet_dir)


def public_names(mx, path):
    obj = mx
    for part in filter(None, path.split('.')):
        obj = getattr(obj, part)
    if isinstance(obj, type):                     # a class: its public attributes
        return sorted(n for n in dir(obj) if not n.startswith('_'))
    names = getattr(obj, '__all__', None) or dir(obj)
    public = []
    for name in names:
        if name.startswith('_') or not hasattr(obj, name):
            continue
        value = getattr(obj, name)
        if isinstance(value, types.ModuleType) and path:
            continue
        if _defined_outside_mxnet(value, os.path.dirname(mx.__file__)) and not (isinstance(value, type) and
                                                  issubclass(value, BaseException)):
            continue
        public.append(name)
    return sorted(set(public))


def main(args):
    out = None
    if args[:1] == ['--out']:
        out, args = args[1], args[2:]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        import mxnet as mx
    listed = {'mxnet_version': mx.__version__,
              'names': {path: public_names(mx, path) for path in args}}
    if out is None:
        json.dump(listed, sys.stdout)
    else:
        with open(out, 'w') as f:
            json.dump(listed, f)


if __name__ == '__main__':
    main(sys.argv[1:])
