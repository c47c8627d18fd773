"""The modules of gluonedu.optimizer import one another without a cycle.

Every import counts, at module level or inside a function (a deferred import that
closes a cycle is still a knot in the design).
"""
import ast
import pathlib

import gluonedu

ROOT = pathlib.Path(gluonedu.__file__).parent.parent
PACKAGE = ROOT / 'gluonedu' / 'optimizer'


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _imports(path, name, modules):
    """The gluonedu.optimizer modules that module ``name`` (at ``path``) imports: for
    ``from package import name``, the submodule if ``name`` is one, else the package."""
    package = name if path.name == '__init__.py' else name.rsplit('.', 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split('.')[:len(package.split('.')) - node.level + 1]
                module = '.'.join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            for alias in node.names:
                sub = '%s.%s' % (module, alias.name)
                found.add(sub if sub in modules else module)
    return {m for m in found if m in modules and m != name}


def test_no_import_cycles_inside_the_optimizer_package():
    modules = {_module_name(p): p for p in PACKAGE.rglob('*.py')}
    graph = {name: _imports(path, name, modules) for name, path in modules.items()}
    state = {}

    def visit(name, trail):
        state[name] = 'open'
        for target in sorted(graph[name]):
            if state.get(target) == 'open':
                raise AssertionError('import cycle: ' + ' -> '.join(
                    trail[trail.index(target):] + [target]))
            if target not in state:
                visit(target, trail + [target])
        state[name] = 'done'

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
