-- Neovim configuration for tests/editors/test_editor_scenario.py: plays the shared scenario
-- (tests/editors/scenario/expected.json) with Neovim's own LSP client and writes down what Neovim
-- shows after each step, then runs every code lens of the files it is told to.
--
-- Everything comes from one environment variable, ABL_NVIM_SCENARIO, a JSON object:
--   server     the server command, a list of strings
--   root       the workspace folder (the scenario's files, copied)
--   files      the workspace's file names whose diagnostics are written down after each step
--   steps      the scenario's steps: open (files), append ({file, lines}), save (file), delete (file), expect
--   lenses     file names to open and run every code lens of (instead of, or after, the steps)
--   result     the file to write the JSON result to
-- The result: {steps = [{name, diagnostics = {file = [{line, code, severity}]}, waited_ms}],
-- lenses = [{file, title, command, ran, error}], error?}. Comparing is the test's job: each step
-- waits until Neovim shows what the step expects, or until STEP_WAIT_MS have passed.
-- Needs Neovim 0.11 (vim.lsp.config).

local FILETYPE = 'abl_agent' -- our own name: Neovim maps `*.abl` to another language
local FIRST_STEP_WAIT_MS = 30000 -- server start-up and the workspace's first analysis
local STEP_WAIT_MS = 60000 -- returns as soon as the step shows; a deletion is heard by polling, late on a busy machine
local REQUEST_WAIT_MS = 10000
local POLL_MS = 50
local SEVERITY_NAMES = { [1] = 'error', [2] = 'warning' }

local spec = nil
local result = { steps = {}, lenses = {} }
local notices = {} -- what Neovim told the user (vim.notify), e.g. a command it cannot run

local function write_result()
  local file = assert(io.open(spec.result, 'w'))
  file:write(vim.json.encode(result))
  file:close()
end

local function fail(message)
  result.error = message
  io.stderr:write('abl-nvim: ' .. message .. '\n')
  write_result()
  vim.cmd('cquit')
end

local function guarded(fn)
  return function(...)
    local ok, err = pcall(fn, ...)
    if not ok then
      fail('error in the test configuration: ' .. tostring(err))
    end
  end
end

local function path_of(name)
  return spec.root .. '/' .. name
end

-- The buffer Neovim keeps for a file: opened by the user, or made for the diagnostics a server
-- sent about a file never opened.
local function buffer_of(name)
  local wanted = path_of(name)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(buf) == wanted then
      return buf
    end
  end
  return nil
end

-- Errors and warnings as the user sees them (`:lua vim.diagnostic.setqflist()` lists the same).
local function shown()
  local out = {}
  for _, name in ipairs(spec.files) do
    local buf = buffer_of(name)
    local items = {}
    if buf ~= nil then
      for _, d in ipairs(vim.diagnostic.get(buf, { severity = { min = vim.diagnostic.severity.WARN } })) do
        local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
        table.insert(items, { line = d.lnum + 1, code = code, severity = SEVERITY_NAMES[d.severity] })
      end
    end
    table.sort(items, function(a, b)
      return a.line < b.line or (a.line == b.line and tostring(a.code) < tostring(b.code))
    end)
    if #items > 0 then
      out[name] = items
    end
  end
  return out
end

local function same(observed, expected)
  return vim.deep_equal(vim.json.decode(vim.json.encode(observed)), expected)
end

local function client()
  return vim.lsp.get_clients({ name = 'abl' })[1]
end

local function play(step, wait_ms)
  for _, name in ipairs(step.open or {}) do
    vim.cmd.edit(vim.fn.fnameescape(path_of(name)))
  end
  if step.append then
    local buf = buffer_of(step.append.file)
    if buf == nil then
      return 'cannot append to ' .. step.append.file .. ': it is not open'
    end
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, step.append.lines)
  end
  if step.save then
    local buf = buffer_of(step.save)
    if buf == nil then
      return 'cannot save ' .. step.save .. ': it is not open'
    end
    vim.api.nvim_buf_call(buf, function()
      vim.cmd('silent write')
    end)
  end
  if step.delete then
    local ok, err = os.remove(path_of(step.delete))
    if not ok then
      return 'cannot delete ' .. step.delete .. ': ' .. tostring(err)
    end
  end
  -- Parse the expectation the way `shown` builds its answer, so that equal means equal.
  local expected = {}
  for name, items in pairs(step.expect) do
    if #items > 0 then
      expected[name] = items
    end
  end
  local started = vim.uv.now()
  vim.wait(wait_ms, function()
    return client() ~= nil and same(shown(), expected)
  end, POLL_MS)
  table.insert(result.steps, { name = step.name, diagnostics = shown(), waited_ms = vim.uv.now() - started })
  return nil
end

-- Runs a lens's command as `vim.lsp.codelens.run()` does (Client:exec_cmd), and says whether it
-- ran: the server answered without an error, and Neovim did not refuse it.
local function run_lens(c, buf, lens)
  local before = #notices
  local answered, answer_error = false, nil
  c:exec_cmd(lens.command, { bufnr = buf }, function(err)
    answered, answer_error = true, err
  end)
  vim.wait(REQUEST_WAIT_MS, function()
    return answered or #notices > before
  end, POLL_MS)
  local refusal = notices[before + 1]
  local message = refusal or (answer_error and answer_error.message) or (not answered and 'no answer') or nil
  return message == nil, message
end

local function run_lenses(name)
  local buf = buffer_of(name)
  local c = client()
  if buf == nil or c == nil then
    return fail('no client for ' .. name)
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
  local answer = c:request_sync('textDocument/codeLens', params, REQUEST_WAIT_MS, buf)
  if answer == nil or answer.err then
    return fail('the code lens request failed: ' .. vim.inspect(answer and answer.err))
  end
  for _, lens in ipairs(answer.result or {}) do
    local ran, message = run_lens(c, buf, lens)
    -- showDocument and the run it may start move the cursor: come back for the next lens.
    vim.api.nvim_set_current_buf(buf)
    table.insert(result.lenses, {
      file = name,
      line = lens.range.start.line + 1,
      title = lens.command.title,
      command = lens.command.command,
      ran = ran,
      error = message or vim.NIL,
    })
  end
end

local function run()
  for index, step in ipairs(spec.steps) do
    local problem = play(step, index == 1 and FIRST_STEP_WAIT_MS or STEP_WAIT_MS)
    if problem then
      return fail(problem)
    end
  end
  if #spec.lenses > 0 then
    for _, name in ipairs(spec.lenses) do
      vim.cmd.edit(vim.fn.fnameescape(path_of(name)))
    end
    if not vim.wait(FIRST_STEP_WAIT_MS, function()
      return client() ~= nil and client().initialized
    end, POLL_MS) then
      return fail('the server did not start')
    end
    for _, name in ipairs(spec.lenses) do
      run_lenses(name)
    end
  end
  write_result()
  vim.cmd('qa!')
end

local function setup()
  local raw = os.getenv('ABL_NVIM_SCENARIO')
  if raw == nil or raw == '' then
    io.stderr:write('abl-nvim: ABL_NVIM_SCENARIO is not set\n')
    vim.cmd('cquit')
    return
  end
  spec = vim.json.decode(raw)
  local notify = vim.notify
  vim.notify = function(message, level, opts)
    if (level or 0) >= vim.log.levels.WARN then
      table.insert(notices, message)
    end
    return notify(message, level, opts)
  end
  vim.notify_once = vim.notify -- a refused command is announced once per session otherwise

  vim.filetype.add({ extension = { abl = FILETYPE } })
  vim.lsp.config('abl', {
    cmd = spec.server,
    filetypes = { FILETYPE },
    root_markers = { 'project.json' },
    -- Keep the server in Neovim's process group, so that a hung run ends with it.
    detached = false,
    -- Neovim does not offer file watching on Linux unless asked; the server needs it to hear of
    -- files changed or deleted outside the editor (docs/editors.md says so too).
    capabilities = { workspace = { didChangeWatchedFiles = { dynamicRegistration = true } } },
  })
  vim.lsp.enable('abl')
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      vim.schedule(guarded(run))
    end,
  })
end

guarded(setup)()
