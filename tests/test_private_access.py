"""No module reads or writes another package's private attributes.

A package here is a top-level part of gluonedu: a subpackage (``ndarray``, ``optimizer``,
``gluon``, ``kvstore``, ...) or a module at the top (``autograd``, ``context``, ...).
What a package offers the others has a public name — ``NDArray.handle``,
``ndarray.ndarray.set_handle``, ``Trainer.use_loss_scaler``, ``optimizer.FusedUpdater``
— so that one package's insides can change without breaking another's.

Checked from the source: every ``x._name`` (``x`` other than ``self``/``cls``) and every
``from module import _name`` of a function or class must name something its own package
defines. The check goes by name, not by type: a private name that two packages both
define (``_data``: NDArray's and Parameter's) passes in either of them.
"""
import ast
import collections
import pathlib

import gluonedu

ROOT = pathlib.Path(gluonedu.__file__).parent


def _package(path):
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else parts[0][:-len('.py')]


def _is_private(name):
    return name.startswith('_') and not name.startswith('__')


def _private_definitions(tree):
    """The private names a module defines: its globals, functions and classes, and the
    attributes of its classes and their instances."""
    names = {target.id for node in tree.body if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)}   # module globals
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.Assign):
                    for target in item.targets:
                        if isinstance(target, ast.Name):
                            names.add(target.id)
                            if target.id == '__slots__' and \
                                    isinstance(item.value, (ast.Tuple, ast.List)):
                                names.update(e.value for e in item.value.elts
                                             if isinstance(e, ast.Constant))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls'):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.col_offset == 0:
            names.add(node.name)
    return {n for n in names if _is_private(n)}


def _foreign_uses(tree):
    """(line, private name, how) of each private attribute or imported private name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr) and not (
                isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls')):
            yield node.lineno, node.attr, '%s.%s' % (ast.unparse(node.value), node.attr)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if _is_private(alias.name):
                    yield node.lineno, alias.name, 'from %s import %s' % (
                        '.' * node.level + (node.module or ''), alias.name)


def test_no_module_touches_another_packages_private_names():
    modules = {path: ast.parse(path.read_text()) for path in ROOT.rglob('*.py')}
    private_modules = {p.stem for p in ROOT.rglob('_*.py')} | \
        {p.name for p in ROOT.rglob('_*') if p.is_dir()}
    owners = collections.defaultdict(set)   # private name -> the packages defining it
    for path, tree in modules.items():
        for name in _private_definitions(tree):
            owners[name].add(_package(path))
    found = []
    for path, tree in modules.items():
        package = _package(path)
        for line, name, text in _foreign_uses(tree):
            defined_by = owners.get(name)
            if name in private_modules or not defined_by or package in defined_by:
                continue   # a module, a name nobody defines (a library's), or our own
            found.append('%s:%d: %s (private to %s)' % (
                path.relative_to(ROOT.parent), line, text, ', '.join(sorted(defined_by))))
    assert found == [], 'private names used across packages:\n' + '\n'.join(found)
