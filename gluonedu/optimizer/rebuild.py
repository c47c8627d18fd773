"""Saved optimizers and learning-rate schedulers rebuilt through their constructors.

A state file holds an optimizer (or scheduler) as its class name and its attributes.
Trusting those attributes would let an edited file (CRC-valid, well-formed) set
``beta1=2``, ``epsilon=-1`` or a FactorScheduler ``step=0`` (the next ``step()``
never returns). So :func:`rebuild` calls the constructor with the saved
hyper-parameters — every check the constructor makes runs — and then restores only the
attributes that change as training runs, named by the class's ``STATE_ATTRS``, each
checked to be of the kind the constructor made (numbers finite and non-negative,
counts ints). Every other saved attribute of a gluonedu class must equal what the
constructor built from the same hyper-parameters (an optimizer of the user's may keep
its arguments under names of its own: its other attributes are restored as saved, if
of the kind the constructor made). Any mismatch raises MXNetError.

A file is held to more than the constructor is: MXNet 1.9.1's constructors accept
``wd=nan``, ``rescale_grad=-1``, ``clip_gradient='abc'`` or ``lr=1e300`` (and gluonedu's
keep MXNet's behaviour), but no training saves such values, and loaded they make every
weight NaN or crash the next step. So, before anything is built:

* a hyper-parameter of a gluonedu class has the kind of its default: a flag a bool, a
  choice a string, a number a number (one whose default is None: None or a number);
* every number is finite and at most :data:`MAX_MAGNITUDE` (float32's largest), and
  :data:`LOADED_RANGES` bounds the ones the constructors leave open: rates, decays and
  multipliers at most :data:`MAX_COEFFICIENT`, momenta and decay factors at most 1,
  update counts at most :data:`MAX_UPDATES`;
* the running state has the layout the class keeps (update counts ints, multipliers
  numbers, by parameter) and agrees with itself: each parameter's count lies between
  ``begin_num_update`` and ``num_update``; a scheduler's count is one its schedule
  reaches; LARS's next momentum correction is at most MAX_COEFFICIENT
  (:func:`check_agreement`; docs/divergences.md, "State files: hyper-parameters MXNet
  would accept").

The schedulers catch up on any count in bounded time (``FactorScheduler`` applies the
decays past :data:`~gluonedu.lr_scheduler.EXACT_DECAYS` at once), so a count far
behind ``num_update`` costs no more than a near one.
"""
import copy
import math
import numbers
import warnings

import numpy as np

from ..base import MXNetError
from ..lr_scheduler import FactorScheduler, MultiFactorScheduler
from ..ndarray import NDArray
from .keywords import constructor_keywords
from .lars import LARS
from .optimizer import Optimizer

__all__ = ['rebuild', 'check_agreement', 'LOADED_RANGES', 'MAX_COEFFICIENT', 'MAX_MAGNITUDE',
           'MAX_UPDATES', 'NOT_SAVED']

#: The largest update count a state file may hold (``num_update``, a parameter's count,
#: a scheduler's count, step or warm-up): far past any training, and every count up to it
#: is exact as a float, as the schedules and bias corrections compute with it.
MAX_UPDATES = 2 ** 53
#: The largest learning rate, weight decay, gradient scale, multiplier or epsilon a state
#: file may hold: far past any training (the largest learning rates in use are ~30, with
#: LARS), where 1e300 overflows float32 at the first step.
MAX_COEFFICIENT = 1e4
#: The largest magnitude of any number in a state file: the steps compute in float32,
#: where a larger number is inf.
MAX_MAGNITUDE = float(np.finfo(np.float32).max)

_COUNT = (0, False, MAX_UPDATES)
_COEFFICIENT = (0, False, MAX_COEFFICIENT)
_FRACTION = (0, False, 1)
#: The numbers of a state file that must lie in range although the constructors (as
#: MXNet's) accept more, hyper-parameters and running state alike (a dict's or a list's
#: numbers each): name -> (lowest value, whether the lowest value itself is refused,
#: highest value or None for MAX_MAGNITUDE). clip_gradient and clip_weights are open: a
#: negative one means "no clipping", as in MXNet.
LOADED_RANGES = {
    # rates, decays, scales and multipliers: a step multiplies by them
    'learning_rate': _COEFFICIENT, 'base_lr': _COEFFICIENT, 'final_lr': _COEFFICIENT,
    'warmup_begin_lr': _COEFFICIENT, 'stop_factor_lr': _COEFFICIENT,
    'max_lr': _COEFFICIENT, 'last_lr': _COEFFICIENT, 'cur_lr': _COEFFICIENT,
    'wd': _COEFFICIENT, 'wd_lh': _COEFFICIENT, 'lamda': _COEFFICIENT,
    'lamda1': _COEFFICIENT, 'eta': _COEFFICIENT, 'epsilon': _COEFFICIENT,
    'eps': _COEFFICIENT, 'lower_bound': _COEFFICIENT, 'upper_bound': _COEFFICIENT,
    'lr_mult': _COEFFICIENT, 'wd_mult': _COEFFICIENT, 'lbmult': _COEFFICIENT,
    'admult': _COEFFICIENT, 'rescale_grad': (0, True, MAX_COEFFICIENT),
    'schedule_decay': (0, False, None), 'pwr': (0, False, None),
    # momenta and decay factors: more than 1 grows without bound
    'momentum': _FRACTION, 'factor': _FRACTION, 'm_schedule': _FRACTION,
    # update counts
    'begin_num_update': _COUNT, 'num_update': _COUNT, 'count': _COUNT,
    'cur_step_ind': _COUNT, 'warmup_steps': _COUNT, 'max_update': _COUNT,
    'total_steps': _COUNT, 'step': _COUNT, 'skip': _COUNT, 'init_updates': _COUNT,
    'aggregate_num': _COUNT, 'num_cums': _COUNT, 'warmup_epochs': _COUNT,
    'updates_per_epoch': _COUNT, 'begin_epoch': _COUNT, 'num_epochs': _COUNT,
    'batch_scale': _COUNT}

#: Constructor arguments the instance keeps under another name.
_STORED_AS = {'learning_rate': 'lr', 'param_idx2name': 'idx2name', 'eps': 'float_stable_eps',
              'pwr': 'power', 'base_lr': 'warmup_final_lr'}
#: Passed by the caller, not by the file.
_NOT_FROM_FILE = ('lr_scheduler', 'param_dict', 'sym')
#: Constructor arguments (default None) that take a table rather than a number.
_TABLE_ARGUMENTS = ('param_idx2name',)
#: An optimizer's attributes that a state file leaves out: the Trainer's parameters, an
#: alias of one device's counts (saved as its device), the log of a step being reported.
NOT_SAVED = ('param_dict', '_index_update_count', '_step_log')


def _constructor_parameters(klass):
    """``{name: default}`` of the keywords ``klass(...)`` takes from a file."""
    return {name: default for name, default in constructor_keywords(klass).items()
            if name not in _NOT_FROM_FILE}


def _saved_argument(name, attrs):
    """(the saved attribute's name or None, its value) of constructor argument ``name``."""
    stored = _STORED_AS.get(name)
    if stored in attrs:  # base_lr: the scheduler's starting rate, not its decayed one
        return stored, attrs[stored]
    if name in attrs:
        return name, attrs[name]
    return None, None


# --------------------------------------------------------------------------- kinds
def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_count(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_key(value):
    """A parameter's index or name, as tables of parameters are keyed."""
    return _is_count(value) or isinstance(value, str)


def _numbers_only(value):
    """``value`` holds nothing but numbers and None (in nested lists, tuples, dicts)."""
    if isinstance(value, dict):
        return all(_is_key(k) and _numbers_only(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_numbers_only(v) for v in value)
    return value is None or _is_number(value)


def _argument_kind(name, default):
    """(test, description) of what a gluonedu constructor's argument ``name`` takes,
    going by its ``default``; None where the constructor itself checks the value."""
    if isinstance(default, bool):
        return (lambda v: isinstance(v, bool)), 'True or False'
    if isinstance(default, str):
        return (lambda v: isinstance(v, str)), 'a string'
    if _is_number(default):
        return _is_number, 'a number'
    if default is None and name not in _TABLE_ARGUMENTS:
        return (lambda v: v is None or _is_number(v)), 'None or a number'
    if default is None:
        return None
    # no default: a number or a list of them (a MultiFactorScheduler's steps)
    return (lambda v: _is_number(v) or (isinstance(v, list) and _numbers_only(v))), \
        'a number or a list of numbers'


#: What each running-state attribute with a layout of its own holds: (test, description).
_STATE_LAYOUTS = {
    '_all_index_update_counts': (
        lambda v: isinstance(v, dict) and all(
            _is_count(device) and isinstance(table, dict) and
            all(_is_key(k) and _is_count(n) for k, n in table.items())
            for device, table in v.items()),
        'a table of device id -> {parameter: update count (an int)}'),
    'lr_mult': (lambda v: isinstance(v, dict) and all(
        _is_key(k) and _is_number(m) for k, m in v.items()),
        'a table of parameter -> multiplier (a number)'),
    'cumgrads': (lambda v: isinstance(v, dict) and all(
        _is_key(k) and isinstance(e, dict) and set(e) == {'cum_grad', 'num_cums'} and
        (isinstance(e['cum_grad'], NDArray) or (_is_number(e['cum_grad']) and
                                                e['cum_grad'] == 0)) and
        _is_count(e['num_cums']) for k, e in v.items()),
        "a table of parameter -> {'cum_grad': array or 0, 'num_cums': count}"),
    'sym_info': (lambda v: v == () or (
        isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], dict) and
        all(isinstance(k, str) and isinstance(a, dict) and
            all(isinstance(x, str) for item in a.items() for x in item)
            for k, a in v[0].items()) and
        isinstance(v[1], list) and all(isinstance(n, str) for n in v[1])),
        "() or the symbol's (attributes by name, argument names)"),
}
_STATE_LAYOUTS['wd_mult'] = _STATE_LAYOUTS['lr_mult']


def _state_kind(fresh):
    """(test, description) of a running-state attribute the constructor set to ``fresh``."""
    if fresh is None:   # a value not known yet (LARS's last rate)
        return (lambda v: v is None or _is_number(v)), 'None or a number'
    if isinstance(fresh, (bool, str)):
        return (lambda v: type(v) is type(fresh)), 'a %s' % type(fresh).__name__
    if _is_count(fresh):
        return _is_count, 'a count (an int)'
    if _is_number(fresh):
        return _is_number, 'a number'
    if isinstance(fresh, (dict, list, tuple)):
        kind = type(fresh)
        return (lambda v: isinstance(v, kind) and _numbers_only(v)), \
            'a %s of numbers' % kind.__name__
    return (lambda v: isinstance(v, type(fresh))), 'a %s' % type(fresh).__name__


# --------------------------------------------------------------------------- ranges
def _numbers_in(value):
    """The numbers ``value`` holds: itself, or a list's, tuple's or dict's values (nested)."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [n for item in value for n in _numbers_in(item)]
    return [value] if _is_number(value) else []


def _range_text(low, open_low, high):
    if high is None and low is None:
        return 'a finite number of magnitude <= %.4g' % MAX_MAGNITUDE
    text = 'a finite number'
    if low is not None:
        text += ' %s %s and' % ('>' if open_low else '>=', low)
    return text + ' <= %s' % ('%.4g' % MAX_MAGNITUDE if high is None else high)


def _check_numbers(what, name, field, value, default_limits=(None, False, None)):
    """Every number in ``value`` (saved as ``field``) is finite, at most MAX_MAGNITUDE in
    magnitude and in the range of ``name`` (:data:`LOADED_RANGES`, else
    ``default_limits``)."""
    low, open_low, high = LOADED_RANGES.get(name, default_limits)
    for number in _numbers_in(value):
        too_low = low is not None and (number < low or (open_low and number == low))
        too_high = abs(number) > (MAX_MAGNITUDE if high is None else high)
        if not math.isfinite(number) or too_low or too_high:
            raise MXNetError("the saved %s has %s=%s; a state file's %s must be %s"
                             % (what, field, _short(value), field,
                                _range_text(low, open_low, high)))


def _check_loaded(what, name, field, value, default, builtin):
    """Constructor argument ``name``, saved as ``field``: of the kind its ``default`` is
    (for a gluonedu class), its numbers finite and in :data:`LOADED_RANGES`."""
    kind = _argument_kind(name, default) if builtin else None
    if kind is not None and not kind[0](value):
        raise MXNetError("the saved %s has %s=%s; expected %s"
                         % (what, field, _short(value), kind[1]))
    if isinstance(default, bool) and not isinstance(value, bool):   # any class's flag
        raise MXNetError("the saved %s has %s=%s; expected True or False"
                         % (what, field, _short(value)))
    _check_numbers(what, name, field, value)


def _check_state(what, name, value, fresh):
    """``value`` (saved) has the layout of ``fresh`` (what the constructor made); its
    numbers are finite and in range (non-negative, counts at most MAX_UPDATES)."""
    test, description = _STATE_LAYOUTS.get(name) or _state_kind(fresh)
    if not test(value):
        raise MXNetError("the saved %s has %s=%s; expected %s"
                         % (what, name, _short(value), description))
    ranges = {'_all_index_update_counts': 'num_update', 'cumgrads': 'num_cums'}
    _check_numbers(what, ranges.get(name, name), name, value,
                   _COUNT if _is_count(fresh) else (0, False, None))


# --------------------------------------------------------------------------- agreement
def check_agreement(what, obj):
    """The running state of a rebuilt optimizer or scheduler ``obj`` agrees with itself:
    each parameter's update count lies between ``begin_num_update`` and ``num_update``;
    a scheduler's count is one its schedule reaches; LARS's momentum correction at its
    next update stays in range. For an optimizer, call it once its scheduler has its
    saved ``base_lr`` back. Raises MXNetError naming ``what``."""
    if isinstance(obj, Optimizer):
        counts = [n for table in obj._all_index_update_counts.values() for n in table.values()]
        low, high = obj.begin_num_update, obj.num_update
        if high < low or any(not low <= n <= high for n in counts):
            raise MXNetError("the saved %s has update counts %s outside begin_num_update=%s"
                             "..num_update=%s; each parameter's count lies in that range"
                             % (what, _short(sorted(set(counts))), low, high))
        if isinstance(obj, LARS):
            _check_momentum_correction(what, obj)
    elif isinstance(obj, MultiFactorScheduler):
        passed = obj.step[:obj.cur_step_ind]
        if obj.cur_step_ind > len(obj.step) or obj.count != (passed[-1] if passed else 0):
            raise MXNetError("the saved %s has count=%s and cur_step_ind=%s; after %s of its "
                             "steps %s the count is the last one passed"
                             % (what, obj.count, obj.cur_step_ind, obj.cur_step_ind,
                                _short(obj.step)))
    elif isinstance(obj, FactorScheduler):
        if _is_count(obj.step) and _is_count(obj.count) and obj.count % obj.step:
            raise MXNetError("the saved %s has count=%s; it counts in whole steps of %s"
                             % (what, obj.count, obj.step))


def _check_momentum_correction(what, lars):
    """LARS multiplies its momentum by (the rate now) / cur_lr at its next update: that
    factor must be at most MAX_COEFFICIENT, as a schedule's steps are."""
    if not (lars.momentum_correction and lars.momentum > 0) or not lars.cur_lr:
        return   # no correction, or none after a rate of 0 (as in MXNet)
    # the rate now, from a copy: the scheduler keeps state
    rate = copy.deepcopy(lars.lr_scheduler)(lars.num_update) if lars.lr_scheduler else lars.lr
    if rate / lars.cur_lr > MAX_COEFFICIENT:
        raise MXNetError("the saved %s has cur_lr=%s; its next update would multiply the "
                         "momentum by %s / %s, more than %s"
                         % (what, _short(lars.cur_lr), _short(rate), _short(lars.cur_lr),
                            MAX_COEFFICIENT))


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def rebuild(klass, attrs, what, **given):
    """An instance of ``klass`` made by its constructor from the saved ``attrs``.

    ``given``: constructor arguments from the caller rather than the file. ``what``
    names the object in messages (``'optimizer Adam'``). Raises MXNetError if the
    constructor refuses the saved hyper-parameters or a saved attribute does not fit.
    """
    # A class of the user's may keep its arguments under names of its own: its other
    # attributes are restored as saved, if of the kind its constructor made.
    builtin = klass.__module__.startswith('gluonedu.')
    kwargs = dict(given)
    for name, default in _constructor_parameters(klass).items():
        field, value = _saved_argument(name, attrs)
        if field is not None and name not in kwargs:
            _check_loaded(what, name, field, value, default, builtin)
            kwargs[name] = value
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')   # the file's values were accepted once already
            obj = klass(**kwargs)
    except (MXNetError, ValueError, TypeError, AssertionError, ZeroDivisionError) as err:
        raise MXNetError("the saved %s has hyper-parameters its constructor refuses: %s"
                         % (what, err)) from None
    fresh = vars(obj)
    missing = sorted(set(fresh) - set(attrs) - set(NOT_SAVED))
    if missing:
        raise MXNetError("the saved %s lacks the attributes %s"
                         % (what, ', '.join(missing[:8])))
    state = set(getattr(klass, 'STATE_ATTRS', ()))
    for name, value in attrs.items():
        if name not in fresh:
            raise MXNetError("the saved %s has an attribute %r that %s does not have"
                             % (what, name, klass.__name__))
        if name in state:
            _check_state(what, name, value, fresh[name])
            fresh[name] = value
        elif not builtin:
            if fresh[name] is not None and not isinstance(value, type(fresh[name])):
                raise MXNetError("the saved %s has %s=%s; expected a %s"
                                 % (what, name, _short(value), type(fresh[name]).__name__))
            fresh[name] = value
        elif not _equal(value, fresh[name]):
            raise MXNetError("the saved %s has %s=%s, but its hyper-parameters give %s"
                             % (what, name, _short(value), _short(fresh[name])))
    return obj


def _equal(saved, fresh):
    """Saved and rebuilt values agree (tuples saved as lists, ints as floats allowed)."""
    if isinstance(fresh, (list, tuple)):
        return isinstance(saved, (list, tuple)) and len(saved) == len(fresh) and \
            all(_equal(s, f) for s, f in zip(saved, fresh))
    if isinstance(fresh, dict):
        return isinstance(saved, dict) and saved.keys() == fresh.keys() and \
            all(_equal(saved[k], fresh[k]) for k in fresh)
    if isinstance(fresh, numbers.Real) and not isinstance(fresh, bool):
        return isinstance(saved, numbers.Real) and not isinstance(saved, bool) and \
            (saved == fresh or (saved != saved and fresh != fresh))
    return saved == fresh
