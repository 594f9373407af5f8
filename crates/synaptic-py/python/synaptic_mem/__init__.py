"""synaptic_mem: the exact RAM a .tflite model needs on a microcontroller, and a runtime that
runs it bit-exact with TensorFlow Lite Micro.

    >>> import synaptic_mem
    >>> synaptic_mem.plan("person_detect.tflite").ram_bytes        # the one RAM figure
    >>> it = synaptic_mem.Interpreter("person_detect.tflite")
    >>> [scores] = it.invoke(image)                               # int8 (1, 96, 96, 1)

* ``plan(model, **options)`` -> ``Plan``: every field of ``synmem plan --json``
  (``ram_bytes`` first), ``.to_dict()``, ``.json()``, ``.to_svg()``, ``.text()``;
* ``emit(model, lang="c"|"rust"|"tflite", **options)`` -> what ``synmem emit`` writes;
* ``Interpreter(model, io=, overlap=, op_data=, poison=, preserve_all_tensors=)``:
  ``.inputs`` / ``.outputs``, ``.invoke(*arrays)``, ``.memory()``, ``.get_tensor(i)``,
  ``.intermediates()``, ``.reset_state()``;
* ``SynapticError`` and its subclasses ``LoadError``, ``RunError``, ``PlanError``
  (``kind``: the typed reason, ``detail``: its full form).

The ``synmem`` command line tool is installed beside it (the same binary). See
docs/python.md in the repository.
"""

from ._native import (
    Interpreter,
    LoadError,
    Plan,
    PlanError,
    RunError,
    SynapticError,
    TensorDetails,
    __version__,
    emit,
    plan,
)

__all__ = [
    "Interpreter",
    "LoadError",
    "Plan",
    "PlanError",
    "RunError",
    "SynapticError",
    "TensorDetails",
    "__version__",
    "emit",
    "plan",
]
