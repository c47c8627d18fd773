"""The loss of sequence labelling without alignments: :class:`CTCLoss`."""
from .base import Loss, apply_weighting

__all__ = ['CTCLoss']


class CTCLoss(Loss):
    """Connectionist temporal classification loss (Graves et al., 2006), through the
    ``CTCLoss`` operator with the blank as the *last* class.

    ``pred`` holds unnormalised scores over ``alphabet + 1`` classes; ``label`` holds
    class indices in ``[0, alphabet)``, padded with -1 (or cut by ``label_lengths``).
    The loss of each sequence is ``−log p(label | pred)`` summed over all alignments.

    Parameters
    ----------
    layout : {'NTC', 'TNC'}, default 'NTC'
        The axes of ``pred``: batch, time, classes.
    label_layout : {'NT', 'TN'}, default 'NT'
        The axes of ``label``.
    weight : float or None, default None

    Notes
    -----
    Inputs: ``pred``, ``label``, optional ``pred_lengths`` and ``label_lengths`` (one per
    sequence), ``sample_weight``. Output: shape ``(batch,)``.
    """

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        if layout not in ('NTC', 'TNC'):
            raise AssertionError("CTCLoss: layout must be 'NTC' or 'TNC', got %r" % (layout,))
        if label_layout not in ('NT', 'TN'):
            raise AssertionError("CTCLoss: label_layout must be 'NT' or 'TN', got %r"
                                 % (label_layout,))
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find('N'), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label='last')
        return apply_weighting(F, loss, self._weight, sample_weight)
