-- Headless Neovim with the editors/nvim plugin set up by init.lua
-- (TestNeovimPlugin): :AgentApply on a reply buffer, then :undo; :AgentAsk
-- against the fake model, then :AgentUndo; :'<,'>AgentAsk on a selection;
-- agentls/saveDocuments, called directly and sent by the server; progress,
-- the output buffer and approvals without a UI; :help agentls. Prints OK,
-- or FAIL and exits non-zero.
local root = os.getenv('AGENTLS_ROOT')
local plugin = os.getenv('AGENTLS_PLUGIN')
local agentls = require('agentls')

local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
local fail, text, wait, has = lib.fail, lib.text, lib.wait, lib.has

local function open(name)
  vim.cmd('edit ' .. root .. '/' .. name)
  return vim.api.nvim_get_current_buf()
end

-- main is the scenario; a Lua error in it fails the test too.
local function main()
  -- Statuses seen while work runs, from the plugin's User event.
  local statuses = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentlsStatus',
    callback = function()
      table.insert(statuses, agentls.status())
    end,
  })

  local a, b = open('a.go'), open('b.go')

  local function client_of(buf)
    for _, c in ipairs(vim.lsp.get_active_clients()) do
      if c.name == 'agentls' and vim.lsp.buf_is_attached(buf, c.id) then
        return c
      end
    end
  end
  wait('the server to start for a.go and b.go', function()
    local c = client_of(a)
    return c ~= nil and c.initialized and client_of(b) == c
  end)
  local client = client_of(a)
  if #vim.lsp.get_active_clients() ~= 1 then fail(#vim.lsp.get_active_clients() .. ' clients, want 1') end
  if client.config.root_dir ~= root then fail('root ' .. tostring(client.config.root_dir) .. ', want ' .. root) end
  for _, cmd in ipairs({ 'AgentAsk', 'AgentChat', 'AgentApply', 'AgentCancel', 'AgentUndo', 'AgentRedo', 'AgentJobs',
    'AgentJobOutput', 'AgentReview', 'AgentOutput' }) do
    if vim.fn.exists(':' .. cmd) ~= 2 then fail(':' .. cmd .. ' is not defined') end
  end

  -- (a) A reply pasted into a new Markdown buffer, applied with :AgentApply.
  local reply = open('reply.md')
  vim.api.nvim_buf_set_lines(reply, 0, -1, false, vim.split(os.getenv('AGENTLS_REPLY'), '\n', { plain = true }))
  wait('reply.md to attach', function() return vim.lsp.buf_is_attached(reply, client.id) end)
  vim.cmd('AgentApply')
  wait('the reply to land', function() return has(a, 'type Settings struct{}') and has(b, 'var c Settings') end)
  for _, buf in ipairs({ a, b }) do
    vim.api.nvim_buf_call(buf, function() vim.cmd('silent undo') end)
  end
  if has(a, 'Settings') or has(b, 'Settings') then fail(':undo left a.go=' .. text(a) .. ' b.go=' .. text(b)) end

  -- (b) :AgentAsk with the prompt as argument: the fake model's patch lands
  -- in b.go; the turn's closing words reach the output buffer; :AgentUndo
  -- (the server's undo) reverts it.
  -- The turn patches b.go, then a.go, in two calls: :AgentUndo reverts the
  -- whole turn, both files.
  vim.api.nvim_set_current_buf(b)
  local before, before_a = text(b), text(a)
  vim.cmd('AgentAsk rename Config to Settings')
  wait('the agent edits', function() return has(b, 'var c Settings') and has(a, 'type Settings struct{}') end)
  if text(b) ~= 'package p\n\nvar c Settings' then fail('b.go after the turn: ' .. text(b)) end
  local output = agentls.output_buffer()
  wait('the turn to end in the output buffer', function() return has(output, 'Renamed Config to Settings.') end)
  -- The project's rules the turn took are listed under it (issue 27).
  wait('the turn\'s rules in the output buffer', function() return has(output, 'rules: AGENTS.md') end)
  -- What the turn cost ends its last line (issue 27: usage in every editor).
  wait('the turn\'s cost in the output buffer', function() return text(output):find('agent turn 2 done %(.*[0-9] tokens') ~= nil end)
  vim.cmd('AgentUndo')
  wait(':AgentUndo of both files', function() return text(b) == before and text(a) == before_a end)
  local saw_turn = false
  for _, s in ipairs(statuses) do
    -- The apply above was turn 1; the agent's turn is turn 2.
    if s:find('agent turn 2', 1, true) then saw_turn = true end
  end
  if not saw_turn then fail('status() never named the turn: ' .. vim.inspect(statuses)) end
  wait('the work to end', function() return agentls.status() == '' end)

  -- (b2) :'<,'>AgentAsk on a characterwise selection: the server gets
  -- exactly the selected characters, its range in UTF-16 past a dash and
  -- an emoji (the Go test checks what the model was sent).
  vim.api.nvim_set_current_buf(a)
  local line = vim.api.nvim_buf_get_lines(a, 2, 3, false)[1]
  vim.api.nvim_win_set_cursor(0, { 3, line:find('😀', 1, true) - 1 })
  vim.cmd('normal! v3l\27')
  vim.cmd("'<,'>AgentAsk explain this")
  wait('the selection turn to end', function() return has(output, 'Looked at the selection.') end)

  -- (c) agentls/saveDocuments, called as the server would: the modified
  -- buffer is written, an unknown URI and an unmodified buffer are not.
  local d = open('d.go')
  local c = open('c.go')
  vim.api.nvim_buf_set_lines(c, -1, -1, false, { '', 'func Saved() {}' })
  local handler = agentls.handlers()['agentls/saveDocuments']
  local res = handler(nil, { uris = { vim.uri_from_bufnr(c), vim.uri_from_bufnr(d), vim.uri_from_fname(root .. '/missing.go') } },
    { method = 'agentls/saveDocuments', client_id = client.id })
  if not vim.deep_equal(res, { saved = { vim.uri_from_bufnr(c) } }) then fail('saveDocuments answered ' .. vim.inspect(res)) end
  local f = io.open(root .. '/c.go')
  local disk = f:read('*a')
  f:close()
  if disk ~= 'package p\n\nfunc Saved() {}\n' then fail('c.go on disk: ' .. disk) end
  if vim.bo[c].modified then fail('c.go still modified') end

  -- (c2) The same request sent by the server: before the agent's shell
  -- command (allowed by commandAllowlist in init.lua) runs, the modified
  -- d.go is saved, so the command sees the typed line (the Go test checks
  -- what the model was told).
  vim.api.nvim_set_current_buf(d)
  vim.api.nvim_buf_set_lines(d, -1, -1, false, { '// typed before the command' })
  vim.cmd('AgentAsk show d.go')
  wait('the shell turn to end', function() return has(output, 'Saw the typed line.') end)
  if vim.bo[d].modified then fail('d.go was not saved before the command') end

  -- An approval's buttons without a UI to answer: dismissed at once, not
  -- a headless inputlist() waiting for ever.
  local answer = agentls.handlers()['window/showMessageRequest'](nil,
    { type = 2, message = 'agentls: the agent asks to run `make`', actions = { { title = 'Run' }, { title = 'Skip' } } },
    { method = 'window/showMessageRequest', client_id = client.id })
  if answer ~= vim.NIL then fail('showMessageRequest answered ' .. vim.inspect(answer)) end
  if not has(output, 'asks to run `make`') then fail('the dismissed request is not in the output') end

  -- :help agentls, from tags built here (the repository has no tags file).
  vim.cmd('helptags ' .. vim.fn.fnameescape(plugin .. '/doc'))
  vim.cmd('help agentls')
  if not vim.api.nvim_buf_get_name(0):find('agentls.txt', 1, true) then fail(':help agentls opened ' .. vim.api.nvim_buf_get_name(0)) end
  vim.cmd('help :AgentAsk')
end

local ok, err = xpcall(main, debug.traceback)
if not ok then fail(err) end
io.stdout:write('OK\n')
vim.cmd('qa!')
