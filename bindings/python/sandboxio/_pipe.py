# SPDX-License-Identifier: MIT
"""The bounded buffer between a streaming command's C callback and its reader.

The library calls the output callback on the exec's thread, in order within
a stream; chunks are appended under one lock, so the reader sees them in
exactly that order, none lost. When the reader falls behind by more than
``LIMIT`` bytes the callback waits for it (back-pressure onto the provider),
so a command printing gigabytes never holds more than ``LIMIT`` in memory.
A reader that stops reading (wait(), leaving the block, the sandbox closing)
abandons the pipe: from then on chunks are dropped and nothing waits.
"""

from __future__ import annotations

import collections
import threading
from typing import Callable, Optional, Union

from .models import OutputChunk

LIMIT = 4 * 1024 * 1024


class _End:
    pass


END = _End()


class Pipe:
    def __init__(self, limit: Optional[int] = None) -> None:
        self._cond = threading.Condition()
        self._chunks: collections.deque[OutputChunk] = collections.deque()
        self._bytes = 0
        self._limit = LIMIT if limit is None else limit
        self._ended = False
        self._abandoned = False
        self._waker: Optional[Callable[[], None]] = None

    # -- producer (the exec's thread) ---------------------------------------
    def put(self, stream: int, data: bytes) -> None:
        chunk = OutputChunk("stderr" if stream == 2 else "stdout", data)
        with self._cond:
            while self._bytes >= self._limit and not self._abandoned:
                self._cond.wait()
            if self._abandoned:
                return
            self._chunks.append(chunk)
            self._bytes += len(data)
            self._wake()

    def end(self) -> None:
        """The exec returned: no more chunks."""
        with self._cond:
            self._ended = True
            self._wake()

    def _wake(self) -> None:
        self._cond.notify_all()
        waker, self._waker = self._waker, None
        if waker is not None:
            waker()

    # -- reader -----------------------------------------------------------
    def abandon(self) -> None:
        """The reader is gone: drop what is buffered and everything after."""
        with self._cond:
            self._abandoned = True
            self._chunks.clear()
            self._bytes = 0
            self._cond.notify_all()

    def poll(self, waker: Optional[Callable[[], None]] = None) -> Union[OutputChunk, _End, None]:
        """The next chunk, END, or None (then `waker` is called once when
        there may be more; it must be safe to call from any thread)."""
        with self._cond:
            if self._chunks:
                chunk = self._chunks.popleft()
                self._bytes -= len(chunk.data)
                self._cond.notify_all()
                return chunk
            if self._ended or self._abandoned:
                return END
            self._waker = waker
            return None

    def get(self) -> Union[OutputChunk, _End]:
        """The next chunk or END, blocking (for the sync facade)."""
        with self._cond:
            while not self._chunks and not self._ended and not self._abandoned:
                self._cond.wait()
            if self._chunks:
                chunk = self._chunks.popleft()
                self._bytes -= len(chunk.data)
                self._cond.notify_all()
                return chunk
            return END
