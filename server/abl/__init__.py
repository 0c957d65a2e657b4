"""ABL tools: parser, checker, runtime and CLI for the Agent Blueprint Language."""

__version__ = "0.1.0"
