"""``mx.image`` on both sides: decoding, resizing, cropping and normalizing, and the errors.

Both MXNet 1.9.1 and gluonedu run :func:`run` (it imports neither package) on the same
pixels: random images drawn from a seeded ``numpy.random.RandomState`` (the same values
under any NumPy), and the image files of a folder that the test writes with Pillow
(the oracle's interpreter has no Pillow). As a script, on the oracle's interpreter:
``oracle_main.py image_driver.py FOLDER`` writes MXNet's results.

Each result is an array (compared exactly, dtype included) or, for a call that raised,
the exception's type name.
"""
import json
import os
import sys

import numpy as np

#: Files the test writes (see test_image_parity.write_images) and :func:`run` decodes.
DECODED_FILES = ('rgb.png', 'rgba.png', 'gray.png', 'palette.png', 'gray16.png',
                 'gray_alpha.png', 'rgb.jpg', 'gray.jpg', 'progressive.jpg', 'cmyk.jpg',
                 'rgb.bmp', 'rgb.tif')
#: Files whose decoding raises in MXNet: a GIF, a truncated PNG, bytes of no format.
UNDECODABLE_FILES = ('rgb.gif', 'truncated.png', 'junk.png')

#: The .lst files the test writes for ImageIter: (key, label, file) lines; the second
#: lists a file that does not decode.
IMAGE_LISTS = {'images.lst': [(0, 2, 'rgb.png'), (1, 0, 'palette.png'), (2, 1, 'rgb.jpg'),
                              (3, 1, 'rgb.bmp'), (4, 0, 'gray.png')],
               'broken.lst': [(0, 1, 'rgb.png'), (1, 0, 'junk.png')]}

#: (height, width, channels) of the random images, and the (width, height) each is
#: resized to: enlarged, shrunk by a whole factor, shrunk by another, odd sizes.
RESIZES = {(5, 7, 3): ((16, 11), (3, 2)),
           (13, 9, 1): ((9, 30), (4, 6)),
           (24, 32, 3): ((16, 12), (13, 7), (47, 61)),
           (17, 31, 4): ((15, 8), (31, 40))}


def images():
    """The random uint8 images, by shape."""
    rng = np.random.RandomState(30)
    return {shape: rng.randint(0, 256, shape).astype(np.uint8) for shape in RESIZES}


def _outcome(results, key, call):
    """Store ``call()``'s array under ``key``, or the type name of what it raised."""
    try:
        value = call()
        results[key] = value.asnumpy() if hasattr(value, 'asnumpy') else np.asarray(value)
    except Exception as exc:  # the type is the outcome compared
        results[key] = np.array('raised ' + type(exc).__name__)


def run(mx, folder):
    """Every result, by name: arrays, or ``'raised <type>'``."""
    results = {}
    nd = mx.nd
    for shape, pixels in images().items():
        src = nd.array(pixels, dtype='uint8')
        tag = '%dx%dx%d' % shape
        for size in RESIZES[shape]:
            for interp in range(5):
                _outcome(results, 'imresize %s->%s interp %d' % (tag, size, interp),
                         lambda: mx.image.imresize(src, size[0], size[1], interp=interp))
        as_float = nd.array(pixels, dtype='float32')
        for interp in (1, 2, 3):
            size = RESIZES[shape][0]
            _outcome(results, 'imresize float32 %s->%s interp %d' % (tag, size, interp),
                     lambda: mx.image.imresize(as_float, size[0], size[1], interp=interp))
        for short in (4, 11, 40):
            _outcome(results, 'resize_short %s %d' % (tag, short),
                     lambda: mx.image.resize_short(src, short))
            _outcome(results, 'resize_short %s %d interp 9' % (tag, short),
                     lambda: mx.image.resize_short(src, short, interp=9))
        for size in ((3, 2), (6, 5), (40, 12)):
            _outcome(results, 'center_crop %s %s' % (tag, size),
                     lambda: mx.image.center_crop(src, size)[0])
            _outcome(results, 'center_crop rect %s %s' % (tag, size),
                     lambda: np.array(mx.image.center_crop(src, size)[1]))
            _outcome(results, 'random_crop is a fixed_crop %s %s' % (tag, size),
                     lambda: _random_crop_is_fixed_crop(mx, src, size))
        _outcome(results, 'fixed_crop %s' % tag,
                 lambda: mx.image.fixed_crop(src, 1, 2, 3, 3, size=(7, 5), interp=1))
        _outcome(results, 'fixed_crop past the edge %s' % tag,
                 lambda: mx.image.fixed_crop(src, 2, 1, 50, 50))
    _normalize(mx, results)
    _decode(mx, folder, results)
    _errors(mx, folder, results)
    _iterate(mx, folder, results)
    results['scale_down'] = np.array([mx.image.scale_down((640, 480), (720, 120)),
                                      mx.image.scale_down((5, 7), (10, 3)),
                                      mx.image.scale_down((5, 7), (3, 10))])
    return results


def _random_crop_is_fixed_crop(mx, src, size):
    """[the crop equals fixed_crop at the rectangle returned, the rectangle inside src]."""
    out, (x0, y0, w, h) = mx.image.random_crop(src, size)
    again = mx.image.fixed_crop(src, x0, y0, w, h, size)
    inside = 0 <= x0 and x0 + w <= src.shape[1] and 0 <= y0 and y0 + h <= src.shape[0]
    return np.array([bool((out.asnumpy() == again.asnumpy()).all()), inside])


def _normalize(mx, results):
    pixels = images()[(5, 7, 3)].astype(np.float32)
    src = mx.nd.array(pixels)
    out = mx.image.color_normalize(src, mx.nd.array([123.68, 116.28, 103.53]),
                                   mx.nd.array([58.395, 57.12, 57.375]))
    results['color_normalize'] = out.asnumpy()
    results['color_normalize wrote src'] = np.array(bool((src.asnumpy() == out.asnumpy()).all()))
    _outcome(results, 'color_normalize mean only',
             lambda: mx.image.color_normalize(mx.nd.array(pixels), 100.0))


def _decode(mx, folder, results):
    for name in DECODED_FILES:
        path = os.path.join(folder, name)
        for flag in (1, 0):
            _outcome(results, 'imread %s flag %d' % (name, flag),
                     lambda: mx.image.imread(path, flag=flag))
        _outcome(results, 'imread %s bgr' % name, lambda: mx.image.imread(path, to_rgb=False))
        with open(path, 'rb') as stream:
            data = stream.read()
        _outcome(results, 'imdecode %s' % name, lambda: mx.image.imdecode(data))
        _outcome(results, 'imdecode bytearray %s' % name,
                 lambda: mx.image.imdecode(bytearray(data), flag=0))
        _outcome(results, 'imdecode NDArray %s' % name,
                 lambda: mx.image.imdecode(mx.nd.array(np.frombuffer(data, np.uint8),
                                                       dtype='uint8')))


def _batches(iterator):
    """Every batch of one epoch: data, labels and pad, stacked."""
    batches = list(iterator)
    return {'data': np.stack([b.data[0].asnumpy() for b in batches]),
            'label': np.stack([b.label[0].asnumpy() for b in batches]),
            'pad': np.array([b.pad for b in batches])}


def _iterate(mx, folder, results):
    lst = os.path.join(folder, 'images.lst')
    iterators = {
        'resize, center crop, ImageNet mean and std': lambda: mx.image.ImageIter(
            2, (3, 8, 8), path_imglist=lst, path_root=folder, resize=10, mean=True, std=True),
        'forced resize, discard': lambda: mx.image.ImageIter(
            2, (3, 6, 10), path_imglist=lst, path_root=folder, last_batch_handle='discard',
            aug_list=[mx.image.ForceResizeAug((10, 6), interp=1), mx.image.CastAug()]),
        'two labels from a list': lambda: mx.image.ImageIter(
            3, (3, 5, 5), label_width=2, path_root=folder, dtype='int32', inter_method=9,
            imglist=[[1, 2, 'rgb.png'], [3, 4, 'rgb.jpg'], [5, 6, 'rgb.tif']]),
    }
    for name, make in iterators.items():
        try:
            for part, value in _batches(make()).items():
                results['ImageIter %s %s' % (name, part)] = value
        except Exception as exc:  # the type is the outcome compared
            results['ImageIter %s' % name] = np.array('raised ' + type(exc).__name__)
    augmenters = mx.image.CreateAugmenter(
        (3, 8, 8), resize=10, rand_crop=True, rand_resize=True, rand_mirror=True, mean=True,
        std=np.array([50., 60., 70.]), brightness=0.1, contrast=0.2, saturation=0.3,
        hue=0.1, pca_noise=0.05, rand_gray=0.1, inter_method=10)
    results['CreateAugmenter dumps'] = np.array(json.dumps([a.dumps() for a in augmenters]))
    _outcome(results, 'error ImageIter a broken image', lambda: list(mx.image.ImageIter(
        2, (3, 4, 4), path_imglist=os.path.join(folder, 'broken.lst'), path_root=folder)))
    _outcome(results, 'error ImageIter one channel', lambda: mx.image.ImageIter(
        2, (1, 4, 4), path_imglist=lst, path_root=folder))


def _errors(mx, folder, results):
    src = mx.nd.array(images()[(5, 7, 3)], dtype='uint8')
    for name in UNDECODABLE_FILES:
        path = os.path.join(folder, name)
        _outcome(results, 'error imread %s' % name, lambda: mx.image.imread(path))
        with open(path, 'rb') as stream:
            data = stream.read()
        _outcome(results, 'error imdecode %s' % name, lambda: mx.image.imdecode(data))
    cases = {
        'imdecode empty bytes': lambda: mx.image.imdecode(b''),
        'imdecode a str': lambda: mx.image.imdecode('not bytes'),
        'imdecode a float32 NDArray': lambda: mx.image.imdecode(mx.nd.array([137., 80.])),
        'imdecode flag -1': lambda: mx.image.imdecode(b'', flag=-1),
        'imread a missing file': lambda: mx.image.imread(os.path.join(folder, 'missing.png')),
        'imresize width 0': lambda: mx.image.imresize(src, 0, 3),
        'imresize interp 9': lambda: mx.image.imresize(src, 4, 3, interp=9),
        'imresize a numpy array': lambda: mx.image.imresize(src.asnumpy(), 4, 3),
        'imresize a 2-d array': lambda: mx.image.imresize(src[:, :, 0], 4, 3),
        'resize_short interp 11': lambda: mx.image.resize_short(src, 4, interp=11),
        'center_crop one number': lambda: mx.image.center_crop(src, 3),
        'fixed_crop an empty region': lambda: mx.image.fixed_crop(src, 9, 0, 2, 2),
        'color_normalize uint8': lambda: mx.image.color_normalize(
            src.copy(), mx.nd.array([1., 2., 3.])),
        'color_normalize a numpy mean': lambda: mx.image.color_normalize(
            src.astype('float32'), np.array([1., 2., 3.])),
    }
    for name, call in cases.items():
        _outcome(results, 'error ' + name, call)


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    outcomes = run(mxnet, sys.argv[1])
    oracle_io.save_results(outcomes)
