-- agentls for Neovim: starts the agentls language server for every buffer
-- holding a file (or those of the chosen filetypes) and puts its commands
-- (workspace/executeCommand) behind :Agent* user commands. It works from
-- Neovim 0.7.2, where each project root gets one client from
-- vim.lsp.start_client, to current Neovim, where vim.lsp.config and
-- vim.lsp.enable do that work.
--
-- The server does the work; this plugin only asks and shows: edits come
-- as workspace/applyEdit (one undo each), messages as showMessage, the
-- output channel (window/logMessage) lands in a scratch buffer, and the
-- server's agentls/saveDocuments request saves buffers before the agent
-- runs a command that reads the disk.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local NAME = 'agentls'
local OUTPUT_NAME = 'agentls://output'

local defaults = {
  cmd = { 'agentls' },
  -- nil: every buffer holding a file, whatever its filetype, so that
  -- agentls sees the unsaved text of every buffer it may edit (an edit of
  -- a buffer it cannot see is computed from the disk). A list limits it
  -- to those filetypes.
  filetypes = nil,
  -- The first of these found upwards from a file marks its project; a file
  -- outside any project uses the current directory.
  root_markers = { '.git' },
  -- The "agentls" settings section (model, baseUrl, apiKeyEnv, toolFormat,
  -- applyMode, ...), sent as initializationOptions and answered to
  -- workspace/configuration.
  settings = {},
  -- Echo a line when agentls work begins (status() has it all along).
  progress = true,
  -- Lines the output buffer keeps; older ones are dropped.
  output_lines = 10000,
  on_attach = nil,
  capabilities = nil,
}

-- Module state, never global: the options setup() was given, the clients
-- started on the 0.7 path (root -> client id), the work in progress, and
-- the output buffer.
local state = {
  config = vim.deepcopy(defaults),
  clients = {},
  progress = {},
  progress_seq = 0,
  output = nil,
  warned_missing = false, -- missing_program's message was shown
}

local function has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO)
end

-- echo shows a transient line, kept out of :messages so progress does
-- not flood the history.
local function echo(msg)
  api.nvim_echo({ { msg } }, false, {})
end

-- Empty Lua tables encode as JSON arrays; the server wants objects.
local function object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

---------------------------------------------------------------------------
-- Clients

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = NAME })
  end
  return vim.tbl_filter(function(c)
    return c.name == NAME
  end, vim.lsp.get_active_clients())
end

local function client_root(client)
  return client.root_dir or (client.config and client.config.root_dir)
end

local function is_under(path, dir)
  return dir ~= nil and (path == dir or path:sub(1, #dir + 1) == dir .. '/')
end

-- client_for returns the agentls client for buf, and whether buf is
-- attached to it. A buffer that is not attached (an unnamed scratch
-- buffer, another filetype) gets the client whose project holds it or the
-- current directory, else any: its text can still be sent as text.
local function client_for(buf)
  local clients = all_clients()
  for _, c in ipairs(clients) do
    if vim.lsp.buf_is_attached(buf, c.id) then
      return c, true
    end
  end
  local name = api.nvim_buf_get_name(buf)
  local cwd = vim.fn.getcwd()
  for _, c in ipairs(clients) do
    if (name ~= '' and is_under(name, client_root(c))) or is_under(cwd, client_root(c)) then
      return c, false
    end
  end
  return clients[1], false
end

-- missing_program says why the server's program cannot be started, or
-- returns nil when it can. Neovim's own words ("Spawning language server
-- ... failed") do not say that `go install` puts agentls in a folder that
-- is often not on PATH.
local function missing_program()
  local cmd = state.config.cmd
  local program = type(cmd) == 'table' and cmd[1] or nil
  if type(program) ~= 'string' or vim.fn.executable(program) == 1 then
    return nil
  end
  local fix = 'give its full path: require("agentls").setup({ cmd = { "/path/to/agentls" } })'
  if program ~= NAME then
    return 'agentls: the cmd given to require("agentls").setup(), ' .. program
      .. ', cannot be run (not found, or not executable): fix it, or drop it to use agentls from PATH'
  end
  -- Where `go install ./cmd/agentls` puts it: $(go env GOPATH)/bin, with
  -- GOPATH's first entry, ~/go by default.
  local gopath = (os.getenv('GOPATH') or ''):match('^[^:]+') or (vim.fn.expand('~') .. '/go')
  local bin = gopath .. '/bin'
  if vim.fn.executable(bin .. '/' .. NAME) == 1 then
    return 'agentls was not found on PATH: it is in ' .. bin .. ' (where `go install ./cmd/agentls` puts it), '
      .. 'which is not on PATH. Add ' .. bin .. ' to PATH before starting Neovim, or ' .. fix
  end
  return 'agentls was not found on PATH: run `go install ./cmd/agentls` in the agentls clone, which puts it in '
    .. '$(go env GOPATH)/bin (usually ~/go/bin), add that folder to PATH before starting Neovim, or ' .. fix
end

-- warn_missing_program shows missing_program's message once a session
-- (every buffer that opens would repeat it) and says whether it did.
local function warn_missing_program()
  local why = missing_program()
  if why and not state.warned_missing then
    state.warned_missing = true
    notify(why, vim.log.levels.ERROR)
  end
  return why ~= nil
end

-- request hides the change from client.request to client:request (0.11).
local function request(client, method, params, handler, buf)
  if has('0.11') then
    return client:request(method, params, handler, buf)
  end
  return client.request(method, params, handler, buf)
end

-- execute runs one agentls command with its one JSON object argument and
-- hands the result to on_result; a refusal is shown, not raised. buf is
-- the buffer the command is about, when it is attached: its pending
-- changes are sent first.
local function execute(client, command, args, on_result, buf)
  local params = { command = command, arguments = { object(args) } }
  request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      notify('agentls: ' .. command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result)
    end
  end, buf)
end

-- with_client runs fn(client, attached, buf) for the current buffer, or
-- says why it cannot.
local function with_client(fn)
  local buf = api.nvim_get_current_buf()
  local client, attached = client_for(buf)
  if not client then
    local why = missing_program()
    if why then
      notify(why, vim.log.levels.ERROR)
    else
      notify('agentls is not running: open a file of one of the filetypes given to require("agentls").setup()',
        vim.log.levels.WARN)
    end
    return
  end
  fn(client, attached, buf)
end

-- run is the plain case: a command whose result needs no display.
local function run(command, args)
  with_client(function(client, attached, buf)
    execute(client, command, args, nil, attached and buf or nil)
  end)
end

---------------------------------------------------------------------------
-- Ranges

-- utf16_units counts the UTF-16 code units of a UTF-8 string: a 4-byte
-- sequence is a surrogate pair, continuation bytes add nothing. (Done by
-- hand because vim.str_utfindex changed its signature in 0.11.)
local function utf16_units(s)
  local n = 0
  for i = 1, #s do
    local b = s:byte(i)
    if b < 0x80 or b >= 0xC0 then
      n = n + (b >= 0xF0 and 2 or 1)
    end
  end
  return n
end

-- character converts a byte column of line to the negotiated encoding.
local function character(line, byte, encoding)
  local prefix = line:sub(1, byte)
  if encoding == 'utf-16' then
    return utf16_units(prefix)
  elseif encoding == 'utf-32' then
    return vim.fn.strchars(prefix)
  end
  return #prefix
end

local function char_len(line, byte)
  local b = line:byte(byte + 1)
  if not b then
    return 0
  end
  return b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
end

-- selection_range is the LSP range of lines line1..line2 of a command, or
-- of exactly the selected characters when the command came from a
-- characterwise visual selection of those lines.
local function selection_range(buf, opts, encoding)
  local l1, l2 = opts.line1, opts.line2
  local first = api.nvim_buf_get_lines(buf, l1 - 1, l1, false)[1] or ''
  local last = api.nvim_buf_get_lines(buf, l2 - 1, l2, false)[1] or ''
  local from, to = 0, #last
  local vs, ve = api.nvim_buf_get_mark(buf, '<'), api.nvim_buf_get_mark(buf, '>')
  if vim.fn.visualmode() == 'v' and vs[1] == l1 and ve[1] == l2 then
    from = math.min(vs[2], #first)
    -- '> is the first byte of the last selected character: take it whole.
    to = math.min(ve[2] + char_len(last, ve[2]), #last)
  end
  return {
    start = { line = l1 - 1, character = character(first, from, encoding) },
    ['end'] = { line = l2 - 1, character = character(last, to, encoding) },
  }
end

-- selected_text is what selection_range covers, for a buffer the server
-- does not hold.
local function selected_text(buf, opts)
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  if opts.range > 0 then
    lines = api.nvim_buf_get_lines(buf, opts.line1 - 1, opts.line2, false)
  end
  return table.concat(lines, '\n')
end

---------------------------------------------------------------------------
-- Scratch buffers: the output channel and job output

local function scratch(name)
  local buf = api.nvim_create_buf(false, true)
  pcall(api.nvim_buf_set_name, buf, name)
  vim.bo[buf].bufhidden = 'hide'
  return buf
end

local function output_buffer()
  if not (state.output and api.nvim_buf_is_valid(state.output)) then
    state.output = scratch(OUTPUT_NAME)
  end
  return state.output
end

-- show puts buf in a window: the one already showing it, else a split.
local function show(buf)
  local win = vim.fn.bufwinid(buf)
  if win ~= -1 then
    api.nvim_set_current_win(win)
    return
  end
  vim.cmd('botright split')
  api.nvim_win_set_buf(0, buf)
end

local function append_output(lines)
  local buf = output_buffer()
  local empty = api.nvim_buf_line_count(buf) == 1 and api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
  api.nvim_buf_set_lines(buf, empty and 0 or -1, -1, false, lines)
  local count = api.nvim_buf_line_count(buf)
  local over = count - state.config.output_lines
  if over > 0 then
    api.nvim_buf_set_lines(buf, 0, over, false, {})
    count = count - over
  end
  -- Windows showing the output follow its end, like a terminal.
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    api.nvim_win_set_cursor(win, { count, 0 })
  end
end

local MESSAGE_TYPES = { 'Error', 'Warning', 'Info', 'Log' }

---------------------------------------------------------------------------
-- Handlers for what the server sends

-- buffer_for_uri finds the loaded buffer of a file URI without creating
-- one (vim.uri_to_bufnr would add a buffer for an unknown file).
local function buffer_for_uri(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  local real = uv.fs_realpath(fname) or fname
  for _, buf in ipairs(api.nvim_list_bufs()) do
    local name = api.nvim_buf_get_name(buf)
    if name ~= '' and (name == fname or (uv.fs_realpath(name) or name) == real) then
      return buf
    end
  end
  return nil
end

-- save_documents writes the buffers of uris that are loaded, hold a file
-- and have unsaved changes, and returns the URIs it saved. One buffer
-- that cannot be written (read-only, a failing BufWritePre) is reported
-- in the output buffer and does not stop the others.
function M.save_documents(uris)
  local saved = {}
  for _, uri in ipairs(uris or {}) do
    local buf = buffer_for_uri(uri)
    if buf and api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' and vim.bo[buf].modified then
      local ok, err = pcall(api.nvim_buf_call, buf, function()
        vim.cmd('silent keepalt write')
      end)
      if ok and not vim.bo[buf].modified then
        table.insert(saved, uri)
      else
        append_output({ 'agentls: could not save ' .. api.nvim_buf_get_name(buf) .. ': ' .. tostring(err) })
      end
    end
  end
  return saved
end

local function on_save_documents(_, params)
  return { saved = M.save_documents(params and params.uris) }
end

-- on_log_message is the output channel: each message goes to the output
-- buffer (:AgentOutput), and on to Neovim's own handler, which only
-- writes its LSP log file.
local function on_log_message(err, result, ctx, config)
  if result and result.message then
    local lines = vim.split(result.message, '\n', { plain = true })
    lines[1] = string.format('[%s %s] %s', os.date('%H:%M:%S'), MESSAGE_TYPES[result.type] or 'Log', lines[1])
    append_output(lines)
  end
  local default = vim.lsp.handlers['window/logMessage']
  if default then
    return default(err, result, ctx, config)
  end
  return vim.NIL
end

local function fire_status()
  pcall(vim.cmd, 'redrawstatus')
  pcall(api.nvim_exec_autocmds, 'User', { pattern = 'AgentlsStatus', modeline = false })
end

-- on_progress lets Neovim's own handler keep its progress state (0.7's
-- LspProgressUpdate, later LspProgress and vim.lsp.status(), and any
-- plugin built on them), then keeps the plugin's own for status(). The
-- end of work is not echoed: the server's message that follows it says
-- how it ended, and would be hidden.
local function on_progress(err, result, ctx, config)
  local default = vim.lsp.handlers['$/progress']
  local ret = vim.NIL
  if default then
    ret = default(err, result, ctx, config)
  end
  local value = result and result.value
  if type(value) ~= 'table' or not value.kind then
    return ret
  end
  local key = tostring(ctx and ctx.client_id) .. ':' .. tostring(result.token)
  if value.kind == 'begin' then
    state.progress_seq = state.progress_seq + 1
    state.progress[key] = { title = value.title or NAME, message = value.message, seq = state.progress_seq }
    if state.config.progress then
      echo((value.title or NAME) .. '…')
    end
  elseif value.kind == 'report' and state.progress[key] then
    state.progress[key].message = value.message
  elseif value.kind == 'end' then
    state.progress[key] = nil
  end
  fire_status()
  return ret
end

-- on_message_request lets Neovim ask (an approval's buttons) where a UI
-- can answer. Without one (nvim --headless, a test, a script) its
-- inputlist() would wait for ever and stall every other message, so the
-- request is answered as dismissed (the server counts that as "skip")
-- and noted in the output buffer.
local function on_message_request(err, params, ctx, config)
  if #api.nvim_list_uis() > 0 then
    return vim.lsp.handlers['window/showMessageRequest'](err, params, ctx, config)
  end
  append_output({ 'agentls: no UI to answer, dismissed: ' .. tostring(params and params.message) })
  return vim.NIL
end

-- on_show_document opens a file the server shows (a chat, a diff). Only
-- installed where Neovim has no handler of its own (0.7).
local function on_show_document(_, params, ctx)
  local uri = params and params.uri
  if not uri or params.external or not uri:match('^file:') then
    return { success = false }
  end
  local ok = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(vim.uri_to_fname(uri)))
  local sel = params.selection
  if ok and sel and sel.start then
    local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
    local line = api.nvim_buf_get_lines(0, sel.start.line, sel.start.line + 1, false)[1] or ''
    local col_ok, col = pcall(vim.str_byteindex, line, sel.start.character,
      not client or client.offset_encoding ~= 'utf-8')
    pcall(api.nvim_win_set_cursor, 0, { sel.start.line + 1, col_ok and col or 0 })
  end
  return { success = ok }
end

-- anchor_end_inserts rewrites, in place, the text edits of one loaded
-- buffer that insert past its last line (range start and end at line
-- line_count: the end of a file whose text ends in a newline, where a
-- streamed chat reply grows) into one insert at the end of the last line.
-- Neovim 0.11 appends such an insert as whole lines, so a text ending in
-- "\n" gains an empty line the server never sent (0.7 added the text
-- after the last line's end and removed the extra line itself); the end
-- of the last line means the same text on every version. Inserts at the
-- same place keep their order, as LSP wants, by becoming one.
local function anchor_end_inserts(buf, edits, encoding)
  local count = api.nvim_buf_line_count(buf)
  local kept, text = {}, nil
  for _, e in ipairs(edits) do
    local s, f = e.range.start, e.range['end']
    if s.line >= count and f.line >= count then
      text = (text or '') .. (e.newText or '')
    else
      table.insert(kept, e)
    end
  end
  if not text then
    return
  end
  local last = api.nvim_buf_get_lines(buf, count - 1, count, false)[1] or ''
  local at = { line = count - 1, character = character(last, #last, encoding) }
  -- The buffer's final newline already ends the inserted text's last line.
  text = '\n' .. text:gsub('\n$', '')
  table.insert(kept, { range = { start = at, ['end'] = at }, newText = text })
  for i = #edits, 1, -1 do
    edits[i] = nil
  end
  for i, e in ipairs(kept) do
    edits[i] = e
  end
end

-- on_apply_edit hands a workspace/applyEdit to Neovim's own handler, with
-- the inserts past the end of loaded buffers anchored (anchor_end_inserts).
-- A file the same edit creates or renames is left as sent: the server
-- places a created file's text for Neovim already.
-- buffer_hash is the sha256 of a buffer's text as writing it would make
-- the file.
local function buffer_hash(buf)
  local nl = vim.bo[buf].fileformat == 'dos' and '\r\n' or (vim.bo[buf].fileformat == 'mac' and '\r' or '\n')
  local text = table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), nl)
  if vim.bo[buf].eol or (vim.bo[buf].fixeol and not vim.bo[buf].binary) then
    text = text .. nl
  end
  if vim.bo[buf].bomb then
    text = '\239\187\191' .. text
  end
  return vim.fn.sha256(text)
end

-- unseen_conflicts returns the files an edit changes with version null
-- (computed from the disk by a server that has no document for them) in
-- a loaded buffer not attached to client (a filetype left out of
-- `filetypes`) that holds unsaved text other than the edit's base
-- (agentlsBaseHashes, the sha256 of that text). agentls replaces such a
-- file whole: applied there, the edit would overwrite the user's unsaved
-- changes (an older agentls's edit by position would land on the wrong
-- lines).
local function unseen_conflicts(edit, client)
  local hashes = type(edit.agentlsBaseHashes) == 'table' and edit.agentlsBaseHashes or {}
  local out = {}
  local function check(uri, version)
    if (version ~= nil and version ~= vim.NIL) or type(uri) ~= 'string' then
      return
    end
    local buf = buffer_for_uri(uri)
    if not buf or not api.nvim_buf_is_loaded(buf) or vim.lsp.buf_is_attached(buf, client.id) then
      return
    end
    if not vim.bo[buf].modified or (hashes[uri] and buffer_hash(buf) == hashes[uri]) then
      return
    end
    table.insert(out, vim.fn.fnamemodify(api.nvim_buf_get_name(buf), ':~:.'))
  end
  for _, dc in ipairs(edit.documentChanges or {}) do
    if dc.textDocument then
      check(dc.textDocument.uri, dc.textDocument.version)
    end
  end
  for uri in pairs(edit.changes or {}) do
    check(uri, nil)
  end
  return out
end

local function on_apply_edit(err, params, ctx, config)
  local edit = params and params.edit
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  if type(edit) == 'table' and client then
    local conflicts = unseen_conflicts(edit, client)
    if #conflicts > 0 then
      return {
        applied = false,
        failureReason = table.concat(conflicts, ', ')
          .. (#conflicts == 1 and ' has' or ' have')
          .. ' unsaved changes in a buffer agentls is not attached to; save or revert, and apply the edit again',
      }
    end
    local encoding = client.offset_encoding or 'utf-16'
    local made = {}
    for _, dc in ipairs(edit.documentChanges or {}) do
      if dc.kind == 'create' or dc.kind == 'rename' then
        made[dc.uri or dc.newUri] = true
      end
    end
    local function anchor(uri, edits)
      local buf = not made[uri] and buffer_for_uri(uri)
      if buf and api.nvim_buf_is_loaded(buf) and type(edits) == 'table' then
        anchor_end_inserts(buf, edits, encoding)
      end
    end
    for _, dc in ipairs(edit.documentChanges or {}) do
      if dc.textDocument and dc.edits then
        anchor(dc.textDocument.uri, dc.edits)
      end
    end
    for uri, edits in pairs(edit.changes or {}) do
      anchor(uri, edits)
    end
  end
  return vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, config)
end

-- handlers are the client's own, so other servers are left alone.
local function handlers()
  local h = {
    ['agentls/saveDocuments'] = on_save_documents,
    ['window/logMessage'] = on_log_message,
    ['$/progress'] = on_progress,
    ['window/showMessageRequest'] = on_message_request,
    ['workspace/applyEdit'] = on_apply_edit,
  }
  if not vim.lsp.handlers['window/showDocument'] then
    h['window/showDocument'] = on_show_document
  end
  return h
end

-- Exposed for tests and for users who wrap handlers of their own.
M.handlers = handlers

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  -- With the handler above, every version can open what the server shows.
  caps.window.showDocument = { support = true }
  if state.config.capabilities then
    caps = vim.tbl_deep_extend('force', caps, state.config.capabilities)
  end
  return caps
end

---------------------------------------------------------------------------
-- Starting the server

-- attachable: a buffer holding a file (not a help page, a terminal, a
-- plugin's fugitive:// or oil:// buffer).
local function attachable(buf)
  local name = api.nvim_buf_get_name(buf)
  return vim.bo[buf].buftype == '' and name ~= '' and not name:match('^%a[%w+.-]*://')
end

local function find_root(buf)
  local dir = vim.fn.fnamemodify(api.nvim_buf_get_name(buf), ':p:h')
  local found
  if vim.fs and vim.fs.find then
    found = vim.fs.find(state.config.root_markers, { path = dir, upward = true })[1]
  else
    -- 0.7: finddir/findfile search upwards with "dir;" ('path' syntax).
    local path = dir:gsub('([ ,\\])', '\\%1') .. ';'
    for _, marker in ipairs(state.config.root_markers) do
      local f = vim.fn.finddir(marker, path)
      if f == '' then
        f = vim.fn.findfile(marker, path)
      end
      if f ~= '' then
        found = f
        break
      end
    end
  end
  if not found then
    return vim.fn.getcwd()
  end
  local full = vim.fn.fnamemodify(found, ':p'):gsub('/$', '')
  return vim.fn.fnamemodify(full, ':h')
end

-- client_config is the client's configuration. Changes go out at once
-- (no debounce): edits are pinned to the version the server last saw.
local function client_config()
  local settings = state.config.settings or {}
  return {
    name = NAME,
    cmd = state.config.cmd,
    init_options = vim.tbl_extend('force', {}, settings, { saveDocuments = true }),
    settings = { agentls = object(settings) },
    flags = { debounce_text_changes = 0 },
    capabilities = capabilities(),
    handlers = handlers(),
    on_attach = state.config.on_attach,
  }
end

-- start_legacy attaches buf to its project's client, starting it first
-- (Neovim 0.7 to 0.10: one client per root, as vim.lsp.enable would).
local function start_legacy(buf)
  if not attachable(buf) then
    return
  end
  local root = find_root(buf)
  local id = state.clients[root]
  -- A client still initializing counts (get_client_by_id has it; 0.7's
  -- client_is_stopped does not); one that exited is replaced.
  if id and not vim.lsp.get_client_by_id(id) then
    id = nil
  end
  if not id then
    if warn_missing_program() then
      return -- checked again for the next buffer: PATH may be fixed by then
    end
    local cfg = client_config()
    cfg.root_dir = root
    id = vim.lsp.start_client(cfg)
    state.clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(buf, id)
  end
end

local function start_native()
  local cfg = client_config()
  cfg.filetypes = state.config.filetypes
  cfg.root_dir = function(buf, on_dir)
    if attachable(buf) then
      on_dir(find_root(buf))
    end
  end
  vim.lsp.config(NAME, cfg)
  vim.lsp.enable(NAME)
  -- vim.lsp.enable skips a cmd that cannot be run with a line in its log
  -- only, so the plugin says it, as start_legacy does: when a file of the
  -- filetypes opens (said in setup() it would read as an error in
  -- init.lua), once, checked again for each file until it is said.
  local group = api.nvim_create_augroup('agentls', { clear = true })
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = state.config.filetypes or '*',
    callback = function(args)
      if attachable(args.buf) then
        warn_missing_program()
      end
    end,
  })
end

local function start_autocmd()
  local group = api.nvim_create_augroup('agentls', { clear = true })
  local all = state.config.filetypes == nil
  api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = all and '*' or state.config.filetypes,
    callback = function(args)
      start_legacy(args.buf)
    end,
  })
  if all then
    -- A file of no filetype gets no FileType event. Scheduled, so that a
    -- buffer that does get one is attached with its filetype (the
    -- didOpen's languageId); attaching twice is a no-op.
    api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
      group = group,
      callback = function(args)
        vim.schedule(function()
          if api.nvim_buf_is_valid(args.buf) and api.nvim_buf_is_loaded(args.buf) then
            start_legacy(args.buf)
          end
        end)
      end,
    })
  end
  -- Buffers opened before setup() (a plugin manager loading on FileType)
  -- missed the autocmd.
  local wanted = {}
  for _, ft in ipairs(state.config.filetypes or {}) do
    wanted[ft] = true
  end
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) and (all or wanted[vim.bo[buf].filetype]) then
      start_legacy(buf)
    end
  end
end

---------------------------------------------------------------------------
-- Commands

local function ask(opts)
  local buf = api.nvim_get_current_buf()
  local function send(prompt)
    if not prompt or vim.trim(prompt) == '' then
      return
    end
    local client, attached = client_for(buf)
    if not client then
      return with_client(function() end) -- says why
    end
    local args = { prompt = prompt }
    if attached then
      args.uri = vim.uri_from_bufnr(buf)
      if opts.range > 0 then
        args.range = selection_range(buf, opts, client.offset_encoding)
      end
    elseif opts.range > 0 then
      -- The server cannot read this buffer: the selection goes in the prompt.
      args.prompt = prompt .. '\n\nSelected text:\n```\n' .. selected_text(buf, opts) .. '\n```'
    end
    execute(client, 'agentls.ask', args, function(result)
      -- With progress echoed, its first line already says the turn began.
      if type(result) == 'table' and result.turn and not state.config.progress then
        echo('agentls: agent turn ' .. tostring(result.turn) .. ' started')
      end
    end, attached and buf or nil)
  end
  if vim.trim(opts.args) ~= '' then
    send(opts.args)
  else
    vim.ui.input({ prompt = 'Ask agent: ' }, send)
  end
end

local function apply(opts)
  with_client(function(client, attached, buf)
    local args
    if attached then
      args = { uri = vim.uri_from_bufnr(buf) }
      if opts.range > 0 then
        args.range = selection_range(buf, opts, client.offset_encoding)
      end
    else
      args = { text = selected_text(buf, opts) }
    end
    execute(client, 'agentls.applyReply', args, nil, attached and buf or nil)
  end)
end

-- turn_args reads an optional turn number.
local function turn_args(opts)
  local n = tonumber(opts.args)
  return n and { turn = n } or {}
end

-- id_arg keeps a number a number, and any other id as given.
local function id_arg(s)
  s = vim.trim(s)
  return tonumber(s) or s
end

local function job_lines(jobs)
  if type(jobs) == 'table' and jobs.jobs then
    jobs = jobs.jobs
  end
  if type(jobs) ~= 'table' or (next(jobs) ~= nil and jobs[1] == nil) then
    return vim.split(vim.inspect(jobs), '\n', { plain = true })
  end
  if #jobs == 0 then
    return { 'agentls: no jobs' }
  end
  local lines = {}
  for _, j in ipairs(jobs) do
    local status = j.running and 'running' or ('exit ' .. tostring(j.exitCode))
    table.insert(lines, string.format('%-4s %-9s %s', tostring(j.id), status, tostring(j.command or '')))
  end
  return lines
end

local function jobs()
  with_client(function(client)
    execute(client, 'agentls.jobs.list', {}, function(result)
      api.nvim_echo({ { table.concat(job_lines(result), '\n') } }, false, {})
    end)
  end)
end

-- output_text finds the text in a jobs.output result, whatever its shape.
local function output_text(result)
  if type(result) == 'string' then
    return result
  end
  if type(result) == 'table' then
    for _, key in ipairs({ 'text', 'output' }) do
      if type(result[key]) == 'string' then
        return result[key]
      end
    end
  end
  return vim.inspect(result)
end

local function show_job_output(client, job)
  execute(client, 'agentls.jobs.output', { job = job }, function(result)
    local name = 'agentls://job/' .. tostring(job)
    local buf = vim.fn.bufnr(name)
    if buf == -1 or not api.nvim_buf_is_valid(buf) then
      buf = scratch(name)
    end
    api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(output_text(result), '\n', { plain = true }))
    show(buf)
  end)
end

-- job_output shows a job's output; without a job, the newest job's.
local function job_output(opts)
  with_client(function(client)
    if vim.trim(opts.args) ~= '' then
      return show_job_output(client, id_arg(opts.args))
    end
    execute(client, 'agentls.jobs.list', {}, function(result)
      local list = type(result) == 'table' and (result.jobs or result) or {}
      local newest = type(list) == 'table' and list[#list]
      if not newest then
        return notify('agentls: no jobs')
      end
      show_job_output(client, newest.id)
    end)
  end)
end

-- review: accept|reject|diff, then nothing (this file), "all", or a
-- hunk number.
local function review(opts)
  local verb, target = opts.fargs[1], opts.fargs[2]
  local command = ({ accept = 'agentls.review.accept', reject = 'agentls.review.reject', diff = 'agentls.review.diff' })[verb or '']
  if not command then
    return notify('usage: :AgentReview accept|reject|diff [all|N]', vim.log.levels.ERROR)
  end
  with_client(function(client, attached, buf)
    local args = {}
    if target == 'all' then
      args.all = true
    elseif tonumber(target) then
      args.hunk = tonumber(target)
    elseif target then
      return notify('agentls: :AgentReview ' .. verb .. ' takes all or a hunk number', vim.log.levels.ERROR)
    elseif attached then
      args.uri = vim.uri_from_bufnr(buf)
    elseif verb ~= 'diff' then
      args.all = true
    end
    execute(client, command, args, nil, attached and buf or nil)
  end)
end

local function is_chat(buf)
  return api.nvim_buf_get_name(buf):match('/%.agentls/chat/[^/]+%.md$') ~= nil
end

-- chat sends a chat document to the agent, or opens one (the server
-- creates it and shows it with window/showDocument).
local function chat(opts)
  with_client(function(client, attached, buf)
    local name = vim.trim(opts.args)
    if name == '' and is_chat(buf) and attached then
      return execute(client, 'agentls.chat.send', { uri = vim.uri_from_bufnr(buf) }, nil, buf)
    end
    execute(client, 'agentls.chat.open', name ~= '' and { name = name } or {})
  end)
end

-- approval: [N] [DIGEST] [always|stop]. A command of several lines is
-- approved only with the digest printed after its listing (the buttons
-- and code actions carry it), so a blind :AgentApprove cannot run a line
-- that was not shown.
local function approval(command)
  return function(opts)
    local args = {}
    for _, a in ipairs(opts.fargs) do
      if #a == 16 and a:match('^%x+$') then
        args.digest = a
      elseif tonumber(a) then
        args.request = tonumber(a)
      elseif a == 'always' or a == 'stop' then
        args[a] = true
      else
        return notify('agentls: unknown argument ' .. a, vim.log.levels.ERROR)
      end
    end
    run(command, args)
  end
end

local function complete(words)
  return function(lead)
    return vim.tbl_filter(function(w)
      return w:sub(1, #lead) == lead
    end, words)
  end
end

local commands = {
  AgentAsk = { ask, { nargs = '*', range = true, desc = 'Ask the agent (selection-aware)' } },
  AgentApply = { apply, { range = true, desc = 'Apply the agent reply in the selection or buffer' } },
  AgentChat = { chat, { nargs = '?', desc = 'Open a chat document, or send the one in this buffer' } },
  AgentCancel = { function(o) run('agentls.cancel', turn_args(o)) end, { nargs = '?', desc = 'Cancel agent work' } },
  AgentUndo = { function(o) run('agentls.turn.undo', turn_args(o)) end, { nargs = '?', desc = 'Undo the last agent turn (or turn N): every file it changed' } },
  AgentRedo = { function(o) run('agentls.turn.redo', turn_args(o)) end, { nargs = '?', desc = 'Redo the last undone agent turn (or turn N)' } },
  AgentReview = { review, { nargs = '+', complete = complete({ 'accept', 'reject', 'diff', 'all' }), desc = 'Accept, reject or diff pending agent edits' } },
  AgentRun = { function(o) run('agentls.run', { command = o.args }) end, { nargs = '+', complete = 'shellcmd', desc = 'Run a command as an agent job' } },
  AgentJobs = { jobs, { desc = 'List agent jobs' } },
  AgentJobOutput = { job_output, { nargs = '?', desc = 'Show the output of a job (default: the newest)' } },
  AgentJobKill = { function(o) run('agentls.jobs.kill', { job = id_arg(o.args) }) end, { nargs = 1, desc = 'Stop a job' } },
  AgentApprove = { approval('agentls.approve'), { nargs = '*', complete = complete({ 'always' }), desc = 'Approve an agent command' } },
  AgentDeny = { approval('agentls.deny'), { nargs = '*', complete = complete({ 'stop' }), desc = 'Deny an agent command' } },
  AgentOutput = { function() show(output_buffer()) end, { desc = 'Show the agentls output' } },
  -- The server shows the status line itself (window/showMessage).
  AgentStatus = { function() run('agentls.status', {}) end, { desc = 'Show the model, tokens, cost and what waits' } },
}

---------------------------------------------------------------------------
-- Public API

-- status is one line for a statusline: the newest agentls work in
-- progress and its last step, or "" when there is none.
function M.status()
  local newest
  for _, p in pairs(state.progress) do
    if not newest or p.seq > newest.seq then
      newest = p
    end
  end
  if not newest then
    return ''
  end
  if newest.message and newest.message ~= '' then
    return newest.title .. ': ' .. newest.message
  end
  return newest.title
end

-- output_buffer returns the output buffer's number (created if need be).
M.output_buffer = output_buffer

-- setup starts agentls for every buffer holding a file (or of the chosen
-- filetypes) and
-- defines the commands. Calling it again replaces the options for
-- clients started afterwards.
function M.setup(opts)
  state.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- Lists replace the defaults rather than merge with them index by index.
  for _, key in ipairs({ 'cmd', 'filetypes', 'root_markers' }) do
    if opts and opts[key] ~= nil then
      state.config[key] = opts[key]
    end
  end
  if type(state.config.cmd) == 'string' then
    state.config.cmd = { state.config.cmd }
  end
  state.warned_missing = false
  for name, def in pairs(commands) do
    api.nvim_create_user_command(name, def[1], def[2])
  end
  if vim.lsp.config and vim.lsp.enable then
    start_native()
  else
    start_autocmd()
  end
end

return M
