"""The weighted mean of several nets' weights ("model soups" and WiSE-FT, Wortsman et al. 2022).

Nets fine-tuned from one start lie in one basin of the loss, and the mean of their weights
reads better than each; weighing the start in too keeps more of what the start read on data
unlike the fine-tune's. Used for the classifier (:func:`vision.train.classifier.average_weights`,
served since session 53) and the detector (:func:`vision.train.detector.average_detectors`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch is imported where it is used (this module imports without it)
    from torch import Tensor


def weighted_mean(parts: Sequence[tuple[str, Mapping[str, Tensor], float]]) -> dict[str, Tensor]:
    """The mean of ``(name, state_dict, weight)`` parts' tensors, weighted, each in its own
    dtype (summed in float64). Tensors that are not floating point (BatchNorm's step counters)
    are the first part's. Every part must hold the same tensors in the same shapes; a part that
    does not is refused by its ``name``, and so are weights that are negative or sum to 0."""
    if not parts or any(w < 0 for _, _, w in parts) or sum(w for _, _, w in parts) <= 0:
        raise ValueError(
            f"weights must be non-negative with a positive sum: {[(n, w) for n, _, w in parts]}"
        )
    total = sum(w for _, _, w in parts)
    first_name, first, _ = parts[0]
    mean: dict[str, Tensor] = {}
    for name, state, weight in parts:
        if set(state) != set(first):
            raise ValueError(f"{name}: not the same net as {first_name}")
        for key, value in state.items():
            if value.shape != first[key].shape:
                raise ValueError(
                    f"{name}: {key} is {tuple(value.shape)}, not {tuple(first[key].shape)}"
                )
            if not value.is_floating_point():
                mean.setdefault(key, value.clone())
            elif key not in mean:
                mean[key] = value.double() * (weight / total)
            else:
                mean[key] += value.double() * (weight / total)
    return {k: v.to(first[k].dtype) for k, v in mean.items()}
