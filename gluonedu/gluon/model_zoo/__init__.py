"""``mx.gluon.model_zoo``: the architectures of MXNet's model zoo, built from gluon.nn.

Pretrained weights are never downloaded: ``pretrained=True`` loads them from MXNet's
model store layout on disk (:mod:`.model_store`) or says which file to put where.
"""
from . import model_store, vision

__all__ = ['model_store', 'vision']
