"""Reads the vision datasets from one folder of test-written files, with an MXNet-like module
``mx`` (MXNet 1.9.1 or gluonedu), for ``test_vision_datasets_parity.py``.

The test writes small MNIST, Fashion-MNIST, CIFAR-10, CIFAR-100 and image-folder data
in their original formats (``vision_files``); both sides read them here. (MXNet would
replace files whose SHA-1 sum is not that of its own copies by downloading them;
``oracle_vision_datasets.py`` turns that check and the download off.)

Result of :func:`read_dataset`: the length, and for a few items the image, its dtype and
type, the label and its type. The :data:`DAMAGED` MNIST folders hold files MXNet's reader
refuses too; :func:`read_damaged` gives the type of the exception each raises.
"""
import numpy as np

DATASETS = {
    # id: (class name, subfolder of the data folder, keyword arguments)
    'mnist-train': ('MNIST', 'mnist', {'train': True}),
    'mnist-test': ('MNIST', 'mnist', {'train': False}),
    'fashion-mnist-train': ('FashionMNIST', 'fashion-mnist', {}),
    'cifar10-train': ('CIFAR10', 'cifar10', {'train': True}),
    'cifar10-test': ('CIFAR10', 'cifar10', {'train': False}),
    'cifar100-coarse': ('CIFAR100', 'cifar100', {}),
    'cifar100-fine-test': ('CIFAR100', 'cifar100', {'fine_label': True, 'train': False}),
    'folder-colour': ('ImageFolderDataset', 'folder', {'flag': 1}),
    'folder-gray': ('ImageFolderDataset', 'folder', {'flag': 0}),
}
#: MNIST folders with a damaged images file (subfolder of the data folder), by case id:
#: its pixels cut short, one image more than announced, one label fewer than images.
DAMAGED = {'mnist-images-short': 'mnist-short', 'mnist-images-long': 'mnist-long',
           'mnist-labels-fewer': 'mnist-fewer'}


def read_dataset(mx, case_id, data_root):
    name, folder, kwargs = DATASETS[case_id]
    dataset = getattr(mx.gluon.data.vision, name)(data_root + '/' + folder, **kwargs)
    out = {'len': np.array(len(dataset))}
    for i in sorted({0, 1, len(dataset) - 1}):
        image, label = dataset[i]
        out['%d/image' % i] = image.asnumpy()
        out['%d/image_dtype' % i] = np.array(np.dtype(image.dtype).name)
        out['%d/image_type' % i] = np.array(type(image).__name__)
        out['%d/label' % i] = np.array(label)
        out['%d/label_type' % i] = np.array(type(label).__name__)
    if hasattr(dataset, 'synsets'):
        out['synsets'] = np.array(dataset.synsets)
    return out


def read_damaged(mx, case_id, data_root):
    """``{'error': the name of the exception type}`` MNIST raises on a DAMAGED folder."""
    try:
        mx.gluon.data.vision.MNIST(data_root + '/' + DAMAGED[case_id])
    except Exception as exc:  # the outcome compared: which type
        return {'error': np.array(type(exc).__name__)}
    return {'error': np.array('none')}
