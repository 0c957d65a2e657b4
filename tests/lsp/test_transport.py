"""The pipe to the editor holds a large publish whole, where the system lets it be widened."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abl.lsp.transport import PIPE_BYTES, widen_pipe

try:
    import fcntl
except ImportError:  # Windows: no pipe sizes to set
    fcntl = None  # type: ignore[assignment]

DEFAULT_PIPE_BYTES = 1 << 16  # Linux's


def _pipe_max_size() -> int:
    try:
        return int(Path("/proc/sys/fs/pipe-max-size").read_text())
    except (OSError, ValueError):
        return 0


@pytest.mark.skipif(fcntl is None or not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are set on Linux only")
@pytest.mark.skipif(_pipe_max_size() < PIPE_BYTES, reason="this system lets no pipe grow to a megabyte")
def test_the_pipe_to_the_editor_holds_a_large_publish() -> None:
    # A large file's diagnostics are a megabyte: written into a 64 KiB pipe, the server waits
    # for the editor to read every 64 KiB of it.
    read_end, write_end = os.pipe()
    try:
        assert fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) == DEFAULT_PIPE_BYTES
        with os.fdopen(write_end, "wb", closefd=False) as stream:
            widen_pipe(stream)
        assert fcntl.fcntl(write_end, fcntl.F_GETPIPE_SZ) == PIPE_BYTES
    finally:
        os.close(read_end)
        os.close(write_end)


def test_an_output_that_is_no_pipe_is_left_as_it_is(tmp_path) -> None:
    # A file (output redirected), where the size cannot be set: no error, nothing written.
    with (tmp_path / "out").open("wb") as not_a_pipe:
        widen_pipe(not_a_pipe)
    assert (tmp_path / "out").read_bytes() == b""
