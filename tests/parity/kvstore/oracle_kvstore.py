"""The MXNet 1.9.1 side of the KVStore parity suite (run by the reference interpreter:
``oracle_main.py oracle_kvstore.py``).

Runs :func:`kvstore_parity_driver.run_kvstore_case` on every case with the real ``mxnet``;
its results (:mod:`oracle_io`) are ``"<case id>|<name>"`` arrays (a failing case never
stops the others).
"""
import mxnet as mx

import kvstore_parity_driver
import oracle_io


def run_case(case):
    out = kvstore_parity_driver.run_kvstore_case(mx, case)
    mx.nd.waitall()  # MXNet reports asynchronous errors here
    return out


if __name__ == '__main__':
    oracle_io.save_results(*oracle_io.run_each(
        [(case['id'], lambda case=case: run_case(case)) for case in oracle_io.load_cases()]))
