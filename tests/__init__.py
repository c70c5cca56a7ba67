"""The test suite. Imported before its conftest, so set here for every test process:

Compiled modules are cached, as Python does by default, even where PYTHONDONTWRITEBYTECODE is set. pytest then keeps
the test modules it rewrites for assert introspection (collecting rewrote them all in every worker: 9 of its 17 s),
and the processes the tests start (a proxy, the CLI, the extraction process) read memproxy compiled instead of
compiling it each time (1.2 s to start instead of 2.7). The files stay in __pycache__, which git ignores.
"""

import sys

sys.dont_write_bytecode = False
