"""gluon.data.vision.transforms: behaviour that parity with MXNet cannot show — seeding,
parameter ranges, composition with datasets, autograd, and the documented divergences
(docs/divergences.md). Pixel parity is in tests/parity/vision/test_vision_parity.py."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon.data.vision import transforms as T

RNG = np.random.RandomState(0)
IMAGE = nd.array(RNG.randint(0, 256, (12, 16, 3)), dtype='uint8')


def test_pipeline_on_a_dataset_gives_normalised_tensors():
    images = RNG.randint(0, 256, (6, 20, 24, 3)).astype(np.uint8)
    dataset = gluon.data.ArrayDataset(nd.array(images, dtype='uint8'), np.arange(6))
    pipeline = T.Compose([T.Resize(16), T.CenterCrop(12), T.ToTensor(),
                          T.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))])
    loader = gluon.data.DataLoader(dataset.transform_first(pipeline), batch_size=4)
    data, label = next(iter(loader))
    assert data.shape == (4, 3, 12, 12) and data.dtype == np.float32
    assert label.asnumpy().tolist() == [0, 1, 2, 3]           # labels untouched
    assert -2.0 <= float(data.min().asscalar()) and float(data.max().asscalar()) <= 2.0


def test_compose_groups_hybrid_blocks_as_mxnet():
    pipeline = T.Compose([T.Resize(8), T.CenterCrop(6), T.ToTensor(), T.Normalize(0.5, 0.2),
                          T.RandomResizedCrop(4), T.Cast('float16')])
    kinds = [type(pipeline[i]).__name__ for i in range(len(pipeline))]
    assert kinds == ['Resize', 'CenterCrop', 'HybridSequential', 'RandomResizedCrop', 'Cast']


def test_to_tensor_and_normalize():
    tensor = T.ToTensor()(IMAGE)
    np.testing.assert_array_equal(tensor.asnumpy(),
                                  IMAGE.asnumpy().transpose(2, 0, 1).astype(np.float32) / 255)
    out = T.Normalize((0.1, 0.2, 0.3), (0.5, 0.25, 2.0))(tensor).asnumpy()
    mean = np.array([0.1, 0.2, 0.3], np.float32).reshape(3, 1, 1)
    std = np.array([0.5, 0.25, 2.0], np.float32).reshape(3, 1, 1)
    np.testing.assert_array_equal(out, (tensor.asnumpy() - mean) / std)


def test_normalize_is_recorded_by_autograd():
    x = nd.array(RNG.rand(3, 2, 2))
    x.attach_grad()
    with autograd.record():
        y = T.Normalize(0.5, (0.5, 0.25, 2.0))(x)
    y.backward()
    expected = np.broadcast_to(np.array([2.0, 4.0, 0.5], np.float32).reshape(3, 1, 1), x.shape)
    np.testing.assert_allclose(x.grad.asnumpy(), expected)


def test_random_transforms_are_reproducible_with_mx_random_seed():
    jitter = T.Compose([T.RandomResizedCrop(8), T.RandomFlipLeftRight(),
                        T.RandomColorJitter(0.4, 0.4, 0.4, 0.1), T.RandomLighting(0.1)])
    mx.random.seed(7)
    first = [jitter(IMAGE).asnumpy() for _ in range(3)]
    mx.random.seed(7)
    second = [jitter(IMAGE).asnumpy() for _ in range(3)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[1])


@pytest.mark.parametrize('transform, low, high', [
    (T.RandomBrightness(0.3), 0.7, 1.3),
    (T.RandomBrightness(2.0), 0.0, 3.0),            # the lower end is clipped at 0
    (T.RandomColorJitter(brightness=0.5), 0.5, 1.5),
])
def test_brightness_factor_range(transform, low, high):
    mx.random.seed(1)
    image = nd.array(RNG.rand(4, 4, 3))
    factors = [float((transform(image) / image).mean().asscalar()) for _ in range(300)]
    assert low <= min(factors) < low + 0.05 * (high - low)
    assert high - 0.05 * (high - low) < max(factors) <= high


def test_flips_happen_half_of_the_time():
    mx.random.seed(3)
    flipped = sum(np.array_equal(T.RandomFlipLeftRight()(IMAGE).asnumpy(),
                                 IMAGE.asnumpy()[:, ::-1]) for _ in range(400))
    assert 160 < flipped < 240


def test_random_resized_crop_sizes_and_fallback():
    mx.random.seed(0)
    out = T.RandomResizedCrop((10, 6))(IMAGE)
    assert out.shape == (6, 10, 3) and out.dtype == np.uint8
    # An aspect ratio that can never fit falls back to the center crop.
    never = T.RandomResizedCrop(4, scale=(0.9, 1.0), ratio=(50.0, 60.0))
    np.testing.assert_array_equal(never(IMAGE).asnumpy(), T.CenterCrop(4)(IMAGE).asnumpy())


def test_random_apply_probability():
    mx.random.seed(2)
    applied = sum(T.RandomApply(T.Cast('float64'), p=0.25)(IMAGE).dtype == np.float64
                  for _ in range(400))
    assert 70 < applied < 130


def test_center_crop_enlarges_small_images():
    out = T.CenterCrop((40, 30))(IMAGE)
    assert out.shape == (30, 40, 3)


# ------------------------------------------------------------------ divergences
def test_saturation_blends_with_the_luma_gray():
    """MXNet 1.9.1 weighs only the blue channel into its gray (docs/divergences.md)."""
    from gluonedu.gluon.data.vision import _image
    pixels = IMAGE.asnumpy().astype(np.float32)
    gray = pixels[..., 0] * np.float32(0.299) + pixels[..., 1] * np.float32(0.587) \
        + pixels[..., 2] * np.float32(0.114)
    for alpha in (0.0, 0.5, 1.0, 1.6):
        out = _image.adjust(IMAGE, [('saturation', alpha)], 'test').asnumpy()
        expected = gray[..., None] * np.float32(1 - alpha) + pixels * np.float32(alpha)
        np.testing.assert_array_equal(out, np.clip(expected, 0, 255).astype(np.uint8))
    gray_image = _image.adjust(IMAGE, [('saturation', 0.0)], 'test').asnumpy()
    assert (gray_image.max(axis=2) - gray_image.min(axis=2)).max() <= 1


@pytest.mark.parametrize('transform', [T.RandomHue(0.5), T.RandomLighting(1.0),
                                       T.RandomSaturation(0.5), T.RandomColorJitter()])
def test_colour_free_cases_leave_the_image_unchanged(transform):
    """MXNet 1.9.1 returns an unwritten (zero) image here (docs/divergences.md)."""
    gray = nd.array(RNG.randint(0, 256, (5, 6, 1)), dtype='uint8')
    image = IMAGE if isinstance(transform, T.RandomColorJitter) else gray
    np.testing.assert_array_equal(transform(image).asnumpy(), image.asnumpy())


def test_crop_resize_defaults_to_bilinear():
    """MXNet 1.9.1 fails on CropResize's default interpolation (docs/divergences.md)."""
    out = T.CropResize(1, 2, 8, 6, size=4)(IMAGE)
    expected = T.Resize(4, interpolation=1)(IMAGE[2:8, 1:9])
    np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())


def test_unsupported_resize_inputs_raise_mxnet_error():
    """MXNet 1.9.1 resizes int64 images into garbage; interpolation 5 is not provided."""
    with pytest.raises(mx.MXNetError, match='dtype'):
        T.Resize(4)(IMAGE.astype('int64'))
    with pytest.raises(mx.MXNetError, match='interpolation'):
        T.Resize(4, interpolation=5)(IMAGE)


def test_rotate_a_quarter_turn_is_rot90():
    tensor = RNG.rand(2, 5, 5).astype(np.float32)
    out = T.Rotate(90)(nd.array(tensor)).asnumpy()
    np.testing.assert_allclose(out, np.rot90(tensor, 1, axes=(1, 2)), atol=1e-6)
    with pytest.raises(TypeError, match='float32'):
        T.Rotate(90)(IMAGE)                     # pixels: call it after ToTensor


def test_random_rotation_zooms_and_probability():
    ones = nd.ones((1, 9, 9))
    mx.random.seed(4)
    zoomed_in = T.RandomRotation((20, 40), zoom_in=True)(ones).asnumpy()
    assert zoomed_in.min() > 0.99                # no empty corner
    corners = T.RandomRotation((20, 40))(ones).asnumpy()
    assert corners[0, 0, 0] == 0                # an empty corner
    kept = sum(T.RandomRotation((20, 40), rotate_with_proba=0.25)(ones) is ones
               for _ in range(200))
    assert 120 < kept < 180


@pytest.mark.parametrize('transform', [
    T.ToTensor(), T.Normalize(0.5, 0.25), T.Resize(4),
    T.RandomFlipLeftRight(), T.RandomBrightness(0.1)])
def test_image_transforms_say_they_cannot_be_hybridized(transform):
    transform.hybridize()
    with pytest.raises(NotImplementedError, match='NDArrays only'):
        transform(mx.nd.ones((4, 4, 3)))
