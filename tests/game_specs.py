"""The configurations the conformance suite covers (a module, not conftest.py: the browser
tests' conftest.py would shadow this folder's under the name ``conftest``)."""
import boardlab


def conformance_specs():
    """Every registered game, in the configurations the conformance suite covers."""
    specs = []
    for cls in boardlab.games():
        specs.extend(cls.conformance_specs or (cls.name,))
    return specs
