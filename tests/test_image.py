"""mx.image: decoding files, resizing, cropping and normalizing (values against MXNet
1.9.1 are in tests/parity/vision/test_image_parity.py)."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import MXNetError

PIL = pytest.importorskip('PIL.Image')


@pytest.fixture
def pixels():
    return np.random.RandomState(0).randint(0, 256, (6, 8, 3)).astype(np.uint8)


@pytest.fixture
def png(tmp_path, pixels):
    path = tmp_path / 'image.png'
    PIL.fromarray(pixels).save(path)
    return path


def test_a_png_decodes_to_its_pixels_in_rgb_or_bgr(png, pixels):
    image = mx.image.imread(str(png))
    assert image.dtype == np.uint8 and image.shape == (6, 8, 3)
    np.testing.assert_array_equal(image.asnumpy(), pixels)
    bgr = mx.image.imdecode(png.read_bytes(), to_rgb=False)
    np.testing.assert_array_equal(bgr.asnumpy(), pixels[:, :, ::-1])
    assert mx.image.imdecode(png.read_bytes(), flag=0).shape == (6, 8, 1)
    assert mx.img.imread is mx.image.imread


def test_a_damaged_or_missing_file_raises_mxnet_error_naming_it(tmp_path, png):
    broken = tmp_path / 'broken.png'
    broken.write_bytes(png.read_bytes()[:40])
    with pytest.raises(MXNetError, match='broken.png'):
        mx.image.imread(str(broken))
    with pytest.raises(MXNetError, match='absent.jpg'):
        mx.image.imread(str(tmp_path / 'absent.jpg'))
    with pytest.raises(MXNetError, match='not a PNG, JPEG, BMP, TIFF image'):
        mx.image.imdecode(b'hello')


def test_out_receives_the_pixels_and_must_fit(png):
    out = mx.nd.zeros((6, 8, 3), dtype='uint8')
    assert mx.image.imread(str(png), out=out) is out
    assert out.asnumpy().any()
    with pytest.raises(MXNetError, match='out has shape'):
        mx.image.imread(str(png), out=mx.nd.zeros((6, 8, 1), dtype='uint8'))


def test_nearest_enlarging_repeats_each_pixel(pixels):
    big = mx.image.imresize(mx.nd.array(pixels, dtype='uint8'), 16, 12, interp=0)
    np.testing.assert_array_equal(big.asnumpy(), pixels.repeat(2, axis=0).repeat(2, axis=1))


def test_bilinear_halving_is_the_rounded_mean_of_each_2x2_block(pixels):
    half = mx.image.imresize(mx.nd.array(pixels, dtype='uint8'), 4, 3, interp=1)
    blocks = pixels.astype(np.int64).reshape(3, 2, 4, 2, 3).sum(axis=(1, 3))
    np.testing.assert_array_equal(half.asnumpy(), (blocks + 2) >> 2)


def test_resize_short_keeps_the_aspect_ratio(pixels):
    src = mx.nd.array(pixels, dtype='uint8')
    assert mx.image.resize_short(src, 3).shape == (3, 4, 3)
    assert mx.image.resize_short(src, 9).shape == (9, 12, 3)


def test_center_crop_takes_the_middle_and_enlarges_what_is_too_small(pixels):
    src = mx.nd.array(pixels, dtype='uint8')
    out, rect = mx.image.center_crop(src, (4, 2))
    assert rect == (2, 2, 4, 2)
    np.testing.assert_array_equal(out.asnumpy(), pixels[2:4, 2:6])
    out, rect = mx.image.center_crop(src, (16, 4))
    assert rect == (0, 2, 8, 2) and out.shape == (4, 16, 3)


def test_random_crops_follow_mx_random_seed(pixels):
    src = mx.nd.array(pixels, dtype='uint8')
    mx.random.seed(3)
    first = [mx.image.random_crop(src, (3, 3))[1] for _ in range(5)]
    mx.random.seed(3)
    assert [mx.image.random_crop(src, (3, 3))[1] for _ in range(5)] == first
    assert len(set(first)) > 1


def test_color_normalize_works_in_place(pixels):
    src = mx.nd.array(pixels, dtype='float32')
    out = mx.image.color_normalize(src, mx.nd.array([1., 2., 3.]), mx.nd.array([2., 2., 2.]))
    assert out is src
    np.testing.assert_allclose(out.asnumpy(), (pixels - np.array([1., 2., 3.])) / 2)


def test_wrong_interpolations_and_sizes_say_what_to_use(pixels):
    src = mx.nd.array(pixels, dtype='uint8')
    with pytest.raises(MXNetError, match='use 0 .nearest'):
        mx.image.imresize(src, 4, 3, interp=9)
    with pytest.raises(ValueError, match='9 .by the direction'):
        mx.image.resize_short(src, 4, interp=12)
    with pytest.raises(MXNetError, match='w must be at least 1'):
        mx.image.imresize(src, 0, 3)


@pytest.fixture
def image_folder(tmp_path):
    """Five PNGs of different sizes and a .lst file labelling them 0, 1, 2, 0, 1."""
    rng = np.random.RandomState(1)
    lines = []
    for key in range(5):
        pixels = rng.randint(0, 256, (10 + key, 12 - key, 3)).astype(np.uint8)
        PIL.fromarray(pixels).save(tmp_path / ('%d.png' % key))
        lines.append('%d\t%d\t%d.png\n' % (key, key % 3, key))
    (tmp_path / 'images.lst').write_text(''.join(lines))
    return tmp_path


def test_image_iter_pads_the_last_batch_from_the_start(image_folder):
    it = mx.image.ImageIter(2, (3, 8, 8), path_imglist=str(image_folder / 'images.lst'),
                            path_root=str(image_folder))
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 1]
    assert [b.label[0].asnumpy().tolist() for b in batches] == [[0, 1], [2, 0], [1, 0]]
    assert batches[0].data[0].shape == (2, 3, 8, 8) and batches[0].data[0].dtype == np.float32
    it.reset()
    assert len(list(it)) == 3


def test_image_iter_shuffles_as_mx_random_seed_says(image_folder):
    def labels():
        mx.random.seed(5)
        it = mx.image.ImageIter(1, (3, 8, 8), path_imglist=str(image_folder / 'images.lst'),
                                path_root=str(image_folder), shuffle=True)
        return [int(b.label[0].asscalar()) for b in it]
    assert labels() == labels()
    assert sorted(labels()) == [0, 0, 1, 1, 2]


def test_image_iter_and_create_augmenter_refuse_what_they_cannot_do(image_folder):
    with pytest.raises(NotImplementedError, match='path_imglist'):
        mx.image.ImageIter(2, (3, 8, 8), path_imgrec=str(image_folder / 'data.rec'))
    with pytest.raises(AssertionError, match='rand_crop'):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)


def test_create_augmenter_lists_the_steps_in_order():
    augs = mx.image.CreateAugmenter((3, 8, 8), resize=10, rand_mirror=True, mean=True)
    assert [type(a).__name__ for a in augs] == ['ResizeAug', 'CenterCropAug',
                                                'HorizontalFlipAug', 'CastAug',
                                                'ColorNormalizeAug']
    assert augs[1].dumps() == '["centercropaug", {"size": [8, 8], "interp": 2}]'
