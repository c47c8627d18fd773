"""``mx.gluon.rnn``: recurrent cells (one step, unrolled over time) and the fused
recurrent layers RNN, LSTM and GRU."""
from .rnn_cell import *  # noqa: F401,F403
from .rnn_layer import *  # noqa: F401,F403
