"""Each kernel's CUDA C, translated from its Python rule (no second copy of the formula).

A rule (:mod:`gluonedu.optimizer.fastpath`) is a small float32 function of one element.
:func:`cuda_source` reads its source and writes it again in C, statement by statement,
as a ``__device__`` function: the rule's arguments become ``float`` parameters (taken by
value, so the rule may reassign them as in Python), its return values are written
through one ``float &out_<name>`` reference per written array, and every plain Python
function it calls (``clipped``, ``_step_of``, ...) becomes a ``__device__`` function of
its own. For Adam::

    __device__ void adam(float weight, float grad, float mean, float var, float lr, ...,
                         float &out_weight, float &out_mean, float &out_var) {
        grad = grad * rescale + wd * weight;
        if (clip > 0.0f) {
            grad = clipped(grad, clip);
        }
        ...
        out_weight = weight - lr * mean / (sqrtf(var) + epsilon);
        ...
    }

The subset translated is what element-wise rules need: assignments (``+=`` too), ``if``
/ ``elif`` / ``else``, ``return``, ``+ - * /``, unary ``-``, comparisons, ``and`` /
``or`` / ``not``, conditional expressions, calls of plain Python functions, and the
NumPy functions of :data:`FUNCTIONS`. Anything else raises :class:`TranslationError`
naming the line. Numbers may appear only as operands of comparisons (``clip > 0``):
numba computes ``1 - x`` in float64, so a rule receives such values as constants.

Float32 semantics are NumPy's: the parentheses are the rule's (C's precedence and
left-to-right grouping of ``+ - * /`` are Python's), nothing is contracted into a fused
multiply-add (the CuPy backend compiles with ``--fmad=false``), ``sqrtf`` is correctly
rounded like ``np.sqrt``, ``np.maximum`` / ``np.minimum`` / ``np.sign`` propagate NaN as
NumPy's do (``fmaxf`` would not), and a comparison used as a number is 0 or 1. Only
``np.exp``, ``np.log`` and ``np.tanh`` can differ, by the last bits: CUDA's ``expf``,
``logf`` and ``tanhf`` are within 2 ulp of the exact value, not correctly rounded.
"""
import ast
import functools
import inspect
import math
import textwrap
import types

import numpy as np

__all__ = ['cuda_source', 'TranslationError', 'FUNCTIONS']


class TranslationError(ValueError):
    """A rule uses Python the translator does not put into C."""


# NumPy's NaN-propagating element functions, as NumPy's own loops define them.
_NUMPY_HELPERS = {
    'np_maximum': '(float a, float b) { return (a >= b || a != a) ? a : b; }',
    'np_minimum': '(float a, float b) { return (a <= b || a != a) ? a : b; }',
    'np_sign': '(float a) { return a > 0.0f ? 1.0f : a < 0.0f ? -1.0f : a == 0.0f ? 0.0f : a; }',
    'py_max': '(float a, float b) { return b > a ? b : a; }',   # Python's: the first of equals
    'py_min': '(float a, float b) { return b < a ? b : a; }',
}

#: The functions a rule may call besides plain Python ones: (C name, number of arguments).
FUNCTIONS = {
    np.sqrt: ('sqrtf', 1), np.abs: ('fabsf', 1), abs: ('fabsf', 1),
    np.exp: ('expf', 1), np.log: ('logf', 1), np.tanh: ('tanhf', 1),
    np.sign: ('np_sign', 1), np.maximum: ('np_maximum', 2), np.minimum: ('np_minimum', 2),
    max: ('py_max', 2), min: ('py_min', 2),
}

_BINARY = {ast.Add: ('+', 1), ast.Sub: ('-', 1), ast.Mult: ('*', 2), ast.Div: ('/', 2)}
_COMPARE = {ast.Gt: '>', ast.GtE: '>=', ast.Lt: '<', ast.LtE: '<=', ast.Eq: '==',
            ast.NotEq: '!='}
_UNARY_PRECEDENCE = 3
_ATOM = 4


def _float_literal(value):
    """``value`` as a C float literal, if float32 holds it exactly."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    single = np.float32(value)
    if not math.isfinite(value) or float(single) != value:
        return None
    text = repr(float(single))
    return text + 'f'


class _Function:
    """One Python function translated into a ``__device__`` function."""

    def __init__(self, function, translator, outputs=None):
        self.function = function
        self.translator = translator
        self.outputs = outputs          # the written arrays' names; None: returns a float
        source = textwrap.dedent(inspect.getsource(function))
        self.first_line = function.__code__.co_firstlineno
        self.lines = source.splitlines()
        tree = ast.parse(source).body[0]
        if not isinstance(tree, ast.FunctionDef):
            raise TranslationError('%s is not a plain function' % function.__qualname__)
        self.tree = tree
        args = tree.args
        if (args.vararg or args.kwarg or args.kwonlyargs or args.defaults
                or getattr(args, 'posonlyargs', [])):
            self._fail(tree, 'only plain positional arguments are translated')
        self.parameters = [a.arg for a in args.args]
        assigned = [n for n in self._assigned_in_order(tree.body) if n not in self.parameters]
        # A local first assigned inside an if is declared at the top (C scopes it).
        self.hoisted = [n for n in dict.fromkeys(assigned)
                        if not self._first_at_top(tree.body, n)]
        self.declared = set(self.parameters) | set(self.hoisted)
        if outputs is not None:
            clash = {'out_' + n for n in outputs} & (set(self.parameters) | set(assigned))
            if clash:
                self._fail(tree, 'rename %s: the outputs are named out_<array>' % sorted(clash))

    def _fail(self, node, why):
        raise TranslationError('%s, line %d: %s' % (
            self.function.__qualname__, self.first_line + getattr(node, 'lineno', 1) - 1, why))

    @staticmethod
    def _assigned_in_order(body, nested=True):
        names = []
        for statement in body:
            if isinstance(statement, (ast.Assign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) \
                    else [statement.target]
                names += [t.id for t in targets if isinstance(t, ast.Name)]
            elif isinstance(statement, ast.If) and nested:
                names += _Function._assigned_in_order(statement.body)
                names += _Function._assigned_in_order(statement.orelse)
        return names

    @staticmethod
    def _first_at_top(body, name):
        """Whether ``name``'s first assignment is a statement of ``body`` itself."""
        for statement in body:
            if isinstance(statement, ast.If):
                inner = _Function._assigned_in_order([statement])
                if name in inner:
                    return False
            elif name in _Function._assigned_in_order([statement]):
                return True
        return False

    # -- statements -----------------------------------------------------------------------
    def source(self):
        name = self.function.__name__
        params = ['float %s' % p for p in self.parameters]
        if self.outputs is not None:
            params += ['float &out_%s' % n for n in self.outputs]
        opening = '__device__ %s %s(' % ('float' if self.outputs is None else 'void', name)
        lines = [opening]
        for index, param in enumerate(params):
            text = param + (', ' if index < len(params) - 1 else ')')
            if len(lines[-1]) + len(text.rstrip()) > 100:
                lines[-1] = lines[-1].rstrip()
                lines.append(' ' * len(opening))
            lines[-1] += text
        head = '\n'.join(lines)
        lines = ['float %s;' % n for n in self.hoisted]
        body = [s for s in self.tree.body if not _is_docstring(s)]
        for index, statement in enumerate(body):
            lines += self._statement(statement, last=index == len(body) - 1)
        return '%s {\n%s\n}\n' % (head, '\n'.join('    ' + line for line in lines))

    def _block(self, statements):
        lines = []
        for statement in statements:
            lines += ['    ' + line for line in self._statement(statement, last=False)]
        return lines

    def _statement(self, node, last):
        if _is_docstring(node) or isinstance(node, ast.Pass):
            return []
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            if isinstance(node, ast.Assign):
                if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                    self._fail(node, 'assign one name at a time (no tuples, no chains)')
                target, value = node.targets[0].id, self._expression(node.value)
            else:
                if not isinstance(node.target, ast.Name):
                    self._fail(node, 'assign one name at a time')
                target = node.target.id
                value = self._expression(ast.BinOp(ast.Name(target, ast.Load()), node.op,
                                                   node.value))
            if target not in self.declared:
                self.declared.add(target)
                return ['float %s = %s;' % (target, value)]
            return ['%s = %s;' % (target, value)]
        if isinstance(node, ast.If):
            lines = ['if (%s) {' % self._expression(node.test, condition=True)]
            lines += self._block(node.body)
            orelse = node.orelse
            while len(orelse) == 1 and isinstance(orelse[0], ast.If):
                lines += ['} else if (%s) {' % self._expression(orelse[0].test,
                                                                 condition=True)]
                lines += self._block(orelse[0].body)
                orelse = orelse[0].orelse
            if orelse:
                lines += ['} else {'] + self._block(orelse)
            return lines + ['}']
        if isinstance(node, ast.Return):
            return self._return(node, last)
        self._fail(node, '%s statements are not translated' % type(node).__name__)

    def _return(self, node, last):
        if node.value is None:
            self._fail(node, 'return the new values')
        if self.outputs is None:
            if isinstance(node.value, ast.Tuple):
                self._fail(node, 'a helper returns one value')
            return ['return %s;' % self._expression(node.value)]
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        if len(values) != len(self.outputs):
            self._fail(node, 'returns %d values for the %d written arrays %s'
                       % (len(values), len(self.outputs), list(self.outputs)))
        lines = ['out_%s = %s;' % (n, self._expression(v)) for n, v in zip(self.outputs, values)]
        return lines if last else lines + ['return;']

    # -- expressions: (text, precedence) ---------------------------------------------------
    def _expression(self, node, condition=False):
        text, _ = self._expr(node, number=not condition)
        return text

    def _operand(self, node, precedence, right=False):
        text, own = self._expr(node)
        if own < precedence or (right and own == precedence) or self._parenthesized(node):
            return '(%s)' % text
        return text

    def _parenthesized(self, node):
        """Whether the rule writes ``node`` in parentheses: ``(lr * wd) * weight`` keeps
        them, for the reader (they change nothing C would not group the same way)."""
        if not isinstance(node, ast.BinOp) or not hasattr(node, 'lineno'):   # or from +=
            return False
        before = self.lines[node.lineno - 1][:node.col_offset].rstrip()
        after = self.lines[node.end_lineno - 1][node.end_col_offset:].lstrip()
        return before.endswith('(') and after.startswith(')')

    def _expr(self, node, number=True):
        if isinstance(node, ast.Name):
            if node.id not in self.declared:
                self._fail(node, '%r is neither an argument nor assigned before' % node.id)
            return node.id, _ATOM
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                self._fail(node, 'only + - * / are translated (not %s)'
                           % type(node.op).__name__)
            symbol, precedence = _BINARY[type(node.op)]
            return ('%s %s %s' % (self._operand(node.left, precedence), symbol,
                                  self._operand(node.right, precedence, right=True)),
                    precedence)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return '-' + self._operand(node.operand, _UNARY_PRECEDENCE), _UNARY_PRECEDENCE
            if isinstance(node.op, ast.Not):
                return '!' + self._condition_operand(node.operand), _UNARY_PRECEDENCE
            self._fail(node, 'unary %s is not translated' % type(node.op).__name__)
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
                self._fail(node, 'compare two values at a time with < <= > >= == !=')
            text = '%s %s %s' % (self._compared(node.left), _COMPARE[type(node.ops[0])],
                                 self._compared(node.comparators[0]))
            # Used as a number (``x * (a > b)``), a comparison is 0 or 1, as NumPy's bool.
            return ('(float)(%s)' % text, _ATOM) if number else (text, 0)
        if isinstance(node, ast.BoolOp):
            symbol = ' && ' if isinstance(node.op, ast.And) else ' || '
            return symbol.join(self._condition_operand(v) for v in node.values), 0
        if isinstance(node, ast.IfExp):
            return ('%s ? %s : %s' % (self._condition_operand(node.test),
                                      self._operand(node.body, 1), self._operand(node.orelse, 1)),
                    0)
        if isinstance(node, ast.Call):
            return self._call(node), _ATOM
        if isinstance(node, ast.Constant):
            self._fail(node, 'numbers appear only in comparisons: numba would compute %r '
                       'with a float32 in float64; pass it as a constant of the kernel'
                       % node.value)
        self._fail(node, '%s is not translated' % type(node).__name__)

    def _condition_operand(self, node):
        text, precedence = self._expr(node, number=False)
        return '(%s)' % text if precedence < _ATOM else text

    def _compared(self, node):
        if isinstance(node, ast.Constant):
            literal = _float_literal(node.value)
            if literal is None:
                self._fail(node, '%r is not a float32 number' % (node.value,))
            return literal
        return self._operand(node, 1)

    def _call(self, node):
        if node.keywords:
            self._fail(node, 'call with positional arguments only')
        function = self._resolve(node.func)
        arguments = [self._expression(a) for a in node.args]
        if isinstance(function, types.FunctionType):
            name = self.translator.helper(function)
            expected = function.__code__.co_argcount
        else:
            try:
                name, expected = FUNCTIONS[function]
            except (KeyError, TypeError):
                self._fail(node, '%s is not translated (functions: plain Python ones and %s)'
                           % (ast.unparse(node.func), sorted(
                               c for c, _ in FUNCTIONS.values())))
            if name in _NUMPY_HELPERS:
                self.translator.numpy_helpers.add(name)
        if len(arguments) != expected:
            self._fail(node, '%s takes %d arguments' % (ast.unparse(node.func), expected))
        return '%s(%s)' % (name, ', '.join(arguments))

    def _resolve(self, node):
        """The object a call's ``np.sqrt`` / ``clipped`` names in the function's module."""
        path = []
        while isinstance(node, ast.Attribute):
            path.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.declared:
            self._fail(node, 'call a function by its global name')
        namespace = self.function.__globals__
        builtins = namespace.get('__builtins__', {})
        builtins = builtins if isinstance(builtins, dict) else vars(builtins)
        if node.id in namespace:
            value = namespace[node.id]
        elif node.id in builtins:
            value = builtins[node.id]
        else:
            self._fail(node, 'unknown name %r' % node.id)
        for attribute in reversed(path):
            value = getattr(value, attribute, None)
        return value


def _is_docstring(node):
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


class _Translator:
    """The rule and its helpers, each translated once, in the order C needs them."""

    def __init__(self):
        self.helpers = {}               # function -> C name
        self.sources = []               # helpers' C, callees first
        self.numpy_helpers = set()

    def helper(self, function):
        if function not in self.helpers:
            name = function.__name__
            if name in self.helpers.values() or name in _NUMPY_HELPERS:
                raise TranslationError('two functions are named %s; rename one' % name)
            self.helpers[function] = name
            self.sources.append(_Function(function, self).source())
        return self.helpers[function]


@functools.lru_cache(maxsize=None)
def _translated(rule, writes):
    translator = _Translator()
    rule_source = _Function(rule, translator, outputs=writes).source()
    numpy_helpers = ['__device__ float %s%s\n' % (n, definition)
                     for n, definition in sorted(_NUMPY_HELPERS.items())
                     if n in translator.numpy_helpers]
    return ''.join(numpy_helpers) + ''.join(translator.sources) + rule_source


def cuda_source(kernel):
    """``(preamble, call)``: the ``__device__`` functions of ``kernel``'s rule and its
    helpers, and the statement that applies the rule to one element (each argument and
    each written array under its own name).

    Raises TranslationError where the rule uses Python outside the translated subset.
    """
    preamble = _translated(kernel.rule, kernel.writes)
    call = '%s(%s);' % (kernel.rule.__name__, ', '.join(kernel.parameters + kernel.writes))
    return preamble, call
