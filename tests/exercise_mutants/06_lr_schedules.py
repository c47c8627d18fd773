"""Wrong submissions to notebook 06's exercises (tests/test_exercise_mutants.py).

Exercise 1 is a prediction: every other letter is tried without an entry here.
"""

MUTANTS = {
    2: {
        # SGD's range test handed in again: the right type and range, the wrong optimizer
        'hard-coded': "adam_found = found",
        'mistake: the range test run with SGD with momentum': """
adam_net = make_net(0)
adam_trainer = gluon.Trainer(adam_net.collect_params(), 'sgd', {'learning_rate': 0.001, 'momentum': 0.9})
adam_found = mx.contrib.lr_find(adam_net, adam_trainer, make_loader(), loss_fn, start_lr=1e-4, end_lr=10, num_steps=100)
""",
        'mistake: a continued network, not a fresh one': """
adam_net = make_net(0)
warm_trainer = gluon.Trainer(adam_net.collect_params(), 'adam', {'learning_rate': 0.001})
for x, y in make_loader():
    with autograd.record():
        loss = loss_fn(adam_net(x), y)
    loss.backward()
    warm_trainer.step(BATCH)
adam_found = mx.contrib.lr_find(adam_net, gluon.Trainer(adam_net.collect_params(), 'adam', {'learning_rate': 0.001}),
                                make_loader(), loss_fn, start_lr=1e-4, end_lr=10, num_steps=100)
""",
    },
    3: {
        # the visible example's numbers typed in: period 10, base 0.5, final 0.01
        'hard-coded': """
class CosineWithRestarts(mx.lr_scheduler.LRScheduler):
    def __init__(self, period, final_lr=0.0, base_lr=0.01):
        super().__init__(base_lr)
        self.period, self.final_lr = period, final_lr

    def __call__(self, num_update):
        k = num_update - 1
        for start, length in ((0, 10), (10, 20), (30, 40), (70, 80), (150, 160)):
            if k < start + length:
                break
        return 0.01 + 0.49 * (1 + math.cos(math.pi * (k - start) / length)) / 2
""",
        'mistake: every cycle as long as the first': """
class CosineWithRestarts(mx.lr_scheduler.LRScheduler):
    def __init__(self, period, final_lr=0.0, base_lr=0.01):
        super().__init__(base_lr)
        self.period, self.final_lr = period, final_lr

    def __call__(self, num_update):
        position = (num_update - 1) % self.period
        return self.final_lr + (self.base_lr - self.final_lr) * (1 + math.cos(math.pi * position / self.period)) / 2
""",
        'mistake: base_lr kept from the constructor': """
class CosineWithRestarts(mx.lr_scheduler.LRScheduler):
    def __init__(self, period, final_lr=0.0, base_lr=0.01):
        super().__init__(base_lr)
        self.period, self.final_lr, self.top = period, final_lr, base_lr

    def __call__(self, num_update):
        position, length = num_update - 1, self.period
        while position >= length:
            position, length = position - length, 2 * length
        return self.final_lr + (self.top - self.final_lr) * (1 + math.cos(math.pi * position / length)) / 2
""",
        'mistake: counted from num_update, not num_update - 1': """
class CosineWithRestarts(mx.lr_scheduler.LRScheduler):
    def __init__(self, period, final_lr=0.0, base_lr=0.01):
        super().__init__(base_lr)
        self.period, self.final_lr = period, final_lr

    def __call__(self, num_update):
        position, length = num_update, self.period
        while position >= length:
            position, length = position - length, 2 * length
        return self.final_lr + (self.base_lr - self.final_lr) * (1 + math.cos(math.pi * position / length)) / 2
""",
    },
}

NO_CLOSED_FORM = {
    2: 'the range test is an experiment: no formula gives its loss curve',
    3: 'the answer is a scheduler class; the formula is the task itself, graded on fresh arguments',
}
