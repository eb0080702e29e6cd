-- Headless Neovim with the editors/nvim plugin (TestNeovimChat): :AgentChat
-- opens a chat document, the user writes under "## You" and sends it with
-- :AgentChat; the fake model's reply streams in a few bytes at a time
-- (lines that have no end yet, which Neovim keeps with a final newline)
-- and patches a.go; the reply must appear once, whole. Then :AgentUndo
-- reverts a.go and marks the exchange undone in the chat. Prints OK, or
-- FAIL and exits non-zero.
local root = os.getenv('AGENTLS_ROOT')

local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
local fail, text, wait = lib.fail, lib.text, lib.wait

local function count(s, sub)
  local n, i = 0, 1
  while true do
    local j = s:find(sub, i, true)
    if not j then return n end
    n, i = n + 1, j + #sub
  end
end

local function main()
  vim.cmd('edit ' .. root .. '/a.go')
  local a = vim.api.nvim_get_current_buf()
  wait('the server', function()
    for _, c in ipairs(vim.lsp.get_active_clients()) do
      if c.name == 'agentls' and c.initialized then return true end
    end
  end)
  local before = text(a)

  vim.cmd('AgentChat t')
  local chat_file = root .. '/.agentls/chat/t.md'
  wait('the chat document', function() return vim.fn.bufnr(chat_file) > 0 and vim.fn.bufloaded(chat_file) == 1 end)
  local chat = vim.fn.bufnr(chat_file)
  vim.api.nvim_set_current_buf(chat)
  wait('the chat to attach', function() return #vim.lsp.get_active_clients({ bufnr = chat }) > 0 end)
  vim.api.nvim_buf_set_lines(chat, -1, -1, false, { 'rename Config to Settings' })
  vim.cmd('AgentChat')

  wait('the reply to end', function() return text(chat):find('Renamed Config to Settings.', 1, true) ~= nil and text(chat):find('<!%-%- agent turn %d+ %-%->') ~= nil end)
  wait('a.go to change', function() return text(a):find('type Settings struct{}', 1, true) ~= nil end)
  local got = text(chat)
  for _, line in ipairs({ 'I will rename it now.', 'Renamed Config to Settings.' }) do
    if count(got, line) ~= 1 then fail(line .. ' appears ' .. count(got, line) .. ' times in the chat:\n' .. got) end
  end

  vim.cmd('AgentUndo')
  wait('a.go back', function() return text(a) == before end)
  wait('the exchange marked undone', function() return text(chat):find('undone, so this exchange is left out', 1, true) ~= nil end)
  io.stdout:write('OK\n')
  vim.cmd('qa!')
end

local ok, err = pcall(main)
if not ok then fail(tostring(err)) end
