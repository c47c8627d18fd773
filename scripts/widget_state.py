"""Save a notebook's widget state as JupyterLab saves it, so that opening it changes nothing.

nbclient (``make execute``) saves the widget state (``metadata.widgets``) with Python's
numbers: a float slider's ``min`` of 0 is ``0.0``. JupyterLab's widget manager, which
saves widget state too (etc/jupyterlab/overrides.json), loads that state when the
notebook opens and holds it as JavaScript numbers, for which 0.0 is 0: the notebook is
modified the moment it opens, autosaved as ``0``, and git reports a change. Here every
whole float in the widget state becomes the integer JupyterLab would write back.

``python scripts/widget_state.py NOTEBOOK...`` rewrites the notebooks in place (``make
execute`` runs it after executing); tests/test_notebook_files.py holds the curriculum so.
"""
import sys

import nbformat


def as_javascript_saves(value):
    """``value`` (JSON data) with every whole float as an integer, as a JavaScript
    number is written back to JSON."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: as_javascript_saves(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_javascript_saves(item) for item in value]
    return value


def rewrite(path):
    """Rewrite the notebook at ``path`` with its widget state as JupyterLab saves it."""
    notebook = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    if 'widgets' in notebook.metadata:
        notebook.metadata['widgets'] = as_javascript_saves(notebook.metadata['widgets'])
        nbformat.write(notebook, str(path))


if __name__ == '__main__':
    for name in sys.argv[1:]:
        rewrite(name)
