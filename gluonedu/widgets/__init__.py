"""``gluonedu.widgets``: ipywidgets views of the training machinery (ipywidgets 8).

* :class:`OptimizerPlayground` -- a real optimizer on a 2-D landscape; its
  hyperparameters on sliders built from the optimizer's constructor signature.
* :class:`TrainingDashboard` -- loss, effective lr and norms from a Recorder, redrawn in
  place (throttled) while a loop trains.
* :class:`ScheduleExplorer` -- an lr scheduler's curve under slider-controlled settings.
* :class:`MomentumExplorer` -- momentum on a quadratic bowl: the path and the error along
  each eigendirection against the predicted rate (:func:`convergence_rate`).

Every widget is a plain object whose logic is plain methods (``set``, ``update``,
``values``, ``summary``); the ipywidgets view (``.widget``, or just display the object)
calls those same methods from its callbacks and shows ``summary()`` beside the picture.
So a test, or a notebook checked by nbval (which fires no callbacks), sees exactly what
a click produces. The training core never imports this package; ``mx.widgets`` loads it
on first use.
"""
from .playground import (OptimizerPlayground, HyperParameter, hyperparameters,
                         dropdown_optimizers)
from .dashboard import TrainingDashboard
from .schedules import ScheduleExplorer, SCHEDULERS
from .momentum import MomentumExplorer, convergence_rate

__all__ = ['OptimizerPlayground', 'HyperParameter', 'hyperparameters', 'dropdown_optimizers',
           'TrainingDashboard', 'ScheduleExplorer', 'SCHEDULERS', 'MomentumExplorer',
           'convergence_rate']
