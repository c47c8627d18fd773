"""The parity case table: every optimizer x setting, and every lr scheduler curve.

Case ids read ``<optimizer>[-<config>]-<variant>-<dtype>``, e.g. ``adam-wd-fp32``,
``sgd-mom-multi-fp16``, ``lbsgd-sqrt-sched-fp32``, ``adam-lazy-rsp``.

Variants (all with ``STEPS`` steps over the ``SHAPES`` parameters):

=============  ============================================================================
plain          the config's hyperparameters only
wd             + ``wd=0.05``
clip           + ``clip_gradient=0.5`` (gradients are N(0, 1), so it bites)
rescale        + ``rescale_grad=0.25``
sched          + ``lr_scheduler=FactorScheduler(step=2, factor=0.6, base_lr=0.05, 2 linear
               warm-up steps)``, without ``learning_rate`` (optimizers whose signature has a
               default learning_rate still override the scheduler's base_lr with it)
sched-lr       the same, keeping the config's ``learning_rate`` (the override quirk)
mult           ``param_idx2name`` (weights, biases, a gamma) + ``set_lr_mult`` /
               ``set_wd_mult`` by name and by index, with ``wd=0.05``
multi          one Updater call with lists of all parameters (multi-tensor / aggregate path)
direct         ``update_multi_precision`` called per parameter, without an Updater
plain-fp16     float16 weights and gradients, ``multi_precision=True``
multi-fp16     the same through one list call
=============  ============================================================================

Row-sparse cases (``*-rsp``) feed row_sparse gradients (a few rows per step) with
``lazy_update`` True / False where MXNet has that option.
"""
import zlib

import numpy as np

STEPS = 6
# Five parameters: one Updater list call then spans SGD/LARS's aggregation chunks (4 + 1).
# The small third one has a weight norm below LAMB's lower_bound.
SHAPES = [(4, 5), (7,), (3,), (2, 3, 2), (6,)]
WEIGHT_SCALES = [1.0, 1.0, 0.1, 1.0, 0.5]
IDX2NAME = [[0, 'dense0_weight'], [1, 'dense0_bias'], [2, 'bn0_gamma'], [3, 'dense1_weight'],
            [4, 'dense1_bias']]
LR_MULT = [['dense0_weight', 0.5], [3, 2.0], ['bn0_gamma', 1.5]]
WD_MULT = [['dense1_weight', 3.0], [2, 0.5]]
SCHEDULER = {'type': 'FactorScheduler',
             'kwargs': {'step': 2, 'factor': 0.6, 'base_lr': 0.05, 'warmup_steps': 2,
                        'warmup_begin_lr': 0.01, 'warmup_mode': 'linear'}}

# optimizer -> {config name (None: the only one) -> constructor kwargs}
OPTIMIZER_CONFIGS = {
    'sgd': {'mom': {'learning_rate': 0.1, 'momentum': 0.9},
            'nomom': {'learning_rate': 0.1, 'momentum': 0.0}},
    'ccsgd': {None: {'learning_rate': 0.1, 'momentum': 0.9}},
    'nag': {'mom': {'learning_rate': 0.1, 'momentum': 0.9},
            'nomom': {'learning_rate': 0.1, 'momentum': 0.0}},
    # momentum=0 with wd_lh != 0 crashes in MXNet 1.9.1: see test_signum_wd_lh_divergence.
    'signum': {'mom': {'learning_rate': 0.01, 'momentum': 0.9, 'wd_lh': 0.01},
               'nomom': {'learning_rate': 0.01, 'momentum': 0.0}},
    'sgld': {None: {'learning_rate': 0.01}},
    # momentum > 0 crashes in MXNet 1.9.1: see test_dcasgd_momentum_divergence.
    'dcasgd': {None: {'learning_rate': 0.1, 'momentum': 0.0, 'lamda': 0.1}},
    'test': {None: {}},
    'adam': {None: {'learning_rate': 0.01, 'beta1': 0.8, 'beta2': 0.99, 'epsilon': 1e-6}},
    'adamax': {None: {'learning_rate': 0.01, 'beta1': 0.85, 'beta2': 0.99}},
    'nadam': {None: {'learning_rate': 0.01, 'beta1': 0.9, 'beta2': 0.99, 'epsilon': 1e-6,
                     'schedule_decay': 0.01}},
    'adagrad': {None: {'learning_rate': 0.1, 'eps': 1e-6}},
    'adadelta': {None: {'rho': 0.8, 'epsilon': 1e-4}},
    'rmsprop': {'plain': {'learning_rate': 0.01, 'gamma1': 0.8, 'epsilon': 1e-6},
                'centered': {'learning_rate': 0.01, 'gamma1': 0.8, 'gamma2': 0.7,
                             'epsilon': 1e-6, 'centered': True, 'clip_weights': 0.9}},
    'ftrl': {None: {'learning_rate': 0.1, 'lamda1': 0.01, 'beta': 0.5}},
    'ftml': {None: {'learning_rate': 0.01, 'beta1': 0.5, 'beta2': 0.99, 'epsilon': 1e-6}},
    'lars': {'mom': {'learning_rate': 0.1, 'momentum': 0.9, 'eta': 0.01, 'eps': 1e-6},
             'nocorr': {'learning_rate': 0.1, 'momentum': 0.8, 'eta': 0.02,
                        'momentum_correction': False},
             'nomom': {'learning_rate': 0.1, 'momentum': 0.0, 'eta': 0.01}},
    # warmup over 4 updates (1 epoch x 4), batch_scale 2: every other step accumulates.
    'lbsgd': {strategy: {'learning_rate': 0.1, 'momentum': 0.9 if strategy != 'lars' else 0.0,
                         'warmup_strategy': strategy, 'warmup_epochs': 1,
                         'updates_per_epoch': 4, 'batch_scale': 2}
              for strategy in ('linear', 'power2', 'sqrt', 'lars')},
    'lamb': {'bounds': {'learning_rate': 0.01, 'beta1': 0.8, 'beta2': 0.99, 'epsilon': 1e-6,
                        'lower_bound': 0.5, 'upper_bound': 2.0},
             'nobc': {'learning_rate': 0.01, 'bias_correction': False}},
}

VARIANTS = ['plain', 'wd', 'clip', 'rescale', 'sched', 'sched-lr', 'mult', 'multi', 'direct',
            'plain-fp16', 'multi-fp16']


def _variant(kwargs, variant):
    """(kwargs, extra case fields) of ``variant`` applied to the config ``kwargs``."""
    kwargs = dict(kwargs)
    extra = {'mode': 'single', 'dtype': 'float32'}
    if variant == 'wd':
        kwargs['wd'] = 0.05
    elif variant == 'clip':
        kwargs['clip_gradient'] = 0.5
    elif variant == 'rescale':
        kwargs['rescale_grad'] = 0.25
    elif variant == 'sched':
        kwargs.pop('learning_rate', None)
        extra['scheduler'] = SCHEDULER
    elif variant == 'sched-lr':
        extra['scheduler'] = SCHEDULER
    elif variant == 'mult':
        kwargs['wd'] = 0.05
        extra.update(idx2name=IDX2NAME, lr_mult=LR_MULT, wd_mult=WD_MULT)
    elif variant in ('multi', 'multi-fp16'):
        extra['mode'] = 'multi'
    elif variant == 'direct':
        extra['mode'] = 'direct'
    if variant.endswith('fp16'):
        kwargs['multi_precision'] = True
        extra['dtype'] = 'float16'
    return kwargs, extra


def _dense_case(optimizer, config, variant):
    kwargs, extra = _variant(OPTIMIZER_CONFIGS[optimizer][config], variant)
    name = '-'.join(part for part in (optimizer, config) if part)
    suffix = variant if variant.endswith('fp16') else variant + '-fp32'
    case = {'id': '%s-%s' % (name, suffix), 'optimizer': optimizer, 'kwargs': kwargs,
            'scheduler': None, 'idx2name': None, 'lr_mult': None, 'wd_mult': None,
            'shapes': [list(s) for s in SHAPES], 'weight_scales': WEIGHT_SCALES,
            'steps': STEPS, 'grad_stype': 'default', 'weight_stype': 'default',
            'zero_noise': optimizer == 'sgld'}
    case.update(extra)
    return case


SPARSE_SHAPE = (8, 3)


def _sparse_case(case_id, optimizer, kwargs, weight_stype='default'):
    return {'id': case_id, 'optimizer': optimizer, 'kwargs': kwargs, 'scheduler': None,
            'idx2name': None, 'lr_mult': None, 'wd_mult': None, 'mode': 'single',
            'dtype': 'float32', 'shapes': [list(SPARSE_SHAPE)] * 2, 'weight_scales': [1.0, 1.0],
            'steps': STEPS, 'grad_stype': 'row_sparse', 'weight_stype': weight_stype,
            'zero_noise': False}


def sparse_cases():
    common = {'rescale_grad': 0.5, 'clip_gradient': 1.0}
    cases = []
    for mom_name, momentum in (('mom', 0.9), ('nomom', 0.0)):
        for lazy in (True, False):
            cases.append(_sparse_case(
                'sgd-%s-%s-rsp' % (mom_name, 'lazy' if lazy else 'nolazy'), 'sgd',
                dict(common, learning_rate=0.1, momentum=momentum, wd=0.01, lazy_update=lazy)))
    for lazy in (True, False):
        cases.append(_sparse_case(
            'adam-%s-rsp' % ('lazy' if lazy else 'nolazy'), 'adam',
            dict(common, learning_rate=0.01, wd=0.01, lazy_update=lazy)))
    # AdaGrad and Ftrl have no lazy_update option in MXNet 1.9.1. AdaGrad's sparse kernel is
    # lazy and rejects wd != 0 (MXNetError), so wd stays 0. Ftrl is lazy only when the
    # weight (hence its states) is row_sparse too; with a dense weight MXNet densifies.
    cases.append(_sparse_case('adagrad-lazy-rsp', 'adagrad',
                              dict(common, learning_rate=0.1, eps=1e-6)))
    cases.append(_sparse_case('ftrl-denseweight-rsp', 'ftrl',
                              dict(common, learning_rate=0.1, lamda1=0.01, wd=0.01)))
    cases.append(_sparse_case('ftrl-lazy-rsp', 'ftrl',
                              dict(common, learning_rate=0.1, lamda1=0.01, wd=0.01),
                              weight_stype='row_sparse'))
    return cases


def optimizer_cases():
    cases = []
    for optimizer, configs in OPTIMIZER_CONFIGS.items():
        for config in configs:
            for variant in VARIANTS:
                cases.append(_dense_case(optimizer, config, variant))
    return cases + sparse_cases()


# The documented DCASGD formula with momentum, which MXNet 1.9.1 cannot run.
DCASGD_MOMENTUM_CASE = dict(_dense_case('dcasgd', None, 'wd'),
                            id='dcasgd-mom-divergence-fp32',
                            kwargs={'learning_rate': 0.1, 'momentum': 0.9, 'lamda': 0.1,
                                    'wd': 0.05})

# signSGD (Signum with momentum=0) with decoupled decay wd_lh, which MXNet 1.9.1 cannot run.
SIGNUM_WD_LH_CASE = dict(_dense_case('signum', 'nomom', 'wd'),
                         id='signum-nomom-wdlh-divergence-fp32',
                         kwargs={'learning_rate': 0.01, 'momentum': 0.0, 'wd_lh': 0.02,
                                 'wd': 0.05, 'clip_gradient': 0.5, 'rescale_grad': 0.8})
DIVERGENCE_CASES = [DCASGD_MOMENTUM_CASE, SIGNUM_WD_LH_CASE]


def make_inputs(cases):
    """Seeded host arrays for ``cases`` (weights and every step's gradients)."""
    inputs = {}
    for case in cases:
        rng = np.random.default_rng(zlib.crc32(case['id'].encode()))
        for k, (shape, scale) in enumerate(zip(case['shapes'], case['weight_scales'])):
            shape = tuple(shape)
            weight = (rng.standard_normal(shape) * scale).astype(np.float32)
            grads = rng.standard_normal((case['steps'],) + shape).astype(np.float32)
            if case['grad_stype'] == 'row_sparse':
                for step in range(case['steps']):
                    rows = np.sort(rng.choice(shape[0], size=3, replace=False))
                    if step % 2 == 0:  # row 0 recurs, so its lazy state carries over
                        rows = np.union1d(rows, [0])
                    rows = rows.astype(np.int64)
                    mask = np.zeros(shape[0], dtype=bool)
                    mask[rows] = True
                    grads[step][~mask] = 0
                    inputs['%s|rows|%d|%d' % (case['id'], k, step)] = rows
            inputs['%s|w|%d' % (case['id'], k)] = weight
            inputs['%s|g|%d' % (case['id'], k)] = grads
    return inputs


# ------------------------------------------------------------------ schedulers

SCHEDULER_PARAMS = {
    'FactorScheduler': {
        'step10': {'step': 10, 'factor': 0.9, 'base_lr': 0.1},
        'step7-floor': {'step': 7, 'factor': 0.5, 'base_lr': 1.0, 'stop_factor_lr': 1e-3},
        'step1': {'step': 1, 'factor': 0.97, 'base_lr': 0.05},
    },
    'MultiFactorScheduler': {
        'three': {'step': [20, 50, 120], 'factor': 0.5, 'base_lr': 0.1},
        'dense': {'step': [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144], 'factor': 0.8,
                  'base_lr': 1.0},
    },
    'PolyScheduler': {
        'pwr2': {'max_update': 150, 'base_lr': 0.1, 'pwr': 2, 'final_lr': 0.001},
        'pwr1': {'max_update': 200, 'base_lr': 0.5, 'pwr': 1},
        'pwr0.5-short': {'max_update': 60, 'base_lr': 0.2, 'pwr': 0.5, 'final_lr': 0.01},
    },
    'CosineScheduler': {
        'long': {'max_update': 180, 'base_lr': 0.1, 'final_lr': 0.001},
        'full': {'max_update': 200, 'base_lr': 1.0},
        'short': {'max_update': 50, 'base_lr': 0.3, 'final_lr': 0.05},
    },
}
WARMUPS = {
    'nowarmup': {},
    'linear': {'warmup_steps': 15, 'warmup_begin_lr': 0.001, 'warmup_mode': 'linear'},
    'constant': {'warmup_steps': 15, 'warmup_begin_lr': 0.001, 'warmup_mode': 'constant'},
}
SCHEDULER_UPDATES = 200


def _short(name):
    return name.replace('Scheduler', '').lower()


def scheduler_cases():
    cases = []
    for sched_type, param_sets in SCHEDULER_PARAMS.items():
        for pname, params in param_sets.items():
            for wname, warmup in WARMUPS.items():
                spec = {'type': sched_type, 'kwargs': dict(params, **warmup)}
                for start in (1, 0):
                    cases.append({'id': '%s-%s-%s-from%d' % (_short(sched_type), pname, wname,
                                                              start),
                                  'scheduler': spec, 'start': start, 'n': SCHEDULER_UPDATES})
        # Optimizer(learning_rate=...) overrides the scheduler's base_lr (but in MXNet not
        # the warm-up's end, nor Poly/Cosine's starting point, which were fixed earlier).
        pname, params = next(iter(param_sets.items()))
        for wname in ('nowarmup', 'linear'):
            spec = {'type': sched_type, 'kwargs': dict(params, **WARMUPS[wname])}
            for lr_name, lr in (('override', 0.3), ('same', params['base_lr']), ('none', None)):
                cases.append({'id': '%s-%s-%s-optimizer-lr-%s' % (_short(sched_type), pname,
                                                                  wname, lr_name),
                              'scheduler': spec, 'n': SCHEDULER_UPDATES,
                              'via_optimizer': True, 'learning_rate': lr})
    return cases
