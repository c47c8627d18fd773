"""Wrong submissions to notebook 14's exercises (see tests/test_exercise_mutants.py)."""

MUTANTS = {
    2: {
        # Logits for training, and a probability table typed in instead of computed.
        'hard-coded': '''
class Classifier(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.Dense(32, activation='relu')
            self.head = nn.Dense(10)

    def hybrid_forward(self, F, x):
        return self.head(self.body(x))


def predict_proba(net, x):
    return nd.ones((x.shape[0], 10)) / 10
''',
        # Exercise 1's block kept: the mode branch is frozen at the trace.
        'mistake: the mode branch kept': '''
class Classifier(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.Dense(32, activation='relu')
            self.head = nn.Dense(10)

    def hybrid_forward(self, F, x):
        out = self.head(self.body(x))
        if not autograd.is_training():
            out = F.softmax(out)
        return out


def predict_proba(net, x):
    return net(x)
''',
        # The softmax in every mode: hybridized and imperative agree with each other, but
        # both train on probabilities.
        'mistake: softmax in the graph always': '''
class Classifier(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.Dense(32, activation='relu')
            self.head = nn.Dense(10)

    def hybrid_forward(self, F, x):
        return F.softmax(self.head(self.body(x)))


def predict_proba(net, x):
    return net(x)
''',
        # A branch on F instead of the mode: the hybridized block never applies the softmax.
        'mistake: a branch on F': '''
class Classifier(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.Dense(32, activation='relu')
            self.head = nn.Dense(10)

    def hybrid_forward(self, F, x):
        out = self.head(self.body(x))
        if F is nd and not autograd.is_training():
            out = F.softmax(out)
        return out


def predict_proba(net, x):
    return net(x)
''',
    },
    3: {
        # Ignores the files of the run: the lesson's exported network, loaded every time.
        'hard-coded': '''
def export_run(net, trainer, prefix, epoch):
    net.export(prefix, epoch=epoch)


def resume_run(prefix, epoch, optimizer, options):
    block = gluon.SymbolBlock.imports(os.path.join(folder, 'digits_mlp-symbol.json'), ['data'],
                                      os.path.join(folder, 'digits_mlp-0005.params'))
    return block, gluon.Trainer(block.collect_params(), optimizer, dict(options))
''',
        # Section 5's way: the weights only, a fresh Trainer.
        'mistake: weights without the optimizer state': '''
def export_run(net, trainer, prefix, epoch):
    net.export(prefix, epoch=epoch)


def resume_run(prefix, epoch, optimizer, options):
    block = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-%04d.params' % epoch)
    return block, gluon.Trainer(block.collect_params(), optimizer, dict(options))
''',
        # The optimizer saved without its state arrays (the momentum, Adam's moments)... by
        # saving the states of a fresh Trainer built for the same parameters.
        'mistake: the states of a fresh trainer': '''
def export_run(net, trainer, prefix, epoch):
    net.export(prefix, epoch=epoch)
    fresh = gluon.Trainer(net.collect_params(), trainer.optimizer.__class__.__name__.lower(),
                          {'learning_rate': trainer.learning_rate})
    fresh.save_states(prefix + '.states')


def resume_run(prefix, epoch, optimizer, options):
    block = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-%04d.params' % epoch)
    trainer = gluon.Trainer(block.collect_params(), optimizer, dict(options))
    trainer.load_states(prefix + '.states')
    return block, trainer
''',
    },
}
NO_CLOSED_FORM = {
    2: 'the answer is a Block and a function; no formula stands in for them',
    3: 'the answer is two functions that write and read files; no formula stands in for them',
}
