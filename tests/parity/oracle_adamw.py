"""The MXNet 1.9.1 side of the AdamW parity suite (run by the reference interpreter).

    oracle_adamw.py CASES.json INPUTS.npz RESULTS.npz

MXNet 1.9.1 has no AdamW optimizer, only the operators ``mx.nd.contrib.adamw_update``
and ``mp_adamw_update``. For each case this runs them step by step as gluonedu's AdamW
documents it maps onto them: at update ``t`` of a parameter,

    adamw_update(w, g, m, v, rescale_grad=[rescale], lr=c_t, eta=lr_t, wd=wd,
                 beta1, beta2, epsilon[, clip_gradient])

with ``c_t = sqrt(1 - beta2**t) / (1 - beta1**t)`` (1 without ``correct_bias``) and
``lr_t`` the learning rate (MXNet's own scheduler's value at ``t`` when the case has
one). It writes ``"<case id>|w|<k>"``, ``|mean|``, ``|var|`` (and ``|w32|`` for float16
cases), stacked over the steps, plus ``__meta__`` (the MXNet version, errors per case).
"""
import json
import math
import sys
import traceback

import numpy as np

import mxnet as mx


def run_case(case, inputs):
    kw = case['kwargs']
    beta1, beta2 = kw.get('beta1', 0.9), kw.get('beta2', 0.999)
    dtype = case['dtype']
    scheduler = None
    if case.get('scheduler'):
        scheduler = getattr(mx.lr_scheduler, case['scheduler']['type'])(
            **case['scheduler']['kwargs'])
    params = []
    for k in range(case['nparams']):
        weight = mx.nd.array(inputs['%s|w|%d' % (case['id'], k)], dtype=dtype)
        params.append({'w': weight, 'mean': mx.nd.zeros(weight.shape),
                       'var': mx.nd.zeros(weight.shape), 'w32': weight.astype('float32')})
    out = {}
    for step in range(case['steps']):
        t = step + 1
        lr = scheduler(t) if scheduler is not None else kw.get('learning_rate', 0.001)
        c_t = math.sqrt(1. - beta2 ** t) / (1. - beta1 ** t) if kw.get('correct_bias', True) \
            else 1.0
        args = dict(lr=c_t, eta=lr, wd=kw.get('wd', 0.0), beta1=beta1, beta2=beta2,
                    epsilon=kw.get('epsilon', 1e-6),
                    rescale_grad=mx.nd.array([case['rescale'][step]]))
        if kw.get('clip_gradient'):
            args['clip_gradient'] = kw['clip_gradient']
        for k, p in enumerate(params):
            grad = mx.nd.array(inputs['%s|g|%d' % (case['id'], k)][step], dtype=dtype)
            if dtype == 'float16':
                mx.nd.contrib.mp_adamw_update(p['w'], grad, p['mean'], p['var'], p['w32'],
                                              out=p['w'], **args)
            else:
                mx.nd.contrib.adamw_update(p['w'], grad, p['mean'], p['var'], out=p['w'],
                                           **args)
            for name in ('w', 'mean', 'var') + (('w32',) if dtype == 'float16' else ()):
                out.setdefault('%s|%s|%d' % (case['id'], name, k), []).append(
                    p[name].asnumpy())
    return {key: np.stack(values) for key, values in out.items()}


def main(cases_path, inputs_path, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    with np.load(inputs_path) as data:
        inputs = {key: data[key] for key in data.files}
    results, errors = {}, {}
    for case in cases:
        try:
            results.update(run_case(case, inputs))
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case['id']] = {'type': type(exc).__name__, 'message': str(exc)[-2000:],
                                  'traceback': traceback.format_exc(limit=4)}
    results['__meta__'] = np.array(json.dumps({'mxnet_version': mx.__version__,
                                               'errors': errors}))
    np.savez(results_path, **results)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: oracle_adamw.py CASES.json INPUTS.npz RESULTS.npz')
    main(*sys.argv[1:])
