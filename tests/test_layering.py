"""Imports only point down the layers of DESIGN.md §2, and no new import circle appears.

Every ``import`` and ``from ... import`` in gluonedu — at module level and inside functions
alike, since a deferred import is still a dependency — is checked against ``LAYERS``: a
module may import its own package or a package of a lower layer, never one of its own
layer or above. So the training core (everything below ``instrument``) can never import
the Recorder, ``viz`` or ``widgets``; it reports through ``instrument.events``, which sits
at the bottom.

Inside a package, modules may import each other in any direction, but not in a circle:
the circles left (``KNOWN_CIRCLES``) may only shrink.

A package here is a top-level part of gluonedu (``ndarray``, ``gluon``, ``autograd``, ...);
``instrument.events`` counts apart from the rest of ``instrument``.
"""
import ast
import pathlib

import gluonedu

ROOT = pathlib.Path(gluonedu.__file__).parent

# Lowest first. A package may import the packages of the layers before its own.
LAYERS = (
    ('base', 'files', 'util', 'attribute', 'name', 'instrument.events', '_numba'),
    ('_backend',),
    ('context',),
    ('ndarray',),
    ('autograd', 'initializer', 'random', 'test_utils_numeric', 'io', 'metric', 'toy_data'),
    ('symbol', 'image', 'test_utils', 'lr_scheduler'),
    ('optimizer',),
    ('kvstore',),
    ('gluon', 'module', 'launch'),
    ('instrument',),
    ('viz',),
    ('widgets', 'contrib'),
    ('__init__',),
)
LAYER = {package: rank for rank, packages in enumerate(LAYERS) for package in packages}

# Imports that point up, each with why it is there. This list may only shrink: a new
# upward import fails the test, and so does an entry that no longer matches one.
KNOWN_UPWARD = {
    # NDArray.backward is MXNet's API on the array; autograd sits above ndarray.
    ('gluonedu/ndarray/ndarray.py', 'autograd'),
    # autograd.get_symbol is MXNet's API; it builds a Symbol, which sits above autograd.
    ('gluonedu/autograd.py', 'symbol'),
}

# Import circles among modules not yet untied, each named by one module in it. Like
# KNOWN_UPWARD, the list may only shrink.
KNOWN_CIRCLES = {
    # Block.summary skips the Sequential containers, and block re-exports SymbolBlock
    # (MXNet's gluon.block.SymbolBlock), which builds on HybridBlock.
    'gluonedu.gluon.block',
    # NDArray.backward calls autograd, and autograd.get_symbol builds a Symbol; the
    # operators reach the tape through the ndarray package.
    'gluonedu.autograd',
}


def _package(module):
    """The package of a dotted module name: ``gluonedu.gluon.nn.basic_layers`` -> ``gluon``."""
    parts = module.split('.')
    if len(parts) == 1:
        return '__init__'
    if parts[1:3] == ['instrument', 'events']:
        return 'instrument.events'
    return parts[1]


def _module_name(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix('').parts)
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _imported_modules(path):
    """(line, dotted name) of every gluonedu module or name each import statement names."""
    module = _module_name(path)
    package_parts = module.split('.') if path.name == '__init__.py' else module.split('.')[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[:len(package_parts) - (node.level - 1)]
                source = '.'.join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            # ``from . import x`` names module x; ``from .m import f`` names m.f (in m).
            names = ['%s.%s' % (source, alias.name) for alias in node.names]
        else:
            continue
        for name in names:
            if name == 'gluonedu' or name.startswith('gluonedu.'):
                yield node.lineno, name


def _module_graph():
    """Module -> the gluonedu modules it imports (a name inside a module counts as it)."""
    modules = {_module_name(path): path for path in ROOT.rglob('*.py')}
    graph = {}
    for module, path in modules.items():
        graph[module] = set()
        for _, name in _imported_modules(path):
            while name not in modules:
                name = name.rpartition('.')[0]
            if name != module:
                graph[module].add(name)
    return graph


def _circles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while module not in component:
                component.add(stack.pop())
            on_stack.difference_update(component)
            if len(component) > 1:
                circles.append(component)

    for module in graph:
        if module not in index:
            visit(module)
    return circles


def _imports():
    """(path, line, importing package, imported package) for imports across packages."""
    for path in sorted(ROOT.rglob('*.py')):
        package = _package(_module_name(path))
        for line, name in _imported_modules(path):
            target = _package(name)
            if target != package:
                yield path.relative_to(ROOT.parent).as_posix(), line, package, target


def test_every_package_has_a_layer():
    packages = {_package(_module_name(path)) for path in ROOT.rglob('*.py')}
    assert packages - set(LAYER) == set(), 'give these packages a layer in LAYERS'


def test_imports_point_down_the_layers():
    upward, known_seen = [], set()
    for path, line, package, target in _imports():
        if LAYER[target] < LAYER[package]:
            continue
        if (path, target) in KNOWN_UPWARD:
            known_seen.add((path, target))
            continue
        upward.append('%s:%d: %s (layer %d) imports %s (layer %d)' % (
            path, line, package, LAYER[package], target, LAYER[target]))
    assert upward == [], 'imports that point up or sideways:\n' + '\n'.join(upward)
    assert KNOWN_UPWARD - known_seen == set(), \
        'these known exceptions are gone: remove them from KNOWN_UPWARD'


def test_the_training_core_never_imports_instrument_viz_or_widgets():
    presentation = {'instrument', 'viz', 'widgets'}
    core = {package for package, rank in LAYER.items() if rank < LAYER['instrument']}
    found = ['%s:%d imports %s' % (path, line, target) for path, line, package, target
             in _imports() if package in core and target in presentation]
    assert found == []


def test_no_new_import_circles():
    circles = _circles(_module_graph())
    new = [sorted(circle) for circle in circles if not circle & KNOWN_CIRCLES]
    assert new == [], 'import circles among modules:\n' + '\n'.join(map(str, new))
    untied = {anchor for anchor in KNOWN_CIRCLES if not any(anchor in c for c in circles)}
    assert untied == set(), 'these circles are untied: remove them from KNOWN_CIRCLES'
