"""Every operator of gluonedu's table is declared as MXNet 1.9.1 declares it.

One oracle run prints MXNet's registry entry of every name and alias in the table
(``oracle_registry_mxnet.py``); for each operator the test compares: the name is MXNet's
real name and every alias resolves to it, the array inputs (names and order), the
parameters (names and order), each parameter's type text, required-ness and default (MXNet's
default text parsed by our parameter must give our default).
"""
import json
import re
from pathlib import Path

import pytest

from harness import run_oracle

from gluonedu.ndarray import registry

ORACLE_SCRIPT = Path(__file__).with_name('oracle_registry_mxnet.py')
OPS = registry.list_ops()
#: Where MXNet 1.9.1's registry text is wrong about the operator it runs.
REGISTRY_QUIRKS = {
    '_linspace': "its registry text lists _arange's parameters (step, repeat, infer_range); "
                 "the operator parses start, stop, num, endpoint, ctx, dtype",
}
_ARG_TEXT = re.compile(r"^(?P<type>\{.*\}|.+?),\s*(?P<kind>optional|required)"
                       r"(?:,\s*default=(?P<default>.*))?$")


@pytest.fixture(scope='module')
def mxnet_registry(tmp_path_factory):
    names = sorted({n for op in OPS for n in (op.name,) + op.aliases})
    results, _ = run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_registry'),
                            cases=names)
    return json.loads(str(results['registry']))


def _mxnet_default(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        text = text[1:-1]
    return text


def _differences(op, entry):
    """What differs between our declaration of ``op`` and MXNet's ``entry``."""
    problems = []
    # an operator's array inputs are 'NDArray-or-Symbol'; a legacy NDArray-only function's
    # (all_finite, fill_element_0index, _onehot_encode) are 'NDArray'
    inputs = [(n, t) for n, t in entry['args'] if t.startswith('NDArray')]
    theirs = ['*' + n if t.endswith('[]') else n for n, t in inputs]
    ours = ['*' + op.input_names[0]] if op.variadic else list(op.input_names)
    if theirs != ours:
        problems.append('inputs: ours %s, MXNet %s' % (ours, theirs))
    params = [(n, t) for n, t in entry['args'] if not t.startswith('NDArray')]
    ours = [n for n in op.params if not (op.variadic and n == 'num_args')]
    theirs = [n for n, _ in params if not (op.variadic and n == 'num_args')]
    if ours != theirs:
        problems.append('parameters: ours %s, MXNet %s' % (ours, theirs))
    for name, text in params:
        param = op.params.get(name)
        match = _ARG_TEXT.match(text)
        if param is None or match is None:
            continue
        if param.type_name != match.group('type'):
            problems.append('%s: type %r, MXNet %r' % (name, param.type_name, match.group('type')))
        if param.required != (match.group('kind') == 'required'):
            problems.append('%s: required=%s, MXNet says %s' % (name, param.required, text))
        elif not param.required:
            default = param.parse(_mxnet_default(match.group('default')))
            if default != param.default:
                problems.append('%s: default %r, MXNet %r' % (name, param.default, default))
    return problems


@pytest.mark.parametrize('op', OPS, ids=[op.name for op in OPS])
def test_operator_is_declared_as_in_mxnet(op, mxnet_registry):
    entry = mxnet_registry.get(op.name)
    assert entry is not None, '%s is not an operator of MXNet 1.9.1' % op.name
    assert entry['name'] == op.name, '%s is an alias of %s in MXNet' % (op.name, entry['name'])
    for alias in op.aliases:
        alias_entry = mxnet_registry.get(alias)
        assert alias_entry is not None and alias_entry['name'] == op.name, \
            'alias %s: MXNet resolves it to %s' % (alias, alias_entry and alias_entry['name'])
    if op.name in REGISTRY_QUIRKS:
        return
    problems = _differences(op, entry)
    assert not problems, '%s differs from MXNet 1.9.1:\n  %s' % (op.name, '\n  '.join(problems))
