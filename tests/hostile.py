"""Making hostile variants of gluonedu's archives, and running a loader on them safely.

An archive here is the bytes of a ZIP (``mx.nd.save`` files, optimizer-state files).
The variants keep the ZIP checksums valid where the point is to get past them (the JSON
edits, swapped members) and break them where the point is the damage (flips,
truncations). :func:`run_loader` runs one loader call under a wall-clock alarm and
``tracemalloc``, and reports what happened.
"""
import io
import json
import pickle
import signal
import struct
import time
import tracemalloc
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np

import gluonedu as mx

#: The slowest a loader may take on one hostile file (a hang fails the case).
CASE_SECONDS = 10
#: Memory a loader may use beyond 2x the legitimate data (Python objects, buffers).
SLACK_BYTES = 2 << 20


# --------------------------------------------------------------------------- archives
def members(raw):
    """``[(name, bytes)]`` of an archive, in order."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def rezip(items, compression=zipfile.ZIP_STORED):
    """A ZIP (valid checksums) of ``[(name, bytes)]``; names may repeat."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression=compression) as zf:
        for name, data in items:
            with warnings_off():
                zf.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return buf.getvalue()


@contextmanager
def warnings_off():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # zipfile warns about duplicate names
        yield


def replace(raw, name, data):
    """``raw`` with member ``name``'s bytes replaced (checksums valid)."""
    return rezip([(n, data if n == name else d) for n, d in members(raw)])


def edit_document(raw, name, edit):
    """``raw`` with its JSON document ``name`` replaced by ``edit(document)``."""
    document = json.loads(dict(members(raw))[name])
    return replace(raw, name, json.dumps(edit(document)).encode())


def npy(array, allow_pickle=False):
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=allow_pickle)
    return buf.getvalue()


def npy_with_header(header, data=b''):
    """A ``.npy`` version 1.0 file with a hand-written header text."""
    text = header.encode('latin-1')
    text += b' ' * (-(len(text) + 11) % 64) + b'\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(text)) + text + data


def _central_entries(raw):
    """``{name: offset of its central directory entry}``."""
    entries = {}
    start = raw.rfind(b'PK\x05\x06')
    count, size, offset = struct.unpack('<HII', raw[start + 10:start + 20])
    pos = offset
    for _ in range(count):
        name_len, extra_len, comment_len = struct.unpack('<HHH', raw[pos + 28:pos + 34])
        entries[raw[pos + 46:pos + 46 + name_len].decode()] = pos
        pos += 46 + name_len + extra_len + comment_len
    return entries


def patch_central(raw, name, **fields):
    """``raw`` with fields of ``name``'s central directory entry overwritten.

    fields: ``flags``, ``method``, ``crc``, ``compressed``, ``size``, ``offset``.
    """
    layout = {'flags': (8, '<H'), 'method': (10, '<H'), 'crc': (16, '<I'),
              'compressed': (20, '<I'), 'size': (24, '<I'), 'offset': (42, '<I')}
    out = bytearray(raw)
    pos = _central_entries(raw)[name]
    for field, value in fields.items():
        at, fmt = layout[field]
        struct.pack_into(fmt, out, pos + at, value)
    return bytes(out)


def deflate_bomb(raw, name, size):
    """``raw`` with member ``name`` holding ``size`` zero bytes, deflated (~1000x)."""
    zeros = np.zeros(size, np.uint8).tobytes()
    return rezip([(n, zeros if n == name else d) for n, d in members(raw)],
                 compression=zipfile.ZIP_DEFLATED)


class Evil:
    """Unpickling this creates ``marker`` (proof that a loader ran code)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, 'w'))


def pickle_payload(marker):
    return pickle.dumps(Evil(str(marker)))


def field_edits(document, rng, per_field=8):
    """``[(case id, edited document)]``: every field (and the whole document) set to
    ``per_field`` values drawn from :data:`HOSTILE_VALUES`, and every field dropped."""
    out = []
    for path in json_paths(document):
        name = '/'.join(map(str, path))
        picks = rng.choice(len(HOSTILE_VALUES), size=per_field, replace=False)
        out += [('%s=%r' % (name, HOSTILE_VALUES[i]), set_path(document, path,
                                                             HOSTILE_VALUES[i]))
                for i in sorted(picks)]
        if path:
            out.append(('drop ' + name, drop_path(document, path)))
    return out


def json_paths(value, path=()):
    """Every path to a value inside parsed JSON (dict keys and list positions)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_paths(item, path + (i,))


def set_path(document, path, value):
    """A copy of ``document`` with the value at ``path`` replaced."""
    document = json.loads(json.dumps(document))
    if not path:
        return value
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


def drop_path(document, path):
    document = json.loads(json.dumps(document))
    target = document
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return document


#: What each JSON value is replaced with: wrong types, out-of-range numbers, huge ones.
HOSTILE_VALUES = [None, True, -1, 0, 2 ** 64, -2 ** 63, 1e308, float('nan'), 0.5, '', 'x',
                  '../../etc/passwd', [], [-1], [2 ** 40, 2 ** 40], {}, {'a': 1}]


def flips_and_cuts(raw, rng, stride=1, random_count=60):
    """Damaged copies: every ``stride``-th byte flipped in the first 200 and last 400
    bytes (headers, the manifest, the central directory) and at ``random_count`` random
    places; cut at a third of those places."""
    n = len(raw)
    places = sorted(set(list(range(0, min(200, n), stride))
                        + list(range(max(0, n - 400), n, stride))
                        + [int(p) for p in rng.integers(0, n, random_count)]))
    out = []
    for pos in places:
        flipped = bytearray(raw)
        flipped[pos] ^= 0xFF
        out.append(('flip@%d' % pos, bytes(flipped)))
    out += [('cut@%d' % pos, raw[:pos]) for pos in places[::3]]
    return out


# --------------------------------------------------------------------------- running
class Timeout(Exception):
    pass


@contextmanager
def alarm(seconds):
    def ring(signum, frame):
        raise Timeout('no answer within %d s' % seconds)
    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Outcome:
    """What one loader call did: ``error`` (the exception or None), ``result``, ``peak``
    (bytes traced by tracemalloc above the start), ``seconds``."""

    def __init__(self, error, result, peak, seconds):
        self.error, self.result, self.peak, self.seconds = error, result, peak, seconds

    def __repr__(self):
        return 'Outcome(%s, peak=%.1f MB, %.2f s)' % (
            type(self.error).__name__ if self.error else 'loaded', self.peak / 2 ** 20,
            self.seconds)


def run_loader(load):
    """Call ``load()`` under the alarm and tracemalloc; the :class:`Outcome`."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    start = time.monotonic()
    error = result = None
    try:
        with alarm(CASE_SECONDS):
            result = load()
    except Exception as err:  # the caller judges the type
        error = err
    seconds = time.monotonic() - start
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return Outcome(error, result, peak, seconds)


def nbytes_of(arrays):
    """Bytes of the arrays in a list/dict of NDArrays (the legitimate data)."""
    values = arrays.values() if isinstance(arrays, dict) else arrays
    total = 0
    for arr in values:
        if arr.stype == 'default':
            total += arr.asnumpy().nbytes
        else:
            total += sum(getattr(arr, part).asnumpy().nbytes
                         for part in ('data', 'indices', 'indptr') if hasattr(arr, part))
    return total


def judge(outcome, allowed_errors, legit_bytes, same_as_legit):
    """A list of problems with ``outcome`` (empty: fine).

    A hostile file must raise one of ``allowed_errors`` (MXNetError, plus the documented
    errors of a loader whose file is valid but does not fit) or load what the legitimate
    file holds (``same_as_legit(result)``); never hang; stay within 2x the legitimate
    data's memory.
    """
    problems = []
    if isinstance(outcome.error, Timeout):
        problems.append('hung')
    elif outcome.error is not None and not isinstance(outcome.error, allowed_errors):
        problems.append('raised %s: %s' % (type(outcome.error).__name__,
                                           str(outcome.error)[:200]))
    elif outcome.error is None and not same_as_legit(outcome.result):
        problems.append('loaded something else without an error')
    if outcome.peak > 2 * legit_bytes + SLACK_BYTES:
        problems.append('used %.1f MB for %.1f MB of data'
                        % (outcome.peak / 2 ** 20, legit_bytes / 2 ** 20))
    return problems


def assert_all_fine(cases):
    """``cases``: ``[(case id, problems)]``; fail listing every case with a problem."""
    bad = [(case, problems) for case, problems in cases if problems]
    assert not bad, '%d of %d cases: %s' % (len(bad), len(cases), bad[:20])


MXNetError = mx.MXNetError
