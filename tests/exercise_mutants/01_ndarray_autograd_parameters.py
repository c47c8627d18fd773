"""Wrong submissions to notebook 01's exercises (see tests/test_exercise_mutants.py)."""

MUTANTS = {
    2: {
        # The numbers of the visible 9-row example, typed in for every call.
        'hard-coded': '''
def data_parallel_sgd_step(param, per_row_loss, X, target, lr):
    for c in param.list_ctx():
        param.data(c)[:] = nd.array([[-0.7648608, -0.6318568, -0.03575954]], ctx=c)
''',
        # The least-squares gradient 2 X^T (Xw - t) / N in NumPy, no devices, no autograd.
        'closed-form': '''
def data_parallel_sgd_step(param, per_row_loss, X, target, lr):
    Xn, tn = X.asnumpy(), target.asnumpy()
    w = param.data(param.list_ctx()[0]).asnumpy()
    grad = 2 * (Xn @ w.T - tn).T @ Xn / len(Xn)
    for c in param.list_ctx():
        param.grad(c)[:] = nd.array(grad, ctx=c)
        param.data(c)[:] = nd.array(w - lr * grad, ctx=c)
''',
        # Each device's mean loss, and the mean of the devices' gradients: right only when
        # the shards have equal sizes.
        'mistake: mean of the per-device means': '''
def data_parallel_sgd_step(param, per_row_loss, X, target, lr):
    contexts = param.list_ctx()
    shards = np.array_split(np.arange(X.shape[0]), len(contexts))
    with autograd.record():
        losses = [per_row_loss(param.data(c), nd.array(X.asnumpy()[r], ctx=c),
                               nd.array(target.asnumpy()[r], ctx=c)).mean()
                  for c, r in zip(contexts, shards)]
    autograd.backward(losses)
    total = sum(param.grad(c).asnumpy() for c in contexts) / len(contexts)
    for c in contexts:
        param.grad(c)[:] = nd.array(total, ctx=c)
        param.data(c)[:] -= lr * param.grad(c)
''',
        # The whole batch on the first device, its weights copied to the others: the right
        # weights, but no device computed its shard and no gradient was combined.
        'mistake: the whole batch on one device': '''
def data_parallel_sgd_step(param, per_row_loss, X, target, lr):
    c0 = param.list_ctx()[0]
    with autograd.record():
        loss = per_row_loss(param.data(c0), X.as_in_context(c0), target.as_in_context(c0)).mean()
    loss.backward()
    new = param.data(c0).asnumpy() - lr * param.grad(c0).asnumpy()
    for c in param.list_ctx():
        param.data(c)[:] = nd.array(new, ctx=c)
''',
    },
    3: {
        # Whole-batch SGD's weights for the visible example, typed in.
        'hard-coded': '''
def accumulated_step(param, trainer, per_row_loss, X, target, micro):
    param.set_data(nd.array([[1.2741371, -0.45702928, -1.281759]]))
''',
        # Gradient descent on least squares in closed form, without the trainer.
        'closed-form': '''
def accumulated_step(param, trainer, per_row_loss, X, target, micro):
    Xn, tn, w = X.asnumpy(), target.asnumpy(), param.data().asnumpy()
    grad = 2 * (Xn @ w.T - tn).T @ Xn / len(Xn)
    param.set_data(nd.array(w - trainer.learning_rate * grad))
''',
        # Never zeroes the gradient: the second call adds its gradient to the first one's.
        'mistake: no zero_grad': '''
def accumulated_step(param, trainer, per_row_loss, X, target, micro):
    for start in range(0, X.shape[0], micro):
        with autograd.record():
            loss = per_row_loss(param.data(), X[start:start + micro], target[start:start + micro]).sum()
        loss.backward()
    trainer.step(X.shape[0])
''',
        # Exercise 1's mistake: a mean inside each micro-batch, then step(N).
        'mistake: averaged twice': '''
def accumulated_step(param, trainer, per_row_loss, X, target, micro):
    param.zero_grad()
    for start in range(0, X.shape[0], micro):
        with autograd.record():
            loss = per_row_loss(param.data(), X[start:start + micro], target[start:start + micro]).mean()
        loss.backward()
    trainer.step(X.shape[0])
''',
        # A mean per micro-batch and step(number of micro-batches): right only when every
        # micro-batch has the same size.
        'mistake: mean of micro-batch means': '''
def accumulated_step(param, trainer, per_row_loss, X, target, micro):
    param.zero_grad()
    pieces = range(0, X.shape[0], micro)
    for start in pieces:
        with autograd.record():
            loss = per_row_loss(param.data(), X[start:start + micro], target[start:start + micro]).mean()
        loss.backward()
    trainer.step(len(pieces))
''',
    },
}
