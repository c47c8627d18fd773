"""``mx.image`` gives MXNet 1.9.1's pixels and raises its exception types.

image_driver.run decodes the files :func:`write_images` makes (PNG of six modes, four
JPEGs, BMP, TIFF and three undecodable files), resizes random images up and down with
every interpolation, crops, normalizes, reads the files in batches with ImageIter (three
augmenter lists), and calls each function with a mistake; here the results of gluonedu
and MXNet are compared exactly.
"""
import numpy as np
import pytest

import image_driver as driver
from harness import run_oracle


def write_images(folder):
    """The files of image_driver.DECODED_FILES and UNDECODABLE_FILES, random pixels."""
    from PIL import Image
    rng = np.random.RandomState(7)
    rgb = rng.randint(0, 256, (9, 13, 3)).astype(np.uint8)
    gray = rng.randint(0, 256, (11, 6)).astype(np.uint8)
    rgba = rng.randint(0, 256, (6, 5, 4)).astype(np.uint8)
    Image.fromarray(rgb).save(folder / 'rgb.png')
    Image.fromarray(rgba).save(folder / 'rgba.png')
    Image.fromarray(gray).save(folder / 'gray.png')
    Image.fromarray(rgb).convert('P').save(folder / 'palette.png')
    Image.fromarray(gray.astype(np.uint16) * 257 + 40).save(folder / 'gray16.png')
    Image.fromarray(gray).convert('LA').save(folder / 'gray_alpha.png')
    Image.fromarray(rgb).save(folder / 'rgb.jpg', quality=90)
    Image.fromarray(gray).save(folder / 'gray.jpg')
    Image.fromarray(rgb).save(folder / 'progressive.jpg', progressive=True)
    Image.fromarray(rgb).convert('CMYK').save(folder / 'cmyk.jpg')
    Image.fromarray(rgb).save(folder / 'rgb.bmp')
    Image.fromarray(rgb).save(folder / 'rgb.tif')
    Image.fromarray(rgb).save(folder / 'rgb.gif')
    png = (folder / 'rgb.png').read_bytes()
    (folder / 'truncated.png').write_bytes(png[:len(png) // 2])
    (folder / 'junk.png').write_bytes(b'\x89PNG\r\n\x1a\n but no image follows')
    for name, lines in driver.IMAGE_LISTS.items():
        (folder / name).write_text(''.join('%d\t%d\t%s\n' % line for line in lines))


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp('images')
    write_images(path)
    return path


@pytest.fixture(scope='module')
def outcomes(folder, tmp_path_factory):
    """(MXNet's results, gluonedu's), by name."""
    import gluonedu
    theirs, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_image'), folder)
    return theirs, driver.run(gluonedu, str(folder))


def test_every_result_is_mxnets(outcomes):
    theirs, ours = outcomes
    assert sorted(ours) == sorted(theirs)
    differ = [name for name in theirs
              if ours[name].dtype != theirs[name].dtype
              or ours[name].shape != theirs[name].shape
              or not np.array_equal(ours[name], theirs[name])]
    assert differ == [], 'differ from MXNet 1.9.1: %s' % differ


def test_the_comparison_covers_decoding_resizing_and_errors(outcomes):
    theirs, _ = outcomes
    decoded = [n for n in theirs if n.startswith('imread ') and theirs[n].dtype == np.uint8]
    assert len(decoded) == 3 * len(driver.DECODED_FILES)
    resized = [n for n in theirs if n.startswith('imresize ') and theirs[n].ndim == 3]
    assert len(resized) == 5 * sum(map(len, driver.RESIZES.values())) + 3 * len(driver.RESIZES)
    raised = [n for n in theirs if n.startswith('error ')
              and str(theirs[n]).startswith('raised ')]
    assert len(raised) == len([n for n in theirs if n.startswith('error ')])
    batches = [n for n in theirs if n.startswith('ImageIter') and n.endswith(' data')]
    assert len(batches) == 3
    crops = [n for n in theirs if n.startswith('random_crop')]
    assert crops and all(theirs[n].all() for n in crops)
