"""Writing files atomically: the one rule every save in gluonedu follows.

:func:`atomic_write` writes ``fname`` so that a reader (or a crash) only ever sees the
old file or the new one, never part of one:

1. write into a temp file in the same directory (a rename is atomic only within one
   file system), named ``.<name>.gluonedu-partial-<pid>-<random>.tmp``;
2. flush and ``fsync`` it, so its bytes are on disk before its name is;
3. give it the mode a plain ``open(fname, 'wb')`` would: the existing file's permission
   bits if there is one, else ``0666`` less the umask (0644 under the usual umask, as
   ``np.save`` and MXNet's files) — not the 0600 of :func:`tempfile.mkstemp`;
4. rename it over ``fname``, then ``fsync`` the directory so the rename itself survives
   a power cut.

A save killed between 1 and 4 (SIGKILL, power loss) leaves its temp file behind. The
next save of the same path removes those: files whose name has exactly the pattern
above for this ``<name>`` and whose writing process no longer runs. Nothing else is
ever deleted — not another program's files, not the temp file of a save still running.
"""
import os
import re
import secrets

__all__ = ['atomic_write']

_TAG = 'gluonedu-partial'
#: Temp names keep a bounded part of the target's name (file names are at most 255 bytes).
_NAME_KEPT = 160


def _temp_prefix(name):
    return '.%s.%s-' % (name[:_NAME_KEPT], _TAG)


def _process_runs(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


def _remove_leftovers(folder, name):
    """Delete the temp files of interrupted saves of ``folder/name`` (dead writers only)."""
    prefix = _temp_prefix(name)
    pattern = re.compile(re.escape(prefix) + r'(\d+)-[0-9a-f]{16}\.tmp\Z')
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        found = pattern.match(entry) if entry.startswith(prefix) else None
        if found and not _process_runs(int(found.group(1))):
            try:
                os.unlink(os.path.join(folder, entry))
            except FileNotFoundError:  # another save cleaned it first
                pass


def _open_temp(folder, name):
    """(fd, path) of a new, exclusively created temp file for ``name`` in ``folder``."""
    while True:
        path = os.path.join(folder, '%s%d-%s.tmp' % (_temp_prefix(name), os.getpid(),
                                                      secrets.token_hex(8)))
        try:  # mode 0666: the umask applies, as for open(fname, 'wb')
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), path
        except FileExistsError:
            continue


def _fsync_directory(folder):
    if not hasattr(os, 'O_DIRECTORY'):  # e.g. Windows: directories cannot be opened
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(fname, write):
    """Call ``write(fileobj)`` on a temp file beside ``fname`` and rename it over ``fname``.

    The file is fsynced before the rename and its directory after it; the new file
    keeps the permission bits of the file it replaces (or gets the umask's). On any
    error, the temp file is removed and ``fname`` is left as it was.
    """
    fname = os.fspath(fname)
    folder, name = os.path.split(os.path.abspath(fname))
    _remove_leftovers(folder, name)
    fd, tmp = _open_temp(folder, name)
    try:
        with os.fdopen(fd, 'wb') as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, os.stat(fname).st_mode & 0o777)
        except FileNotFoundError:
            pass  # a new file: the umask's mode, from os.open
        os.replace(tmp, fname)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(folder)
