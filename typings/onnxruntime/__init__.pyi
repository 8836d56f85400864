from enum import Enum
from typing import Any

class GraphOptimizationLevel(Enum):
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99

class SessionOptions:
    intra_op_num_threads: int
    inter_op_num_threads: int
    graph_optimization_level: GraphOptimizationLevel
    def __init__(self) -> None: ...

class NodeArg:
    @property
    def name(self) -> str: ...
    @property
    def shape(self) -> list[int | str | None]: ...

class InferenceSession:
    def __init__(
        self, path_or_bytes: str | bytes, sess_options: SessionOptions | None = None, providers: list[str] | None = None
    ) -> None: ...
    def get_inputs(self) -> list[NodeArg]: ...
    def get_outputs(self) -> list[NodeArg]: ...
    def run(self, output_names: list[str] | None, input_feed: dict[str, Any]) -> list[Any]: ...
