"""Every rule module; importing this package registers them all.

One module per family of codes; a new module in this folder runs without being listed.
"""

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
