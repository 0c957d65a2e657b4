-- Neovim configuration for tests/editors/test_neovim.py.
--
-- Opens an ABL file, starts `abl lsp` for it, waits for an expected diagnostic, asks for a hover,
-- stops the server, writes what Neovim saw as JSON and quits: exit status 0 when all of that
-- happened, 1 (with a message on stderr and `error` in the JSON) when anything did not.
--
-- Everything it needs comes from one environment variable, ABL_NVIM_TEST, a JSON object:
--   server       the server command, a list of strings
--   result       the file to write the JSON result to
--   diagnostics  "pull": keep Neovim's own capabilities (0.10+ advertise pull diagnostics);
--                "push": hide the pull capability, as an older client would
--   code         the diagnostic code to wait for
--   hover_key    the ABL key (`KEY:`) to hover on
-- Runs on Neovim 0.7 and newer.

local FILETYPE = 'abl_agent' -- our own name: Neovim maps `*.abl` to another language
local DIAGNOSTICS_WAIT_MS = 20000 -- server start-up plus the first analysis
local REQUEST_WAIT_MS = 5000 -- the hover answer, and the server's shutdown
local POLL_MS = 50

local spec = nil -- the decoded ABL_NVIM_TEST
local result = { diagnostics = {}, delivered_by = {} }
local delivered = {} -- LSP method -> true once an answer of that method carried the code

local function say(message)
  io.stderr:write('abl-nvim: ' .. message .. '\n')
end

local function write_result()
  if spec == nil then
    return
  end
  local file = assert(io.open(spec.result, 'w'))
  file:write(vim.fn.json_encode(result))
  file:close()
end

local function fail(message)
  result.error = message
  say(message)
  write_result()
  vim.cmd('cquit')
end

-- Run `fn`, turning a Lua error into a failed run: an error left uncaught in headless mode is
-- printed and then Neovim waits for input forever.
local function guarded(fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      fail('error in the test configuration: ' .. tostring(err))
    end
  end
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients() -- before 0.10
end

-- Diagnostics as the user sees them: whichever way they arrived, they end up here.
local function buffer_diagnostics(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp_item = d.user_data and d.user_data.lsp or {}
    table.insert(found, { code = d.code or lsp_item.code or vim.NIL, line = d.lnum + 1, message = d.message })
  end
  return found
end

local function has_code(buf)
  for _, d in ipairs(buffer_diagnostics(buf)) do
    if d.code == spec.code then
      return true
    end
  end
  return false
end

-- Note which protocol path delivered the code, then hand over to Neovim's own handler.
local function watch(method, items_of)
  local original = vim.lsp.handlers[method]
  if original == nil then
    return -- this Neovim has no such handler (pull diagnostics came in 0.10)
  end
  vim.lsp.handlers[method] = function(err, res, ctx, config)
    if type(res) == 'table' then
      for _, item in ipairs(items_of(res) or {}) do
        if item.code == spec.code then
          delivered[method] = true
        end
      end
    end
    return original(err, res, ctx, config)
  end
end

local function hide_pull_capability()
  local defaults = vim.lsp.protocol.make_client_capabilities
  vim.lsp.protocol.make_client_capabilities = function()
    local caps = defaults()
    caps.textDocument.diagnostic = nil
    return caps
  end
end

local function project_root(buf)
  local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':p:h')
  local marker = vim.fn.findfile('project.json', dir .. ';')
  if marker == '' then
    return dir
  end
  return vim.fn.fnamemodify(marker, ':p:h')
end

local function start_client()
  local config = {
    name = 'abl',
    cmd = spec.server,
    -- Keep the server in Neovim's process group (newer versions detach it by default), so that
    -- the test can end both together if a run hangs.
    detached = false,
  }
  if vim.fn.has('nvim-0.11') == 1 then
    config.filetypes = { FILETYPE }
    config.root_markers = { 'project.json' }
    vim.lsp.config('abl', config)
    vim.lsp.enable('abl')
    return
  end
  vim.api.nvim_create_autocmd('FileType', {
    pattern = FILETYPE,
    callback = guarded(function(args)
      config.root_dir = project_root(args.buf)
      if vim.fn.has('nvim-0.8') == 1 then
        vim.lsp.start(config)
        return
      end
      local id = vim.lsp.start_client(config) -- 0.7: no vim.lsp.start yet
      if id == nil then
        fail('could not start the server: ' .. table.concat(spec.server, ' '))
        return
      end
      vim.lsp.buf_attach_client(args.buf, id)
    end),
  })
end

local function key_position(buf, key)
  for row, text in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local indent = text:match('^(%s*)' .. key .. ':')
    if indent then
      return { line = row - 1, character = #indent }
    end
  end
  return nil
end

-- Hover contents come as MarkupContent, a MarkedString, or a list of MarkedStrings.
local function hover_text(contents)
  if type(contents) == 'string' then
    return contents
  end
  if type(contents) ~= 'table' then
    return ''
  end
  if contents.value then
    return contents.value
  end
  local parts = {}
  for _, part in ipairs(contents) do
    table.insert(parts, hover_text(part))
  end
  return table.concat(parts, '\n')
end

local function hover(buf)
  local position = key_position(buf, spec.hover_key)
  if position == nil then
    return nil, 'no `' .. spec.hover_key .. ':` key in the file'
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = position }
  local answers, err = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, REQUEST_WAIT_MS)
  if answers == nil then
    return nil, 'hover request failed: ' .. tostring(err)
  end
  for _, answer in pairs(answers) do
    local answer_err = answer.err or answer.error -- the key is `error` before 0.10
    if answer_err then
      return nil, 'hover answered with an error: ' .. vim.inspect(answer_err)
    end
    if answer.result then
      return hover_text(answer.result.contents), nil
    end
  end
  return nil, 'hover had no answer'
end

-- Ask every client to shut down and wait until its process has exited.
local function stop_clients()
  local ids = {}
  for _, client in ipairs(all_clients()) do
    table.insert(ids, client.id)
  end
  vim.lsp.stop_client(ids)
  return vim.wait(REQUEST_WAIT_MS, function()
    return #all_clients() == 0
  end, POLL_MS)
end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  local arrived = vim.wait(DIAGNOSTICS_WAIT_MS, function()
    return has_code(buf)
  end, POLL_MS)
  result.filetype = vim.bo[buf].filetype
  result.diagnostics = buffer_diagnostics(buf)
  result.delivered_by = vim.tbl_keys(delivered)
  local client = all_clients()[1]
  if client ~= nil then
    result.server_pulls = (client.server_capabilities or {}).diagnosticProvider ~= nil
  end
  if not arrived then
    fail(string.format('no %s diagnostic within %d ms (filetype %q, %d client(s) running)',
      spec.code, DIAGNOSTICS_WAIT_MS, result.filetype, #all_clients()))
    return
  end

  local text, err = hover(buf)
  if text == nil then
    fail(err)
    return
  end
  result.hover = text

  result.server_stopped = stop_clients()
  write_result()
  vim.cmd('qa!')
end

local function setup()
  local raw = os.getenv('ABL_NVIM_TEST')
  if raw == nil or raw == '' then
    error('ABL_NVIM_TEST is not set')
  end
  spec = vim.fn.json_decode(raw)

  -- `set filetype`, not `setfiletype`: it must win over Neovim's own mapping of `*.abl`.
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    pattern = '*.abl',
    callback = function(args)
      vim.bo[args.buf].filetype = FILETYPE
    end,
  })

  if spec.diagnostics == 'push' then
    hide_pull_capability()
  end
  result.client_pulls = vim.lsp.protocol.make_client_capabilities().textDocument.diagnostic ~= nil
  local workspace_caps = vim.lsp.protocol.make_client_capabilities().workspace or {}
  result.client_refreshes = (workspace_caps.diagnostics or {}).refreshSupport == true
  watch('textDocument/publishDiagnostics', function(res)
    return res.diagnostics
  end)
  watch('textDocument/diagnostic', function(res)
    return res.items
  end)

  start_client()
  -- Start once the file is loaded; vim.wait inside keeps Neovim's event loop (and LSP) running.
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      vim.schedule(guarded(run))
    end,
  })
end

guarded(setup)()
