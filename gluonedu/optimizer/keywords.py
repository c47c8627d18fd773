"""The keywords a constructor accepts, and the error for one it does not.

``Trainer(params, 'sgd', {'lr': 0.1})`` fails as it does in MXNet, with a ``TypeError``,
but the message names the keyword meant (``learning_rate``) and lists the valid ones.
"""
import difflib
import inspect

__all__ = ['constructor_keywords', 'unknown_keyword_error']

#: Other frameworks' names (PyTorch's, Keras's) for MXNet's optimizer keywords; each is
#: suggested only where the optimizer takes it.
SYNONYMS = {'lr': ('learning_rate',), 'weight_decay': ('wd',), 'betas': ('beta1', 'beta2'),
            'momentum': ('beta1',), 'eps': ('epsilon',), 'epsilon': ('eps',),
            'alpha': ('gamma1',), 'clipvalue': ('clip_gradient',)}


def constructor_keywords(klass):
    """``{name: default}`` of the keywords ``klass(...)`` accepts, following ``**kwargs``
    up the MRO (``inspect.Parameter.empty`` where there is no default)."""
    found = {}
    for cls in klass.__mro__:
        if '__init__' not in vars(cls):
            continue
        params = list(inspect.signature(vars(cls)['__init__']).parameters.values())[1:]
        for p in params:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                found.setdefault(p.name, p.default)
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
    return found


def _suggestion(key, accepted):
    meant = [name for name in SYNONYMS.get(key, ()) if name in accepted]
    if meant:
        return ' (did you mean %s?)' % ' and '.join(map(repr, meant))
    close = difflib.get_close_matches(key, accepted, n=2)
    return ' (did you mean %s?)' % ' or '.join(map(repr, close)) if close else ''


def unknown_keyword_error(klass, kwargs, error):
    """The ``TypeError`` to raise when ``klass(**kwargs)`` raised ``error`` over a keyword
    it does not take: it names the keyword meant and lists the valid ones. None if
    ``error`` has another cause (an optimizer of the user's may take keywords that its
    signature does not show)."""
    accepted = constructor_keywords(klass)
    unknown = [key for key in kwargs if key not in accepted and repr(key) in str(error)]
    if not unknown:
        return None
    key = unknown[0]
    return TypeError("%s got an unexpected keyword argument %r%s. Its keywords are: %s."
                     % (klass.__name__, key, _suggestion(key, accepted),
                        ', '.join(sorted(accepted))))
