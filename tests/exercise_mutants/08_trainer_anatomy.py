"""Wrong submissions to notebook 08's exercises (see tests/test_exercise_mutants.py)."""

MUTANTS = {
    2: {
        # The norms the lesson's batch gives, returned without clipping or updating.
        'hard-coded': '''
def clipped_update(net, trainer, devices, batch_size, max_norm, before_allreduce):
    return 98.4 if before_allreduce else 50.0
''',
        # The right operations, but the textbook bound returned: K * max_norm before the
        # allreduce, max_norm after it.
        'closed-form': '''
def clipped_update(net, trainer, devices, batch_size, max_norm, before_allreduce):
    if before_allreduce:
        for c in devices:
            gluon.utils.clip_global_norm([p.grad(c) for p in net.collect_params().values()], max_norm)
        trainer.allreduce_grads()
    else:
        trainer.allreduce_grads()
        for c in devices:
            gluon.utils.clip_global_norm([p.grad(c) for p in net.collect_params().values()], max_norm)
    trainer.update(batch_size)
    return float(max_norm * (len(devices) if before_allreduce else 1))
''',
        # Clips after the allreduce on the first device only: the copies drift apart.
        'mistake: clip on one device': '''
def clipped_update(net, trainer, devices, batch_size, max_norm, before_allreduce):
    if before_allreduce:
        for c in devices:
            gluon.utils.clip_global_norm([p.grad(c) for p in net.collect_params().values()], max_norm)
        trainer.allreduce_grads()
    else:
        trainer.allreduce_grads()
        gluon.utils.clip_global_norm([p.grad(devices[0]) for p in net.collect_params().values()], max_norm)
    norm = global_norm(net, devices[0])
    trainer.update(batch_size)
    return norm
''',
        # Clips each device's part in both placements (the order of the calls ignored).
        'mistake: always before the allreduce': '''
def clipped_update(net, trainer, devices, batch_size, max_norm, before_allreduce):
    for c in devices:
        gluon.utils.clip_global_norm([p.grad(c) for p in net.collect_params().values()], max_norm)
    trainer.allreduce_grads()
    norm = global_norm(net, devices[0])
    trainer.update(batch_size)
    return norm
''',
        # Clips the summed gradient to max_norm / K "to share the budget" in the wrong place.
        'mistake: each device gets max_norm / K': '''
def clipped_update(net, trainer, devices, batch_size, max_norm, before_allreduce):
    limit = max_norm / len(devices) if before_allreduce else max_norm
    if before_allreduce:
        for c in devices:
            gluon.utils.clip_global_norm([p.grad(c) for p in net.collect_params().values()], limit)
        trainer.allreduce_grads()
    else:
        trainer.allreduce_grads()
        for c in devices:
            gluon.utils.clip_global_norm([p.grad(c) for p in net.collect_params().values()], limit)
    norm = global_norm(net, devices[0])
    trainer.update(batch_size)
    return norm
''',
    },
    3: {
        # Skips the lesson's BAD_STEP by counting calls: the lesson's run, typed in.
        'hard-coded': '''
def guarded_step(net, trainer, devices, batch_size, taken_norms):
    trainer.allreduce_grads()
    step = len(taken_norms) + len(guarded_step.skipped)
    if step == BAD_STEP:
        guarded_step.skipped.append(step)
        return False
    taken_norms.append(global_norm(net, devices[0]))
    trainer.update(batch_size)
    return True
guarded_step.skipped = []
''',
        # "Skipping" by zeroing the gradient and updating anyway: momentum still moves the weights.
        'mistake: a zero gradient instead of no update': '''
def guarded_step(net, trainer, devices, batch_size, taken_norms):
    trainer.allreduce_grads()
    norm = global_norm(net, devices[0])
    if not np.isfinite(norm) or (len(taken_norms) >= 5 and norm > 10 * np.median(taken_norms)):
        for p in net.collect_params().values():
            p.zero_grad()
        trainer.update(batch_size)
        return False
    taken_norms.append(norm)
    trainer.update(batch_size)
    return True
''',
        # Only the size test: NaN > anything is False, so a NaN gradient is applied.
        'mistake: no check for NaN': '''
def guarded_step(net, trainer, devices, batch_size, taken_norms):
    trainer.allreduce_grads()
    norm = global_norm(net, devices[0])
    if len(taken_norms) >= 5 and norm > 10 * np.median(taken_norms):
        return False
    taken_norms.append(norm)
    trainer.update(batch_size)
    return True
''',
        # Records every norm, skipped ones too: a NaN in the history makes the median NaN,
        # and the guard never fires again.
        'mistake: skipped norms kept in the history': '''
def guarded_step(net, trainer, devices, batch_size, taken_norms):
    trainer.allreduce_grads()
    norm = global_norm(net, devices[0])
    skip = not np.isfinite(norm) or (len(taken_norms) >= 5 and norm > 10 * np.median(taken_norms))
    taken_norms.append(norm)
    if skip:
        return False
    trainer.update(batch_size)
    return True
''',
    },
}
NO_CLOSED_FORM = {3: 'which steps are skipped depends on the run\'s own gradient norms, and '
                     'the weights on a whole training run; no formula gives them'}
