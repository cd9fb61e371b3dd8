"""``torch.nested`` jagged tensors (``layout=torch.jagged``) in and out of amkl's packed
layout: a nested ``[B, j, H, d]`` is the packed ``[T, H, d]`` values with offsets ``[B+1]``.
"""

from typing import NamedTuple, Optional

import torch


class Packed(NamedTuple):
    values: torch.Tensor             # [T, H, d]
    cu_seqlens: torch.Tensor         # int32 [B + 1]
    seqused: Optional[torch.Tensor]  # int32 [B], when the nested tensor has holes (lengths)
    max_seqlen: Optional[int]        # when the nested tensor has it cached
    nested: torch.Tensor             # the original, to rebuild outputs like it


def is_jagged(t) -> bool:
    return isinstance(t, torch.Tensor) and t.is_nested and t.layout == torch.jagged


def unpack(t: torch.Tensor, name: str) -> Packed:
    """Packed view of a jagged nested tensor of shape ``[B, j, H, d]``."""
    if not is_jagged(t):
        raise ValueError(f"amkl: {name}: expected a nested tensor with layout=torch.jagged, "
                         f"got {'a strided nested tensor' if t.is_nested else 'a dense tensor'}")
    # amkl's packed layout has the ragged dim first; [B, H, j, d] (SDPA's) would need a copy.
    ragged_idx = getattr(t, "_ragged_idx", 1)
    if t.dim() != 4 or ragged_idx != 1:
        raise ValueError(f"amkl: {name}: expected a jagged nested tensor [B, j, H, d] with the "
                         f"ragged dim at 1, got {t.dim()} dims with the ragged dim at {ragged_idx}")
    lengths = t.lengths()
    max_seqlen = getattr(t, "_maybe_max_seqlen", None)
    return Packed(
        values=t.values(),
        cu_seqlens=t.offsets().to(torch.int32),
        seqused=None if lengths is None else lengths.to(torch.int32),
        max_seqlen=max_seqlen if isinstance(max_seqlen, int) else None,
        nested=t,
    )


def repack(values: torch.Tensor, like: Packed) -> torch.Tensor:
    """A jagged nested tensor with the offsets (and lengths) of ``like`` and these values."""
    return torch.nested.nested_tensor_from_jagged(
        values, offsets=like.nested.offsets(), lengths=like.nested.lengths())
