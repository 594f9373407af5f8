"""Type stubs of synaptic_mem (the native module synaptic_mem._native, re-exported)."""

import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

ModelSource = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
Io = Literal["shared", "ephemeral", "plan"]
OpData = Literal["flash", "ram"]
Strategy = Literal["best", "greedy", "bump"]
Weights = Literal["sram", "flash"]

class SynapticError(Exception):
    """Base class of every synaptic_mem error.

    ``kind`` is the typed reason (the Rust error's variant: ``"Operator"``, ``"Truncated"``,
    ``"Config"``, ``"Input"``, ...), ``detail`` its full debug form, ``str(e)`` one line."""

    kind: str
    detail: str

class LoadError(SynapticError):
    """The runtime refused the model at load (synaptic_run::LoadError)."""

class RunError(SynapticError):
    """An inference could not run: wrong number, dtype or shape of inputs, or the runtime's
    synaptic_run::RunError."""

class PlanError(SynapticError):
    """The planner refused the model or the options (synaptic_plan::ImportError)."""

class RuntimeNeed(TypedDict):
    """``Plan.ram``: what synaptic-run needs in RAM."""

    arena_bytes: int
    shared_bytes: int
    plan_descriptors_bytes: int
    activation_bytes: int
    state_bytes: int
    scratch_bytes: int
    program_bytes: int
    op_data: str
    fits: bool
    limit_bytes: int
    help: List[str]
    supported: Optional[bool]
    unsupported: Optional[str]

class Plan:
    """The sizing report: every field of ``synmem plan --json``, as attributes.

    ``ram_bytes`` is the one RAM figure (what synaptic-run needs: arena + SHARED region);
    ``ram`` its breakdown (``ram["supported"]``: whether synaptic-run runs the model). The
    fields after ``ram`` are the bare allocator's (the spec's arena with weights in SRAM)."""

    ram_bytes: int
    model: str
    ram: RuntimeNeed
    tensors: int
    operators: int
    weights_bytes: int
    activation_sum_bytes: int
    live_lower_bound_bytes: int
    planned_activation_bytes: int
    proven_optimal: bool
    persistent_bytes: int
    ephemeral_bytes: int
    scratch_bytes: int
    shared_bytes: int
    arena_bytes_required: int
    fits: bool
    strategy: str
    weights_in: str
    io_in: str
    activations: int
    bump_ephemeral_bytes: int
    ephemeral_lower_bound_bytes: int
    ratio_to_lower_bound: float
    persistent: Dict[str, int]
    arena_bytes: int
    scratch_pool_bytes: int
    tensor_space_bytes: int
    short_by: List[Dict[str, Any]]
    min_valid_arena_bytes: int
    planning_micros: int
    overlap_lower_bound_bytes: int
    overlap: bool
    overlap_pairs: List[Dict[str, Any]]
    def keys(self) -> List[str]:
        """The field names, in the CLI's order."""
    def to_dict(self) -> Dict[str, Any]:
        """``json.loads`` of ``synmem plan --json`` (only ``planning_micros`` varies)."""
    def json(self, indent: Optional[int] = 2) -> str:
        """The report as JSON text, as ``synmem plan --json`` prints it."""
    def to_svg(self) -> str:
        """The plan drawn as a standalone SVG document (``synmem plan --svg``)."""
    def text(self) -> str:
        """The report as ``synmem plan`` prints it without ``--json``."""

def plan(
    model: ModelSource,
    *,
    io: Io = "shared",
    op_data: Optional[OpData] = None,
    overlap: bool = True,
    strategy: Strategy = "best",
    arena: Optional[int] = None,
    scratch: Optional[int] = None,
    weights: Optional[Weights] = None,
    scratch_table: Optional[Sequence[int]] = None,
    name: Optional[str] = None,
) -> Plan:
    """Sizes ``model`` as ``synmem plan MODEL --json`` does, with the CLI's options.

    Raises PlanError for a model the planner refuses; a model synaptic-run cannot run still
    plans (``plan.ram["supported"]`` is False)."""

@overload
def emit(
    model: ModelSource,
    lang: Literal["c", "rust"] = "c",
    with_model: bool = False,
    kernels: None = None,
    *,
    io: Io = "shared",
    op_data: Optional[OpData] = None,
    overlap: bool = True,
    strategy: Strategy = "best",
    arena: Optional[int] = None,
    scratch: Optional[int] = None,
    weights: Optional[Weights] = None,
    scratch_table: Optional[Sequence[int]] = None,
    name: Optional[str] = None,
) -> str: ...
@overload
def emit(
    model: ModelSource,
    lang: Literal["tflite"],
    with_model: bool = False,
    kernels: Optional[Literal["reference", "cmsis-nn"]] = None,
    *,
    strategy: Strategy = "best",
    scratch_table: Optional[Sequence[int]] = None,
) -> bytes:
    """What ``synmem emit MODEL --lang LANG -o FILE`` writes: a C header or Rust source (str),
    or the model with TFLM's offline memory plan (bytes)."""

class TensorDetails:
    """A tensor of the model: name, shape, numpy dtype, quantization."""

    index: int
    name: str
    shape: Tuple[int, ...]
    dtype: np.dtype
    nbytes: int
    scale: Optional[float]
    zero_point: Optional[int]
    scales: List[float]
    zero_points: List[int]
    quantized_dimension: int

class Memory(TypedDict):
    """``Interpreter.memory()``: the fields of ``synmem run --json`` (less inputs/outputs)."""

    ram_bytes: int
    model: str
    io: str
    op_data: str
    program_bytes: int
    program_flash_bytes: int
    persistent_bytes: int
    tables_bytes: int
    locations_bytes: int
    plan_descriptors_bytes: int
    state_bytes: int
    planned_ephemeral_bytes: int
    scratch_peak_bytes: int
    shared_bytes: int
    descriptors_bytes: int
    total_bytes: int
    overlap: bool
    overlap_pairs: int
    poison: Optional[int]
    arena_bytes: int
    scratch_pool_bytes: int
    shared_region_bytes: int

class Interpreter:
    """synaptic-run on an arena this object owns, sized exactly as ``plan()`` says.

    ``io``: graph I/O in the SHARED region or in the plan; ``overlap``: outputs overlapping
    dying inputs; ``op_data``: the compiled program outside the arena (flash) or in it (ram);
    ``poison``: fill the arena with seeded bytes first; ``preserve_all_tensors``: keep every
    operator's output of the last invoke (TFLM's kPreserveAllTensors). Use it from the
    thread that made it."""

    def __init__(
        self,
        model: ModelSource,
        io: Optional[Literal["shared", "plan", "ephemeral"]] = "shared",
        overlap: Optional[bool] = True,
        op_data: Optional[OpData] = "flash",
        poison: Optional[int] = None,
        preserve_all_tensors: bool = False,
    ) -> None: ...
    @property
    def inputs(self) -> List[TensorDetails]: ...
    @property
    def outputs(self) -> List[TensorDetails]: ...
    @property
    def tensors(self) -> List[TensorDetails]: ...
    @property
    def name(self) -> str: ...
    @property
    def invocations(self) -> int: ...
    def invoke(self, *arrays: npt.NDArray[Any]) -> List[npt.NDArray[Any]]:
        """One inference: one array per graph input, exactly its dtype and shape; returns one
        new array per graph output. Raises RunError for a wrong input (the object stays usable)."""
    def get_tensor(self, index: int) -> npt.NDArray[Any]:
        """A constant's data, or (preserve_all_tensors=True) a tensor's value in the last invoke."""
    def intermediates(self) -> Dict[int, npt.NDArray[Any]]:
        """Every tensor the last invoke gave a value (graph inputs, operator outputs)."""
    def memory(self) -> Memory:
        """The RAM figures, with the names of ``synmem run --json``."""
    def reset_state(self) -> None:
        """Sets the model's state (variable tensors: SVDF and LSTM memories) back to its value
        at load, as TFLM's ResetVariableTensors; the next invokes give a fresh interpreter's."""
