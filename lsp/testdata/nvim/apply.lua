-- Headless Neovim 0.7.2 against the real agentls binary: "Apply agent
-- reply" on a scratch buffer holding a two-file patch_many reply, then
-- :undo in each file, then the same with a keystroke racing the edit.
-- Run by TestNeovimHeadless; exits non-zero on failure.
local bin, root = os.getenv('AGENTLS_BIN'), os.getenv('AGENTLS_ROOT')

local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
local fail, text = lib.fail, lib.text

-- No debounce: the server sees each change at once, so the versions it
-- pins edits to are current (Neovim does not check version 0).
local client_id = vim.lsp.start_client({
  cmd = { bin }, root_dir = root, name = 'agentls', flags = { debounce_text_changes = 0 },
})
if not client_id then fail('the client did not start') end

local function open(name, filetype)
  vim.cmd('edit ' .. root .. '/' .. name)
  local buf = vim.api.nvim_get_current_buf()
  if filetype then vim.bo[buf].filetype = filetype end
  vim.lsp.buf_attach_client(buf, client_id)
  return buf
end

local a = open('a.go', 'go')
local b = open('b.go', 'go')
local reply = open('reply.md', 'markdown')

local client
if not vim.wait(10000, function()
  client = vim.lsp.get_client_by_id(client_id)
  return client ~= nil and client.server_capabilities ~= nil and next(client.server_capabilities) ~= nil
end) then fail('the server did not initialize') end

local res = client.request_sync('textDocument/codeAction', {
  textDocument = { uri = vim.uri_from_bufnr(reply) },
  range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
  context = { diagnostics = {} },
}, 10000, reply)
if not res or res.err or not res.result or #res.result ~= 1 then
  fail('code actions: ' .. vim.inspect(res))
end
local action = res.result[1]
if action.title ~= 'Apply agent reply (2 edits in 3 files)' then fail('action title: ' .. action.title) end

local done = client.request_sync('workspace/executeCommand', action.command, 10000, reply)
if not done or done.err then fail('executeCommand: ' .. vim.inspect(done)) end

if not vim.wait(10000, function()
  return text(a):find('type Settings struct{}', 1, true) ~= nil and text(b):find('var c Settings', 1, true) ~= nil
end) then fail('the edit did not land: a.go=' .. text(a) .. ' b.go=' .. text(b)) end

-- The created file has exactly its content: no blank line added below it
-- (Neovim's quirk with an insert at 0:0 into a new buffer).
local c
if not vim.wait(10000, function()
  c = vim.fn.bufnr(root .. '/c.go')
  return c > 0 and text(c) ~= ''
end) then fail('c.go was not created') end
local want = { 'package p', '', 'func New() {}' }
local got = vim.api.nvim_buf_get_lines(c, 0, -1, false)
if not vim.deep_equal(got, want) then fail('c.go buffer: ' .. vim.inspect(got)) end

-- One undo in each buffer puts it back.
for _, buf in ipairs({ a, b }) do
  vim.api.nvim_buf_call(buf, function() vim.cmd('silent undo') end)
end
if text(a):find('Settings', 1, true) or text(b):find('Settings', 1, true) then
  fail('undo did not revert: a.go=' .. text(a) .. ' b.go=' .. text(b))
end
if not text(a):find('type Config struct{}', 1, true) or not text(b):find('var c Config', 1, true) then
  fail('undo left other text: a.go=' .. text(a) .. ' b.go=' .. text(b))
end
-- Neovim 0.7 skips a buffer that changed after the edit was computed and
-- still answers applied: true. Type into a.go just before the editor
-- applies the edit: the server must notice and send a.go's part again.
local apply_edit = vim.lsp.handlers['workspace/applyEdit']
local typed = false
vim.lsp.handlers['workspace/applyEdit'] = function(...)
  if not typed then
    typed = true
    vim.api.nvim_buf_set_lines(a, 0, 1, false, { 'package p // typed' })
  end
  return apply_edit(...)
end
done = client.request_sync('workspace/executeCommand', action.command, 10000, reply)
if not done or done.err then fail('executeCommand again: ' .. vim.inspect(done)) end
if not vim.wait(10000, function()
  return text(a):find('type Settings struct{}', 1, true) ~= nil and text(b):find('var c Settings', 1, true) ~= nil
end) then fail('the skipped buffer was not recovered: a.go=' .. text(a) .. ' b.go=' .. text(b)) end
if not typed or not text(a):find('package p // typed', 1, true) then fail('the typing was lost: a.go=' .. text(a)) end
vim.lsp.handlers['workspace/applyEdit'] = apply_edit

io.stdout:write('OK\n')
vim.cmd('qa!')
