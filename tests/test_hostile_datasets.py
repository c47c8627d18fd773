"""Hostile files against the vision dataset readers: MNIST's gzip IDX files and the
images of ImageFolderDataset.

Decompression bombs behind a wrong magic number or a short header, payloads longer or
shorter than announced, sizes whose product overflows 64 bits, images and labels that
disagree, a PNG announcing 20000 × 20000 pixels. Each must raise ValueError naming the
file, and the reading process must grow by less than twice the payload the file
announces (plus SLACK_BYTES) -- and an honest file must load within the same bound.

The memory is measured in one child process for all cases: before each case its peak
resident set (VmHWM) is reset to the current one (``/proc/self/clear_refs``), so each
case's figure is its own peak growth, not an inherited or earlier high-water mark.
"""
import gzip
import json
import os
import re
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vision_files

#: What a case may use beyond 2x its announced payload: decompression buffers, the
#: exception and its message.
SLACK_BYTES = 8 << 20
#: Bytes of zeros behind the bombs: read whole, as before the fix, they cost 2x this.
BOMB_BYTES = 64 << 20
IMAGES, LABELS = vision_files.MNIST_FILES[True]

CHILD = textwrap.dedent('''
    import gc, json, re, sys
    from PIL import Image   # imported before measuring, as gluonedu's reader is
    from gluonedu.gluon.data import vision

    def status(field):
        with open('/proc/self/status') as f:
            return int(re.search(field + r':\\s+(\\d+)', f.read()).group(1)) * 1024

    out = {}
    for name, kind, root in json.loads(sys.argv[1]):
        gc.collect()
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')                  # the peak resident set starts again from here
        start, dataset = status('VmRSS'), None
        try:
            dataset = vision.MNIST(root) if kind == 'mnist' else vision.ImageFolderDataset(root)
            if kind == 'folder':
                dataset[0]
            outcome = ['none', len(dataset)]
        except Exception as exc:
            outcome = [type(exc).__name__, str(exc)]
        del dataset
        out[name] = outcome + [status('VmHWM') - start]
    print(json.dumps(out))
''')


def idx(magic, *sizes, payload=b''):
    """An IDX file: its header, and ``payload`` in the same gzip member."""
    return gzip.compress(struct.pack('>' + 'I' * (1 + len(sizes)), magic, *sizes) + payload,
                         compresslevel=1)


def labels(count):
    return idx(2049, count, payload=bytes(count))


def _cases(bomb):
    """name -> (images file, labels file, the payload bytes they announce, message)."""
    pixels = np.random.RandomState(0).randint(0, 256, 10_000 * 784).astype(np.uint8).tobytes()
    return {
        'wrong magic, then a bomb': (idx(2052, 3, 28, 28) + bomb, labels(3), 3,
                                     'magic number is 2052, expected 2051'),
        'more pixels than announced': (idx(2051, 3, 28, 28) + bomb, labels(3), 3 * 785,
                                       r'announces 3 x 28 x 28 values but it holds more'),
        'more labels than announced': (idx(2051, 3, 28, 28, payload=pixels[:3 * 784]),
                                       idx(2049, 3) + bomb, 3 * 785, 'announces 3 values'),
        'images and labels disagree, then a bomb': (idx(2051, 5, 28, 28) + bomb, labels(3), 3,
                                                    'holds 5 images but .* holds 3 labels'),
        'sizes whose product wraps to 0': (idx(2051, 4, 2 ** 31, 2 ** 31), labels(4), 4,
                                           'more than a gzip file of'),
        'the largest sizes': (idx(2051, 3, 2 ** 32 - 1, 2 ** 32 - 1), labels(3), 3,
                              'more than a gzip file of'),
        'announced within reach, cut short': (idx(2051, 1000, 28, 28, payload=pixels[:500 * 784]),
                                              labels(1000), 1000 * 785,
                                              'announces 1000 x 28 x 28 values but it holds '
                                              '392000'),
        'an honest file': (idx(2051, 10_000, 28, 28, payload=pixels), labels(10_000),
                           10_000 * 785, None),
    }


@pytest.fixture(scope='module')
def outcomes(tmp_path_factory):
    """name -> (exception type, message or length, peak growth in bytes), and the cases."""
    if not os.access('/proc/self/clear_refs', os.W_OK):
        pytest.skip('measuring a peak resident set needs Linux /proc/self/clear_refs')
    root = tmp_path_factory.mktemp('hostile_datasets')
    cases = _cases(vision_files.gzip_zeros(BOMB_BYTES))
    runs = []
    for k, (name, (images, label_file, _, _)) in enumerate(cases.items()):
        folder = root / ('mnist%d' % k)
        folder.mkdir()
        (folder / IMAGES).write_bytes(images)
        (folder / LABELS).write_bytes(label_file)
        runs.append((name, 'mnist', str(folder)))
    (root / 'folder' / 'huge').mkdir(parents=True)
    (root / 'folder' / 'huge' / 'bomb.png').write_bytes(vision_files.png_claiming(20000, 20000))
    runs.append(('a PNG announcing 20000 x 20000', 'folder', str(root / 'folder')))
    cases['a PNG announcing 20000 x 20000'] = (None, None, 0, 'too large to decode safely')
    proc = subprocess.run([sys.executable, '-c', CHILD, json.dumps(runs)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), cases, runs


CASE_NAMES = list(_cases(b'')) + ['a PNG announcing 20000 x 20000']


@pytest.mark.parametrize('name', CASE_NAMES)
def test_a_hostile_dataset_file_is_refused_within_twice_its_announced_payload(name, outcomes):
    results, cases, runs = outcomes
    kind, message, grown = results[name]
    announced, expected = cases[name][2], cases[name][3]
    if expected is None:
        assert kind == 'none' and message == 10_000
    else:
        assert kind == 'ValueError', (kind, message)
        assert re.search(expected, message), message
        assert dict((n, r) for n, _, r in runs)[name] in message   # names the file
    assert grown < 2 * announced + SLACK_BYTES, (
        '%s: grew by %.1f MB for %.1f MB announced' % (name, grown / 2 ** 20, announced / 2 ** 20))
