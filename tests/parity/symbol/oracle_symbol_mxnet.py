"""The MXNet 1.9.1 side of the symbol parity suite: every case once, in order.

Run by the reference interpreter (never importing gluonedu): ``oracle_main.py
oracle_symbol_mxnet.py``. Cases read and write files in the working directory (gluonedu's
exports are there before this runs). The results (:mod:`oracle_io`) hold each successful
case's arrays under ``"<id>|<name>"`` and, in their meta, every case's outcome.
"""
import os
import warnings

import mxnet as mx

import oracle_io
import symbol_driver


def main():
    cases, inputs = oracle_io.load_cases(), oracle_io.load_inputs()
    workdir = os.getcwd()
    results, outcomes = {}, {}
    for case in cases:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            outcome = symbol_driver.run_case(mx, case, inputs, workdir, 'mxnet')
        if outcome[0] == 'ok':
            outcomes[case['id']] = {'status': 'ok'}
            for name, array in outcome[1].items():
                results[case['id'] + '|' + name] = array
        else:
            outcomes[case['id']] = {'status': 'error', 'type': outcome[1],
                                    'message': outcome[2]}
    oracle_io.save_results(results, outcomes=outcomes)


if __name__ == '__main__':
    main()
