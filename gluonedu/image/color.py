"""Pixel-value operations on (H, W, C) images: ``mx.image.color_normalize``."""
import numbers

from ..ndarray import NDArray

__all__ = ['color_normalize']


def color_normalize(src, mean, std=None):
    """``(src − mean) / std``, per channel, computed in place in ``src``.

    Parameters
    ----------
    src : NDArray
        An image (height, width, channels) of floats; it is overwritten, as in MXNet
        (copy it first to keep it). A uint8 image raises MXNetError: convert it with
        ``astype('float32')``.
    mean, std : NDArray or float, optional
        One value per channel (shape (channels,)) or one number; None skips the step.

    Returns
    -------
    NDArray
        ``src``, normalized.
    """
    for name, value in (('mean', mean), ('std', std)):
        if value is not None and not isinstance(value, (NDArray, numbers.Number)):
            raise TypeError('color_normalize: %s must be an NDArray or a number, got %s; '
                            'wrap it with mx.nd.array(...)' % (name, type(value).__name__))
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src
