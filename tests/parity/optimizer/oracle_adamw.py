"""The MXNet 1.9.1 side of the AdamW parity suite (run by the reference interpreter).

    oracle_main.py oracle_adamw.py

MXNet 1.9.1 has no AdamW optimizer, only the operators ``mx.nd.contrib.adamw_update``
and ``mp_adamw_update``. For each case this runs them step by step as gluonedu's AdamW
documents it maps onto them: at update ``t`` of a parameter,

    adamw_update(w, g, m, v, rescale_grad=[rescale], lr=c_t, eta=lr_t, wd=wd,
                 beta1, beta2, epsilon[, clip_gradient])

with ``c_t = sqrt(1 - beta2**t) / (1 - beta1**t)`` (1 without ``correct_bias``) and
``lr_t`` the learning rate (MXNet's own scheduler's value at ``t`` when the case has
one). Its results (:mod:`oracle_io`) are ``"<case id>|w|<k>"``, ``|mean|``, ``|var|``
(and ``|w32|`` for float16 cases), stacked over the steps.
"""
import functools
import math

import numpy as np

import mxnet as mx

import oracle_io


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
                out.setdefault('%s|%d' % (name, k), []).append(
                    p[name].asnumpy())
    return {key: np.stack(values) for key, values in out.items()}


if __name__ == '__main__':
    cases, inputs = oracle_io.load_cases(), oracle_io.load_inputs()
    oracle_io.save_results(*oracle_io.run_each(
        [(case['id'], functools.partial(run_case, case, inputs)) for case in cases]))
