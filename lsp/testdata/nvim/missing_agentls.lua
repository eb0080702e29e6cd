-- Headless Neovim with the editors/nvim plugin set up by init.lua and no
-- agentls on PATH (TestNeovimPluginWithoutAgentls): opening a Markdown
-- file and running :AgentAsk say that agentls was not found on PATH and
-- how to fix it, not "open a file of one of the filetypes". AGENTLS_WANT
-- is a text each message must hold. Prints OK, or FAIL and exits non-zero.
local root = os.getenv('AGENTLS_ROOT')
local want = os.getenv('AGENTLS_WANT')

local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
local fail = lib.fail

local notes = {}
vim.notify = function(msg)
  table.insert(notes, msg)
end

local function main()
  vim.cmd('edit ' .. root .. '/reply.md')
  if #notes ~= 1 then
    fail('opening reply.md gave ' .. #notes .. ' messages, want 1: ' .. vim.inspect(notes))
  end
  vim.cmd('edit ' .. root .. '/notes.md') -- said once, not for every file
  if #notes ~= 1 then
    fail('opening a second file repeated the message: ' .. vim.inspect(notes))
  end
  vim.cmd('AgentAsk rename Config to Settings')
  if #notes ~= 2 then
    fail(':AgentAsk gave ' .. (#notes - 1) .. ' messages, want 1: ' .. vim.inspect(notes))
  end
  for _, note in ipairs(notes) do
    for _, s in ipairs({ 'agentls was not found on PATH', want, 'cmd = { "/path/to/agentls" }' }) do
      if not note:find(s, 1, true) then
        fail('the message does not say ' .. vim.inspect(s) .. ': ' .. note)
      end
    end
    if note:find('filetypes', 1, true) then
      fail('the message blames the filetype: ' .. note)
    end
  end
  if #vim.lsp.get_active_clients() ~= 0 then
    fail('a client was started without a program')
  end
  print('OK')
  vim.cmd('qall!')
end

local ok, err = pcall(main)
if not ok then
  fail(tostring(err))
end
