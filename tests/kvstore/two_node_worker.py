"""A worker script for the two-node test: train the digits MLP, save the final model.

Run by ``python -m gluonedu.launch``; environment: KV_TYPE, STEPS, OUT_DIR (the final
weights go to OUT_DIR/rank<r>.npz). dist_helpers is found through PYTHONPATH.
"""
import os

import numpy as np

import dist_helpers as helpers

result = helpers.train_digits(os.environ['KV_TYPE'], int(os.environ['STEPS']),
                              optimizer_params={'learning_rate': 0.1, 'momentum': 0.9},
                              pull_final=True)
np.savez(os.path.join(os.environ['OUT_DIR'], 'rank%d.npz' % result['rank']),
         *result['weights'])
print('rank %d of %d done' % (result['rank'], result['num_workers']), flush=True)
