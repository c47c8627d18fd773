"""A warning for each docstring that napoleon would render otherwise than it reads.

napoleon (numpy style) renders the sections it knows and, without a word, makes something
else of the rest: an unknown section header, and a paragraph after a section's fields,
become more fields; fields without a section header a definition list; and the first line
"A: B" of a property or attribute the type A of a description B. The docs build warns of
each (``-W`` makes that an error), before napoleon rewrites the docstring.
"""
import re

from sphinx.ext.napoleon.docstring import NumpyDocstring
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: One field, or several of one type: "name : type", "a, b : type", "*args, **kwargs";
#: a long list of names may go on over two lines.
FIELD = re.compile(r'\*{0,2}\w+(, ?\*{0,2}\w+)*,?( :.*)?')
UNDERLINE = re.compile(r'-{3,}')
#: The sections napoleon reads as fields, besides napoleon_custom_sections' params_style.
FIELD_SECTIONS = {'Parameters', 'Other Parameters', 'Attributes', 'Receives'}


def sections(lines):
    """(header, lines) of each section of a numpy docstring, the text before the first
    header under the header ''."""
    header, body = '', []
    for i, line in enumerate(lines):
        if UNDERLINE.fullmatch(line.strip()) and i and lines[i - 1].strip():
            body.pop()
            yield header, body
            header, body = lines[i - 1].strip(), []
        else:
            body.append(line)
    yield header, body


def problems(lines, what, config):
    """What napoleon, with ``config``, would render otherwise than ``lines`` (the
    docstring of a ``what``: 'class', 'property', ...) read."""
    found = []
    field_sections = FIELD_SECTIONS | {
        custom[0] for custom in config.napoleon_custom_sections or ()
        if isinstance(custom, tuple) and custom[1] == 'params_style'}
    for header, body in sections(lines):
        unindented = [(i, line) for i, line in enumerate(body)
                      if line.strip() and not line[0].isspace()]
        if header in field_sections:
            found += ['%r under %s is no field: put prose under a header of its own, '
                      'e.g. Notes' % (line, header)
                      for _, line in unindented if not FIELD.fullmatch(line.rstrip())]
        elif header:
            example = NumpyDocstring([header, '-' * len(header), 'x : int'], config)
            if UNDERLINE.search(str(example)):
                found.append('napoleon knows no section %r: use one it knows (Notes, '
                             'Examples, ...) or add it to napoleon_custom_sections' % header)
        else:
            found += ['field %r has no section header (Parameters)' % line
                      for i, line in unindented
                      if ' : ' in line and FIELD.fullmatch(line.rstrip())
                      and body[i + 1:i + 2] and body[i + 1][:1].isspace()]
    if what in ('property', 'attribute') and ':type:' in str(
            NumpyDocstring(lines, config, what=what, name='x')):
        found.append('the first line %r reads as "type: description": say it without '
                     'the colon' % lines[0])
    return found


def _warn(app, what, name, obj, options, lines):
    for problem in problems(lines, what, app.config):
        logger.warning('docstring of %s: %s', name, problem)


def setup(app):
    # Before napoleon (priority 500), which rewrites the lines.
    app.connect('autodoc-process-docstring', _warn, priority=400)
    return {'parallel_read_safe': True}
