"""Runs the ``gluon.data.vision.transforms`` parity cases against an MXNet-like module
``mx`` (MXNet 1.9.1 or gluonedu).

Both sides run this same code: ``oracle_vision.py`` passes the real ``mxnet``, the tests
pass ``gluonedu``. Images are drawn here from ``np.random.RandomState(seed)`` (the same
stream under NumPy 1.23 and 2). This module imports neither library.

Three kinds of cases:

* ``transform``: a deterministic transform (ToTensor, Normalize, Cast, Resize, CenterCrop,
  CropResize, Compose) built from its JSON spec and applied to a seeded image; the
  result must match exactly (or to float rounding). ``error`` cases record the
  exception type instead.
* ``colour``: a colour adjustment with a *fixed* factor. MXNet exposes those as
  ``nd.image.random_<kind>(x, a, a)`` / ``nd.image.adjust_lighting``, gluonedu as the
  functions its transforms call; each side passes an ``adjust(kind, image, alpha)``.
* ``distribution``: a random transform applied many times to one image; one number per
  draw (e.g. the brightness factor recovered from the output) is recorded, and the two
  samples must come from the same distribution.
"""
import colorsys
import random

import numpy as np

INTERPS = (0, 1, 2, 3, 4)


def _image(seed, shape, dtype):
    rng = np.random.RandomState(seed)
    if np.dtype(dtype).kind == 'f':
        return (rng.rand(*shape) * 255).astype(dtype)
    return rng.randint(0, 256, shape).astype(dtype)


def _t(case_id, spec, shape, dtype='uint8', **extra):
    case = {'id': case_id, 'spec': spec, 'shape': list(shape), 'dtype': dtype}
    case.update(extra)
    return case


def transform_cases():
    """Deterministic transforms, and their bad inputs (``expect_error``)."""
    cases = [
        _t('totensor-uint8', ['ToTensor'], (7, 9, 3)),
        _t('totensor-batch', ['ToTensor'], (2, 5, 4, 3)),
        _t('totensor-gray', ['ToTensor'], (6, 5, 1)),
        _t('totensor-float32', ['ToTensor'], (4, 5, 3), 'float32'),
        _t('totensor-float64', ['ToTensor'], (4, 5, 3), 'float64'),
        _t('totensor-float16', ['ToTensor'], (4, 5, 3), 'float16'),
        _t('totensor-int32', ['ToTensor'], (4, 5, 3), 'int32'),
        _t('normalize-scalar', ['Normalize', 0.5, 0.25], (3, 4, 5), 'float32'),
        _t('normalize-tuple', ['Normalize', [0.1, 0.2, 0.3], [0.3, 0.2, 0.1]], (3, 4, 5),
           'float32'),
        _t('normalize-batch', ['Normalize', [0.4, 0.5, 0.6], 0.2], (2, 3, 4, 5), 'float32'),
        _t('normalize-one-channel', ['Normalize', 0.13, 0.31], (1, 6, 6), 'float32'),
        _t('normalize-float64', ['Normalize', [0.1, 0.2, 0.3], 0.3], (3, 2, 2), 'float64'),
        _t('normalize-float16', ['Normalize', 0.1, 0.3], (3, 2, 2), 'float16'),
        _t('normalize-uint8', ['Normalize', 0.1, 0.3], (3, 4, 4), 'uint8'),
        _t('normalize-int32', ['Normalize', [1.5, 2.5, 3.5], 2.0], (3, 4, 4), 'int32'),
        _t('cast-float16', ['Cast', 'float16'], (4, 4, 3)),
        _t('cast-default', ['Cast'], (4, 4, 3)),
        _t('cast-int32', ['Cast', 'int32'], (4, 4, 3), 'float32'),
        _t('resize-keep-ratio', ['Resize', 6, True], (10, 14, 3)),
        _t('resize-keep-ratio-tall', ['Resize', 7, True], (14, 10, 3), 'float32'),
        _t('resize-int', ['Resize', 6], (10, 14, 3)),
        _t('resize-list', ['Resize', [9, 4]], (10, 14, 3)),
        _t('resize-batch', ['Resize', [5, 7]], (2, 10, 14, 3)),
        _t('resize-batch-float', ['Resize', [31, 17], False, 2], (3, 9, 12, 1), 'float32'),
        _t('centercrop-smaller', ['CenterCrop', 6], (10, 14, 3)),
        _t('centercrop-tuple', ['CenterCrop', [8, 5]], (10, 14, 3)),
        _t('centercrop-larger', ['CenterCrop', [20, 30]], (10, 14, 3)),
        _t('centercrop-auto-interp', ['CenterCrop', [30, 21], 9], (10, 14, 3)),
        _t('centercrop-auto-shrink', ['CenterCrop', [5, 3], 9], (10, 14, 3)),
        _t('cropresize-crop', ['CropResize', 1, 2, 5, 4], (10, 14, 3)),
        _t('cropresize-size', ['CropResize', 1, 2, 5, 4, 3, 1], (10, 14, 3)),
        _t('cropresize-size-tuple', ['CropResize', 0, 3, 9, 6, [4, 11], 2], (10, 14, 3)),
        _t('cropresize-batch', ['CropResize', 2, 1, 6, 7, [3, 3], 3], (2, 10, 14, 3)),
        _t('rotate', ['Rotate', 30], (3, 9, 13), 'float32'),
        _t('rotate-negative-zoom-in', ['Rotate', -45, True], (1, 12, 7), 'float32'),
        _t('rotate-zoom-out', ['Rotate', 170, False, True], (3, 9, 13), 'float32'),
        _t('rotate-batch', ['Rotate', 90], (2, 3, 8, 8), 'float32'),
        _t('compose', ['Compose', [['Resize', 16], ['CenterCrop', 12], ['ToTensor'],
                                   ['Normalize', [0.485, 0.456, 0.406],
                                    [0.229, 0.224, 0.225]]]], (20, 30, 3)),
    ]
    seed = 0
    # Resize over sizes, interpolations and dtypes: shrinking (2x exactly, whole and
    # fractional factors) and enlarging, with 1, 3 and 4 channels.
    for src, dst in (((12, 16), (6, 8)), ((12, 18), (4, 6)), ((19, 23), (7, 11)),
                     ((9, 7), (25, 31)), ((30, 40), (30, 25)), ((14, 36), (7, 18))):
        for interp in INTERPS:
            for dtype, channels in (('uint8', 3), ('float32', 1), ('float64', 3),
                                    ('uint8', 4), ('float32', 4)):
                seed += 1
                cases.append(_t('resize-%dx%d-%dx%d-interp%d-%s-c%d' % (src + dst + (
                    interp, dtype, channels)), ['Resize', [dst[1], dst[0]], False, interp],
                    src + (channels,), dtype, seed=seed))
    cases += [_t('error-' + name, spec, shape, dtype, expect_error=True) for name, spec, shape,
              dtype in ERROR_SPECS]
    for i, case in enumerate(cases):
        case.setdefault('seed', 1000 + i)
    return cases


ERROR_SPECS = [
    ('totensor-2d', ['ToTensor'], (4, 5), 'uint8'),
    ('totensor-5d', ['ToTensor'], (1, 2, 3, 4, 3), 'uint8'),
    ('normalize-mean-length', ['Normalize', [0.1, 0.2], 0.3], (3, 4, 4), 'float32'),
    ('normalize-std-length', ['Normalize', 0.1, [0.1, 0.2, 0.3, 0.4]], (3, 4, 4), 'float32'),
    ('normalize-four-channels', ['Normalize', 0.1, 0.3], (4, 3, 4), 'float32'),
    ('normalize-2d', ['Normalize', 0.1, 0.3], (3, 4), 'float32'),
    ('resize-2d', ['Resize', 4], (10, 14), 'uint8'),
    ('resize-zero', ['Resize', 0], (10, 14, 3), 'uint8'),
    ('resize-three-sizes', ['Resize', [1, 2, 3]], (10, 14, 3), 'uint8'),
    ('resize-float16', ['Resize', 4], (10, 14, 3), 'float16'),
    ('resize-int32', ['Resize', 4], (10, 14, 3), 'int32'),
    ('resize-bad-interp', ['Resize', 4, False, 7], (10, 14, 3), 'uint8'),
    ('centercrop-2d', ['CenterCrop', 4], (10, 14), 'uint8'),
    ('centercrop-bad-interp', ['CenterCrop', [20, 30], 7], (10, 14, 3), 'uint8'),
    ('cropresize-x-out', ['CropResize', 10, 2, 5, 4], (10, 14, 3), 'uint8'),
    ('cropresize-y-out', ['CropResize', 0, 8, 5, 4], (10, 14, 3), 'uint8'),
    ('cropresize-2d', ['CropResize', 0, 0, 2, 2], (10, 14), 'uint8'),
    ('randomresizedcrop-batch', ['RandomResizedCrop', 5], (2, 10, 14, 3), 'uint8'),
    ('flip-batch', ['RandomFlipLeftRight'], (2, 10, 14, 3), 'uint8'),
    ('flip-two-channels', ['RandomFlipTopBottom'], (10, 14, 2), 'uint8'),
    ('brightness-batch', ['RandomBrightness', 0.5], (2, 10, 14, 3), 'uint8'),
    ('contrast-two-channels', ['RandomContrast', 0.5], (10, 14, 2), 'uint8'),
    ('hue-four-channels', ['RandomHue', 0.5], (10, 14, 4), 'uint8'),
    ('lighting-2d', ['RandomLighting', 0.1], (10, 14), 'uint8'),
    ('jitter-batch', ['RandomColorJitter', 0.1, 0.1, 0.1, 0.1], (2, 10, 14, 3), 'uint8'),
    ('rotate-float64', ['Rotate', 10], (3, 4, 4), 'float64'),
    ('rotate-uint8', ['RandomRotation', [0, 10]], (4, 4, 3), 'uint8'),
    ('rotate-two-zooms', ['Rotate', 10, True, True], (3, 4, 4), 'float32'),
    ('rotate-2d', ['Rotate', 10], (4, 4), 'float32'),
    ('rotation-unordered-limits', ['RandomRotation', [10, -10]], (3, 4, 4), 'float32'),
    ('rotation-probability', ['RandomRotation', [-10, 10], False, False, 1.5], (3, 4, 4),
     'float32'),
]


def build(transforms, spec):
    """The transform of a JSON spec ``[class name, *args]`` (Compose: a list of specs)."""
    name, args = spec[0], spec[1:]
    if name == 'Compose':
        return transforms.Compose([build(transforms, s) for s in args[0]])
    return getattr(transforms, name)(*args)


def run_transform_case(mx, case):
    """``{'out': result}`` (or ``{'error': type name}``) of one transform case."""
    image = mx.nd.array(_image(case['seed'], case['shape'], case['dtype']), dtype=case['dtype'])
    try:
        out = build(mx.gluon.data.vision.transforms, case['spec'])(image)
        result = {'out': out.asnumpy(), 'dtype': np.array(np.dtype(out.dtype).name)}
    except Exception as exc:  # the type is the result
        return {'error': np.array(type(exc).__name__)}
    return result


def colour_cases():
    """Fixed-factor colour adjustments: uint8, float32 and one-channel images."""
    cases = []
    for kind, alphas in (('brightness', (0.3, 1.0, 1.7)), ('contrast', (0.2, 1.4)),
                         ('hue', (0.05, 0.5, 0.93, 1.6)),
                         ('lighting', ([0.1, -0.2, 0.3], [-1.5, 0.7, 2.0]))):
        for dtype, shape in (('uint8', (9, 11, 3)), ('float32', (6, 5, 3)),
                             ('uint8', (5, 4, 1)), ('float64', (4, 4, 3))):
            if kind in ('hue', 'lighting') and shape[2] == 1:
                continue            # MXNet 1.9.1 leaves the output unwritten (divergences.md)
            for alpha in alphas:
                cases.append({'id': '%s-%s-c%d-%s' % (kind, dtype, shape[2], alpha),
                              'kind': kind, 'alpha': alpha, 'shape': list(shape),
                              'dtype': dtype, 'seed': len(cases) + 7})
    cases.append({'id': 'contrast-large-uint8', 'kind': 'contrast', 'alpha': 0.6,
                  'shape': [97, 131, 3], 'dtype': 'uint8', 'seed': 99})
    return cases


def run_colour_case(adjust, case):
    """``{'out': adjust(kind, image, alpha)}``; ``adjust`` is the side's own function."""
    image = _image(case['seed'], case['shape'], case['dtype'])
    if case['dtype'] == 'float32' and case['kind'] != 'hue':
        image = image / 255                  # tensors in [0, 1]: no clipping involved
    return {'out': adjust(case['kind'], image.astype(case['dtype']), case['alpha'])}


def _brightness_factor(out, image):
    return float(out.astype(np.float64).sum() / image.astype(np.float64).sum())


def _hue_of_first_pixel(out, image):
    return colorsys.rgb_to_hls(*(out[0, 0].astype(np.float64) / 255))[0]


DISTRIBUTIONS = {
    # id: (transform spec, image kind, statistic of (out, image))
    'flip-left-right': (['RandomFlipLeftRight'], 'ramp', lambda o, i: float(o[0, 0, 0])),
    'flip-top-bottom': (['RandomFlipTopBottom'], 'ramp', lambda o, i: float(o[0, 0, 0])),
    'brightness': (['RandomBrightness', 0.4], 'float', _brightness_factor),
    'contrast': (['RandomContrast', 0.6], 'float', lambda o, i: float(o.std() / i.std())),
    'hue': (['RandomHue', 0.3], 'red', _hue_of_first_pixel),
    'lighting': (['RandomLighting', 0.1], 'float', lambda o, i: float((o - i).mean())),
    'jitter-brightness': (['RandomColorJitter', 0.5], 'float', _brightness_factor),
    'resized-crop-area': (['RandomResizedCrop', [4, 4], [0.2, 1.0]], 'ramp',
                          lambda o, i: float(o[-1, -1, 0]) - float(o[0, 0, 0])),
    'rotation': (['RandomRotation', [-40, 40]], 'tensor', lambda o, i: float(o.mean())),
    'rotation-probability': (['RandomRotation', [10, 40], False, True, 0.4], 'tensor',
                             lambda o, i: float(o.mean())),
    'apply': (['RandomApply', ['Cast', 'float64'], 0.3], 'ramp',
              lambda o, i: float(np.dtype(o.dtype).itemsize)),
}


def _distribution_image(kind):
    if kind == 'ramp':
        return (np.arange(16 * 20 * 3) % 251).reshape(16, 20, 3).astype('uint8')
    if kind == 'tensor':
        return np.ones((1, 9, 9), 'float32')
    if kind == 'red':
        return np.tile(np.array([200, 30, 30], 'uint8'), (2, 2, 1))
    return np.random.RandomState(5).rand(8, 8, 3).astype('float32')


def distribution_cases():
    return [{'id': name, 'draws': 400} for name in sorted(DISTRIBUTIONS)]


def run_distribution_case(mx, case):
    """``{'stat': one statistic per draw}`` of a random transform applied ``draws`` times."""
    spec, kind, statistic = DISTRIBUTIONS[case['id']]
    mx.random.seed(case['draws'])
    random.seed(case['draws'])          # MXNet draws some augmentations from these two
    np.random.seed(case['draws'])
    if spec[0] == 'RandomApply':
        inner = build(mx.gluon.data.vision.transforms, spec[1])
        transform = mx.gluon.data.vision.transforms.RandomApply(inner, spec[2])
    else:
        transform = build(mx.gluon.data.vision.transforms, spec)
    image = _distribution_image(kind)
    x = mx.nd.array(image, dtype=image.dtype)
    stats = [statistic(transform(x).asnumpy(), image) for _ in range(case['draws'])]
    return {'stat': np.array(stats)}
