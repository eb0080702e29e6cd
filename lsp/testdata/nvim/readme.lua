-- Run with the README's Neovim set-up as init.lua (TestNeovimHeadless):
-- opening two files of one project starts one agentls, rooted at the
-- project, attached to both. Exits non-zero on failure.
local lib = dofile(debug.getinfo(1, 'S').source:sub(2):match('.*/') .. 'testlib.lua')
local fail = lib.fail
local root = os.getenv('AGENTLS_ROOT')
vim.cmd('edit ' .. root .. '/a.go')
vim.cmd('edit ' .. root .. '/b.go')
if not vim.wait(10000, function()
  local cs = vim.lsp.get_active_clients()
  return #cs > 0 and cs[1].initialized
end) then fail('no client started') end
local cs = vim.lsp.get_active_clients()
if #cs ~= 1 then fail(#cs .. ' clients, want 1') end
if cs[1].config.root_dir ~= root then fail('root ' .. tostring(cs[1].config.root_dir) .. ', want ' .. root) end
for _, name in ipairs({ 'a.go', 'b.go' }) do
  if not vim.lsp.buf_is_attached(vim.fn.bufnr(root .. '/' .. name), cs[1].id) then fail(name .. ' is not attached') end
end
io.stdout:write('OK\n')
vim.cmd('qa!')
