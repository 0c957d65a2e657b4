"""The Debug Adapter Protocol server (`abl dap`): breakpoints on routes, fields and flow steps,
stepping through handoffs, and every thread's values, for any DAP client."""

from abl.dap.server import DapServer, serve_stdio

__all__ = ["DapServer", "serve_stdio"]
