"""The MXNet 1.9.1 side of the Trainer parity suite: run every case once, write the results.

Run by the reference interpreter (``.venv-mxnet/bin/python``), never importing gluonedu:
``oracle_main.py oracle_trainer_mxnet.py``. The cases are :mod:`trainer_driver` cases;
the results (:mod:`oracle_io`) hold, per case, the arrays of
:func:`trainer_driver.run_trainer_case` under ``"<id>|<name>"`` (a failing case never
stops the others). State files go to the working directory.
"""
import os

import mxnet as mx

import oracle_io
import trainer_driver

if __name__ == '__main__':
    cases, inputs = oracle_io.load_cases(), oracle_io.load_inputs()
    oracle_io.save_results(*oracle_io.run_each(
        [(case['id'], lambda case=case: trainer_driver.run_trainer_case(mx, case, inputs,
                                                                        os.getcwd()))
         for case in cases]))
