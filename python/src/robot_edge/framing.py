"""The stream framing of robot-edged's API (pure: bytes in, bytes out, no I/O).

Each message is preceded by its length in bytes as a protobuf base-128 varint (protobuf's
"delimited" format, proto/framing.hpp); a message is at most 64 KiB.

    >>> encode_varint(300).hex()
    'ac02'
    >>> d = FrameDecoder(); d.feed(b"\\x03abc\\x00"); [d.next(), d.next(), d.next()]
    [b'abc', b'', None]
"""
from __future__ import annotations

from typing import Optional

from .errors import ProtocolError

MAX_MESSAGE_BYTES = 64 * 1024  # the API's limit, both directions
_MAX_VARINT_BYTES = 5  # a 32-bit length; more continuation bytes are not a length


def encode_varint(value: int) -> bytes:
    """`value` (>= 0) as a protobuf base-128 varint."""
    if value < 0:
        raise ValueError("a varint length is never negative")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_frame(payload: bytes) -> bytes:
    """`payload` with its length prefix. Raises ValueError over MAX_MESSAGE_BYTES (the daemon would
    close the connection)."""
    if len(payload) > MAX_MESSAGE_BYTES:
        raise ValueError(f"message of {len(payload)} bytes is over the API's 64 KiB limit: not sent")
    return encode_varint(len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed() whatever recv() returned, then next() until None.

    next() raises ProtocolError on a length over 64 KiB or a malformed prefix; after that the
    stream cannot be trusted and the connection must be dropped."""

    def __init__(self, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self._buffer = bytearray()
        self._max = max_message_bytes
        self._error: Optional[ProtocolError] = None  # sticky: the stream is unusable

    def feed(self, data: bytes) -> None:
        self._buffer += data

    @property
    def buffered_bytes(self) -> int:
        """Bytes received and not yet returned (part of a message, or whole ones)."""
        return len(self._buffer)

    def next(self) -> Optional[bytes]:
        """The next whole message's payload, or None when more bytes are needed."""
        if self._error is not None:
            raise self._error
        try:
            return self._next()
        except ProtocolError as e:
            self._error = e
            raise

    def _next(self) -> Optional[bytes]:
        length = 0
        for i in range(min(len(self._buffer), _MAX_VARINT_BYTES)):
            byte = self._buffer[i]
            length |= (byte & 0x7F) << (7 * i)
            if byte & 0x80:
                continue
            if length > self._max:
                raise ProtocolError(f"announced message of {length} bytes is over the API's "
                                    f"{self._max // 1024} KiB limit")
            end = i + 1 + length
            if len(self._buffer) < end:
                return None
            payload = bytes(self._buffer[i + 1:end])
            del self._buffer[:end]
            return payload
        if len(self._buffer) >= _MAX_VARINT_BYTES:
            raise ProtocolError("malformed length prefix (is this robot-edged's API?)")
        return None
