"""``python -m gluonedu.launch -n WORKERS [-s SERVERS] [--address HOST:PORT] COMMAND...``

Runs COMMAND as distributed workers; see :mod:`gluonedu.kvstore.launch`.
"""
import sys

from .kvstore.launch import main

if __name__ == '__main__':
    sys.exit(main())
