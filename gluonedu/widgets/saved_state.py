"""Keep the saved widget state a notebook's outputs still need when JupyterLab saves it.

JupyterLab's widget manager (with ``saveState`` on, as `make lab` sets it) writes into
``metadata.widgets`` the state of the widget models that are live in the kernel only.
The models it restored from the file when the notebook opened are not live: a lesson
opened, edited and saved before its widget cells run again is written with an empty
widget state, and the next time it opens every widget says "Error displaying widget:
model not found" (and git sees a change).

:func:`keep_restored_widgets` is a jupyter-server pre-save hook: when an output of the
notebook being saved shows a model the new widget state lacks, it takes the models the
new state lacks from the copy on disk. Live models keep their new state, and a notebook
whose widgets all ran again is saved as JupyterLab sends it. `make lab` installs it
(etc/jupyter/jupyter_server_config.json)::

    {"ContentsManager": {"pre_save_hook": "gluonedu.widgets.saved_state.keep_restored_widgets"}}

Standard library only: it runs inside the Jupyter server.
"""
import json
import os

WIDGET_STATE = 'application/vnd.jupyter.widget-state+json'
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'


def shown_models(notebook):
    """The model ids the widget views in a notebook's outputs show, in order."""
    return [output['data'][WIDGET_VIEW]['model_id']
            for cell in notebook.get('cells', ()) if cell.get('cell_type') == 'code'
            for output in cell.get('outputs', ())
            if isinstance(output.get('data'), dict) and WIDGET_VIEW in output['data']]


def widget_state(notebook):
    """The ``{model id: model}`` table of a notebook's saved widget state ({} if none)."""
    saved = notebook.get('metadata', {}).get('widgets', {}).get(WIDGET_STATE, {})
    return saved.get('state', {})


def merge_restored(notebook, saved):
    """Add to ``notebook``'s widget state the models of ``saved`` (the copy on disk) that
    it lacks, if its outputs show a model that only ``saved`` holds; return how many were
    added.

    The whole saved state, not only the shown models: a model the outputs show refers
    to others (its layout, its style, a box's children), and the kernel that saved the
    file may have held models no output shows (a playground's sliders for another
    optimizer). The added models keep their order in ``saved``, after the live ones, so
    a notebook opened and saved unchanged is written back as it was.
    """
    state = widget_state(notebook)
    old_state = widget_state(saved)
    if not any(model_id not in state and model_id in old_state
               for model_id in shown_models(notebook)):
        return 0
    old = saved['metadata']['widgets'][WIDGET_STATE]
    new = notebook.setdefault('metadata', {}).setdefault('widgets', {}).get(WIDGET_STATE)
    if new is None:
        new = {key: value for key, value in old.items() if key != 'state'}
    merged = dict(state)
    merged.update((model_id, model) for model_id, model in old_state.items()
                  if model_id not in state)
    notebook['metadata']['widgets'][WIDGET_STATE] = dict(new, state=merged)
    return len(merged) - len(state)


def keep_restored_widgets(model, path, contents_manager, **_):
    """jupyter-server pre-save hook: see the module's docstring.

    It reads the copy on disk itself: the hook is called synchronously, also by the
    asynchronous contents managers JupyterLab uses, whose ``get`` is a coroutine.
    """
    if model.get('type') != 'notebook' or not isinstance(model.get('content'), dict):
        return
    notebook = model['content']
    if all(model_id in widget_state(notebook) for model_id in shown_models(notebook)):
        return
    os_path = os.path.join(contents_manager.root_dir, *path.strip('/').split('/'))
    try:
        with open(os_path, encoding='utf-8') as file:
            saved = json.load(file)
    except (OSError, ValueError):     # a new notebook, or one that is not JSON
        return
    if not isinstance(saved, dict):
        return
    added = merge_restored(notebook, saved)
    if added:
        contents_manager.log.info('%s: kept %d widget models of the saved state (its '
                                  'outputs show models the kernel does not hold)', path, added)
