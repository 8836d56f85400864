from enum import Enum
from pathlib import Path

class QuantType(Enum):
    QInt8 = 0
    QUInt8 = 1

def quantize_dynamic(
    model_input: str | Path,
    model_output: str | Path,
    op_types_to_quantize: list[str] | None = None,
    per_channel: bool = False,
    weight_type: QuantType = ...,
) -> None: ...
