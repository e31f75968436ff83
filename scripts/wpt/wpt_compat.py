"""A pytest plugin that lets the 2021 web-platform-tests helpers import on Python 3.10 and later.

They use `collections.Mapping` and `collections.Iterable`, which moved to `collections.abc` (removed from
`collections` in Python 3.10); the aliases are restored before the tests import. Their BiDi client calls
`websockets.client.connect` after a bare `import websockets`, which finds the submodule only when something
imported it first (websockets 10 loads its submodules lazily); it is imported here.
"""
import collections
import collections.abc

import websockets.client  # noqa: F401

for name in ("Mapping", "Iterable", "MutableMapping", "Sequence"):
    if not hasattr(collections, name):
        setattr(collections, name, getattr(collections.abc, name))
