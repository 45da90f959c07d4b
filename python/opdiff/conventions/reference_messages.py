"""The reference tool's words for a row it cannot compare (docs/reference/reference-tool.md §2.5, §3.3), kept
verbatim, grammar included: scripts match them in the result CSV's last column."""

from __future__ import annotations

from typing import Sequence


def no_dump_for_my_op(op: str, op_type: str) -> str:
    """A fused op of the rule with no dump file on my side."""
    return f'[{op}] There is no dump file for my output operator "{op}". The type is {op_type}.'


def inner_node_skipped(op: str) -> str:
    """An inner node of a group of several NPU ops (``_datadump_is_multiop`` and no origin name on
    any output): not compared. The reference's words say multi to multi for one-to-multi groups too."""
    return f"[{op}] The op is inner node for multi to multi relation.Skip the op."


def no_ground_truth_for_tensor(label: str, tensor: str) -> str:
    """No golden file for one of my tensors (also when its origin name is empty: the reference's
    wording names my tensor either way)."""
    return f"[{label}] There is no the ground truth dump file for {tensor}."


def no_my_dump_for_key(key: str) -> str:
    """NPU vs NPU: an op dumped on the golden side only."""
    return f'[{key}] There is no the my output dump file for the op "{key}".'


def no_ground_truth_for_key(key: str) -> str:
    """NPU vs NPU: an op dumped on my side only."""
    return f'[{key}] There is no the ground truth dump file for the op "{key}".'


def invalid_input_reference(ref: str) -> str:
    """A rule's input that is not ``op_name:index``."""
    return f"The input information ({ref}) is invalid. It only supports op_name:index."


def all_zero_in(path: str) -> str:
    """The cosine is undefined: one side's tensor, named by its file, is all zero."""
    return f"Cannot compare by Cosine Similarity. All the data is zero in {path}."


def unsupported_data_type(label: str, data_type: str) -> str:
    """One side's tensor has a data type the comparison cannot decode."""
    return f"[{label}] The data type {data_type} is not supported."


def shapes_differ(label: str, my_shape: Sequence[int], golden_shape: Sequence[int]) -> str:
    """The two tensors hold different element counts."""
    return (f"[{label}] Due to the different shapes on the left and right, the left dump data"
            f"({list(my_shape)}) can not be compared to the right dump data({list(golden_shape)}).")
