"""MXNet 1.x Gluon tutorial patterns, run unchanged with ``import gluonedu as mx``.

Each test is a small, realistic script in the style of MXNet's own tutorials (the names
and calls they use), on data the test makes. A section per pattern; each section
imports what it needs, so sections stay independent.
"""
import numpy as np


# ---------------------------------------------------------------------- sparse
# After MXNet's "Sparse NDArrays with Gluon" and "RowSparseNDArray" tutorials and its
# contrib SparseEmbedding: CSR features, row_sparse weights pulled with
# row_sparse_data() inside autograd.record(), lazy updates through a kvstore.

def test_sparse_embedding_trained_with_row_sparse_data_inside_record():
    import gluonedu as mx
    from gluonedu import autograd, gluon, nd

    class SparseEmbedding(gluon.Block):
        """An embedding whose table is row_sparse: each batch pulls only its rows."""

        def __init__(self, input_dim, output_dim, **kwargs):
            super(SparseEmbedding, self).__init__(**kwargs)
            self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim,
                            'dtype': 'float32', 'sparse_grad': True}
            with self.name_scope():
                self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                              init=mx.init.Normal(0.1),
                                              stype='row_sparse', grad_stype='row_sparse')

        def forward(self, x):
            weight = self.weight.row_sparse_data(x)
            return nd.Embedding(x, weight, name='fwd', **self._kwargs)

    mx.random.seed(42)
    np.random.seed(42)
    vocab, dim = 50, 4
    targets = nd.array(np.random.randn(vocab, dim))     # the embedding each word should learn
    ctx = [mx.cpu(0), mx.cpu(1)]
    net = SparseEmbedding(vocab, dim)
    net.initialize(ctx=ctx)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1},
                            kvstore='device')
    loss_fn = gluon.loss.L2Loss()

    def epoch_loss():
        ids = nd.arange(vocab)
        with autograd.predict_mode():
            return loss_fn(net(ids), targets).mean().asscalar()

    before = epoch_loss()
    first_table = net.weight.row_sparse_data(nd.arange(vocab)).asnumpy()
    for step in range(60):
        words = np.random.randint(0, vocab, size=(2, 8))
        losses = []
        with autograd.record():
            for i, c in enumerate(ctx):
                ids = nd.array(words[i], ctx=c)
                losses.append(loss_fn(net(ids), targets.as_in_context(c)[ids]))
        autograd.backward(losses)
        assert net.weight.grad(ctx[0]).stype == 'row_sparse'
        trainer.step(16)
        if step == 0:   # lazy Adam: the rows no device looked up did not move
            table = net.weight.row_sparse_data(nd.arange(vocab)).asnumpy()
            untouched = sorted(set(range(vocab)) - set(words.ravel().tolist()))
            np.testing.assert_array_equal(table[untouched], first_table[untouched])
            assert not np.allclose(table[words[0]], first_table[words[0]])
    copies = [w.asnumpy() for w in net.weight.list_row_sparse_data(nd.arange(vocab))]
    np.testing.assert_array_equal(copies[0], copies[1])
    assert epoch_loss() < 0.2 * before


def test_sparse_linear_model_on_csr_features():
    import gluonedu as mx
    import numpy as np

    num_samples, num_features = 400, 10000
    np.random.seed(0)
    mx.random.seed(0)
    data = mx.test_utils.rand_ndarray((num_samples, num_features), stype='csr', density=0.002)
    label = data.sum(axis=1) > data.sum(axis=1).mean()

    def get_nbytes(array):
        # (The tutorial writes np.dtype(a), which NumPy 2 no longer accepts for an
        # object whose .dtype is a type, as MXNet's NDArray.dtype is.)
        fn = lambda a: a.size * np.dtype(a.dtype).itemsize  # noqa: E731
        if isinstance(array, mx.ndarray.sparse.CSRNDArray):
            return fn(array.data) + fn(array.indices) + fn(array.indptr)
        elif isinstance(array, mx.ndarray.sparse.RowSparseNDArray):
            return fn(array.data) + fn(array.indices)
        return fn(array)

    assert get_nbytes(data) < get_nbytes(data.tostype('default')) / 100

    class FullyConnectedSparse(mx.gluon.HybridBlock):
        def __init__(self, in_units, units, weight_grad_stype='default'):
            super(FullyConnectedSparse, self).__init__()
            with self.name_scope():
                self._units = units
                self.weight = self.params.get('weight', shape=(in_units, units),
                                              init=None, allow_deferred_init=True,
                                              dtype='float32', stype='default',
                                              grad_stype=weight_grad_stype)
                self.bias = self.params.get('bias', shape=(units),
                                            init='zeros', allow_deferred_init=True,
                                            dtype='float32', stype='default',
                                            grad_stype='default')

        def hybrid_forward(self, F, x, weight, bias):
            return F.sparse.dot(x, weight) + bias

    net = mx.gluon.nn.Sequential()
    net.add(FullyConnectedSparse(in_units=num_features, units=8,
                                 weight_grad_stype='row_sparse'),
            mx.gluon.nn.Activation('sigmoid'),
            mx.gluon.nn.Dense(in_units=8, units=1))
    net.initialize(mx.init.Xavier())
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 1.0})
    loss_fn = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss()

    def accuracy():
        prediction = net(data).reshape(-1) > 0
        return (prediction == label).mean().asscalar()

    batch_size, losses = 40, []
    for epoch in range(15):
        total = 0.0
        for start in range(0, num_samples, batch_size):
            batch = data[start:start + batch_size]
            target = label[start:start + batch_size]
            with mx.autograd.record():
                loss = loss_fn(net(batch), target)
            loss.backward()
            trainer.step(batch.shape[0])
            total += loss.mean().asscalar()
        losses.append(total)
    grad = net[0].weight.grad()
    assert grad.stype == 'row_sparse'
    assert get_nbytes(grad) < get_nbytes(net[0].weight.data()) / 10
    assert losses[-1] < 0.8 * losses[0]
    assert accuracy() > 0.8
