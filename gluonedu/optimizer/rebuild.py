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
``wd=nan``, ``rescale_grad=-1`` or ``clip_gradient=nan`` (and gluonedu's keep MXNet's
behaviour), but no training saves such values on purpose, and loaded they make every
weight garbage. So every number among a saved object's hyper-parameters must be finite,
a flag must be a bool, and :data:`LOADED_RANGES` bounds the ones the constructors leave
open (docs/divergences.md, "State files: hyper-parameters MXNet would accept").
"""
import math
import numbers
import warnings

from ..base import MXNetError
from .keywords import constructor_keywords

__all__ = ['rebuild', 'LOADED_RANGES', 'NOT_SAVED']

#: Hyper-parameters a state file must keep in range although the constructors (as MXNet's)
#: accept more: name -> (lowest value, whether the lowest value itself is refused).
#: (clip_gradient is open: a negative one means "no clipping", as in MXNet.)
LOADED_RANGES = {'wd': (0, False), 'rescale_grad': (0, True), 'wd_lh': (0, False),
                 'lamda': (0, False), 'begin_num_update': (0, False),
                 'schedule_decay': (0, False), 'base_lr': (0, False), 'final_lr': (0, False),
                 'warmup_begin_lr': (0, False), 'stop_factor_lr': (0, False)}

#: Constructor arguments the instance keeps under another name.
_STORED_AS = {'learning_rate': 'lr', 'param_idx2name': 'idx2name', 'eps': 'float_stable_eps',
              'pwr': 'power', 'base_lr': 'warmup_final_lr'}
#: Passed by the caller, not by the file.
_NOT_FROM_FILE = ('lr_scheduler', 'param_dict', 'sym')
#: Attributes a state file does not hold (the live parameters; an alias of a table).
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


def _check_state(what, name, value, fresh):
    """``value`` (saved) has the kind of ``fresh`` (what the constructor made): numbers
    (counts, rates, multipliers) finite and non-negative, counts ints."""
    if fresh is None:   # a value not known yet (LARS's last rate): None or a number
        ok = value is None or _number(value)
    elif isinstance(fresh, (bool, str)):
        ok = type(value) is type(fresh)
    elif isinstance(fresh, numbers.Integral):
        ok = _number(value) and isinstance(value, numbers.Integral)
    elif isinstance(fresh, numbers.Real):
        ok = _number(value)
    elif isinstance(fresh, (dict, list, tuple)):
        ok = isinstance(value, type(fresh)) and _numbers_fit(value)
    else:
        ok = isinstance(value, type(fresh))
    if not ok:
        raise MXNetError("the saved %s has %s=%s; expected %s"
                         % (what, name, _short(value), _kind(fresh)))


def _check_loaded(what, name, field, value, default):
    """Constructor argument ``name``, saved as ``field``: a flag (``default`` a bool) a
    bool, a number finite and in :data:`LOADED_RANGES` (which the constructor need not
    check)."""
    if isinstance(default, bool) and not isinstance(value, bool):
        raise MXNetError("the saved %s has %s=%s; expected True or False"
                         % (what, field, _short(value)))
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return
    low, open_low = LOADED_RANGES.get(name, (None, False))
    if not math.isfinite(value) or (low is not None and (value < low or
                                                         (open_low and value == low))):
        raise MXNetError("the saved %s has %s=%s; a state file's %s must be a finite "
                         "number%s" % (what, field, _short(value), field,
                                       '' if low is None else ' %s %s'
                                       % ('>' if open_low else '>=', low)))


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and \
        math.isfinite(value) and value >= 0


def _numbers_fit(value):
    """Every number in a nested dict/list/tuple is finite and non-negative."""
    if isinstance(value, dict):
        return all(_numbers_fit(k) and _numbers_fit(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(_numbers_fit(v) for v in value)
    return _number(value) if isinstance(value, numbers.Real) else True


def _kind(value):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return 'a count (an int >= 0)'
    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        return 'a finite number >= 0'
    if isinstance(value, (dict, list, tuple)):
        return 'a %s of finite numbers >= 0' % type(value).__name__
    return 'a %s' % type(value).__name__


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def rebuild(klass, attrs, what, **given):
    """An instance of ``klass`` made by its constructor from the saved ``attrs``.

    ``given``: constructor arguments from the caller rather than the file. ``what``
    names the object in messages (``'optimizer Adam'``). Raises MXNetError if the
    constructor refuses the saved hyper-parameters or a saved attribute does not fit.
    """
    kwargs = dict(given)
    for name, default in _constructor_parameters(klass).items():
        field, value = _saved_argument(name, attrs)
        if field is not None and name not in kwargs:
            _check_loaded(what, name, field, value, default)
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
    # A class of the user's may keep its arguments under names of its own: its other
    # attributes are restored as saved, if of the kind its constructor made.
    builtin = klass.__module__.startswith('gluonedu.')
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
