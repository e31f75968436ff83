"""A pytest plugin that lets the 2021 web-platform-tests helpers import on Python 3.10 and later.

They use `collections.Mapping` and `collections.Iterable`, which moved to `collections.abc` (removed from
`collections` in Python 3.10); the aliases are restored before the tests import.
"""
import collections
import collections.abc

for name in ("Mapping", "Iterable", "MutableMapping", "Sequence"):
    if not hasattr(collections, name):
        setattr(collections, name, getattr(collections.abc, name))
