"""Deterministic chunking of provision texts within a token budget.

A provision state is embedded from ``heading`` + newline + ``text``. Its words (whitespace
separated) are packed greedily into chunks of at most ``chunk_tokens`` tokens, counting each word
with the encoder's own tokenizer (cached per word), and packing stops once ``budget_tokens``
tokens have been used: a long provision is represented by its opening, which in legislative
drafting carries the subject. Counting words separately is exact for SentencePiece and WordPiece
tokenizers (neither merges across whitespace); a word longer than a whole chunk forms a chunk of
its own and the encoder truncates it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: Tokens of one chunk, counting the encoder's prefix and special tokens.
CHUNK_TOKENS = 128
#: Tokens embedded per provision state at most (one chunk by default; docs/adr/0006 gives the cost).
STATE_TOKEN_BUDGET = 128


@dataclass(frozen=True)
class ChunkPolicy:
    chunk_tokens: int = CHUNK_TOKENS
    budget_tokens: int = STATE_TOKEN_BUDGET

    def as_dict(self) -> dict[str, object]:
        return {"chunk_tokens": self.chunk_tokens, "state_token_budget": self.budget_tokens,
                "text": "heading + newline + provision text; whitespace words packed greedily"}


class WordCounter:
    """Per-word token counts from an encoder's ``count_tokens`` (which includes fixed overhead)."""

    def __init__(self, count_tokens: Callable[[str], int]) -> None:
        self._count = count_tokens
        self.overhead = count_tokens("")
        self._cache: dict[str, int] = {}

    def __call__(self, word: str) -> int:
        n = self._cache.get(word)
        if n is None:
            n = max(1, self._count(word) - self.overhead)
            if len(self._cache) < 500_000:
                self._cache[word] = n
        return n


DEFAULT_POLICY = ChunkPolicy()


def state_text(heading: str | None, text: str) -> str:
    heading = (heading or "").strip()
    return f"{heading}\n{text}" if heading else text


def chunk_text(text: str, words: WordCounter, policy: ChunkPolicy = DEFAULT_POLICY) -> list[str]:
    """The chunks of ``text`` (possibly none for a blank text), in document order."""
    tokens = text.split()
    chunks: list[str] = []
    room = policy.chunk_tokens - words.overhead
    budget = policy.budget_tokens
    current: list[str] = []
    used = 0
    for word in tokens:
        n = words(word)
        if current and used + n > room:
            chunks.append(" ".join(current))
            budget -= used + words.overhead
            current, used = [], 0
        if budget - words.overhead - used - n < 0 and (chunks or current):
            break
        current.append(word)
        used += n
    if current:
        chunks.append(" ".join(current))
    return chunks
